/**
 * DynamoDB (JSON 1.0, `X-Amz-Target: DynamoDB_20120810.Op`) → IAM checks. Transactions have no
 * IAM action of their own: AWS authorizes each item with its own action on its own table.
 * Batch operations are IAM actions (dynamodb:BatchWriteItem/BatchGetItem) checked per table.
 */
import { GatewayError } from './errors.js';
import { unique, type Check, type Scope } from './checks.js';

type Body = Record<string, unknown> & { TableName?: string; IndexName?: string };

const TRANSACT_WRITE: Record<string, string> = { Put: 'PutItem', Update: 'UpdateItem', Delete: 'DeleteItem', ConditionCheck: 'ConditionCheckItem' };

/**
 * @example
 * dynamodbChecks('DynamoDB_20120810.Query', { TableName: 'runs', IndexName: 'byState' }, scope)
 * // [{ action: 'dynamodb:Query', resource: 'arn:aws:dynamodb:us-east-1:000000000000:table/runs/index/byState' }]
 */
export function dynamodbChecks(target: string, body: Body, scope: Scope): Check[] {
  const op = target.split('.')[1];
  if (!op) throw new GatewayError(`DynamoDB request without an operation in X-Amz-Target: '${target}'`);
  const table = (name: string) => `arn:aws:dynamodb:${scope.region}:${scope.accountId}:table/${name}`;
  switch (op) {
    case 'ListTables':
    case 'DescribeLimits':
    case 'DescribeEndpoints':
      return [{ action: `dynamodb:${op}`, resource: '*' }];
    case 'TransactWriteItems':
      return unique(((body.TransactItems ?? []) as Record<string, { TableName: string }>[]).flatMap((item) =>
        Object.entries(item).map(([kind, req]) => {
          const action = TRANSACT_WRITE[kind];
          if (!action) throw new GatewayError(`TransactWriteItems: unknown item kind '${kind}'`);
          return { action: `dynamodb:${action}`, resource: table(req.TableName) };
        })));
    case 'TransactGetItems':
      return unique(((body.TransactItems ?? []) as { Get: { TableName: string } }[]).map((item) => ({ action: 'dynamodb:GetItem', resource: table(item.Get.TableName) })));
    case 'BatchWriteItem':
    case 'BatchGetItem':
      return Object.keys((body.RequestItems ?? {}) as object).map((name) => ({ action: `dynamodb:${op}`, resource: table(name) }));
    default: {
      if (typeof body.TableName !== 'string') throw new GatewayError(`DynamoDB ${op}: the gateway does not know its resource (no TableName)`);
      const arn = table(body.TableName);
      const onIndex = (op === 'Query' || op === 'Scan') && typeof body.IndexName === 'string';
      return [{ action: `dynamodb:${op}`, resource: onIndex ? `${arn}/index/${body.IndexName}` : arn }];
    }
  }
}
