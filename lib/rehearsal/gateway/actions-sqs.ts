/**
 * SQS (JSON protocol, `X-Amz-Target: AmazonSQS.Op`) → IAM checks. Batch operations are
 * authorized as their single-message actions, as AWS does.
 */
import { GatewayError } from './errors.js';
import type { Check, Scope } from './checks.js';

const BATCH: Record<string, string> = {
  SendMessageBatch: 'SendMessage',
  DeleteMessageBatch: 'DeleteMessage',
  ChangeMessageVisibilityBatch: 'ChangeMessageVisibility',
};

/** arn:aws:sqs:REGION:ACCOUNT:NAME from a queue URL (http://host/ACCOUNT/NAME). */
export function queueArn(url: string, scope: Scope): string {
  let parts: string[];
  try {
    parts = new URL(url).pathname.split('/').filter(Boolean);
  } catch (cause) {
    throw new GatewayError(`SQS: QueueUrl is not a URL: '${url}'`, { cause });
  }
  const name = parts.at(-1);
  if (!name) throw new GatewayError(`SQS: QueueUrl has no queue name: '${url}'`);
  const account = parts.length >= 2 && /^\d{12}$/.test(parts.at(-2)!) ? parts.at(-2)! : scope.accountId;
  return `arn:aws:sqs:${scope.region}:${account}:${name}`;
}

/**
 * @example
 * sqsChecks('AmazonSQS.SendMessageBatch', { QueueUrl: 'http://127.0.0.1:9/000000000000/ready' }, scope)
 * // [{ action: 'sqs:SendMessage', resource: 'arn:aws:sqs:us-east-1:000000000000:ready' }]
 */
export function sqsChecks(target: string, body: Record<string, unknown>, scope: Scope): Check[] {
  const op = target.split('.')[1];
  if (!op) throw new GatewayError(`SQS request without an operation in X-Amz-Target: '${target}'`);
  const action = `sqs:${BATCH[op] ?? op}`;
  if (op === 'ListQueues') return [{ action, resource: '*' }];
  if (typeof body.QueueUrl === 'string') return [{ action, resource: queueArn(body.QueueUrl, scope) }];
  if (typeof body.QueueName === 'string') return [{ action, resource: `arn:aws:sqs:${scope.region}:${scope.accountId}:${body.QueueName}` }];
  throw new GatewayError(`SQS ${op}: the gateway does not know its resource (no QueueUrl or QueueName)`);
}
