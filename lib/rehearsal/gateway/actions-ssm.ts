/**
 * SSM Parameter Store (JSON 1.1, `X-Amz-Target: AmazonSSM.Op`) → IAM checks. Each operation
 * is its own action on the parameter's ARN, whose resource part drops the name's leading
 * slash (`parameter/airless/variables/x`); GetParametersByPath is authorized on the path in
 * the request, not on the parameters it returns
 * (https://docs.aws.amazon.com/systems-manager/latest/userguide/ps-retrieval-authorization.html,
 * https://docs.aws.amazon.com/service-authorization/latest/reference/list_awssystemsmanager.html).
 * Reading a SecureString also needs kms:Decrypt on its key; with the AWS managed key
 * (aws/ssm), which Airless uses, IAM grants that through the key policy: not modelled.
 */
import { GatewayError } from './errors.js';
import type { Check, Scope } from './checks.js';

/**
 * @example
 * ssmChecks('AmazonSSM.GetParameter', { Name: '/airless/variables/x' }, scope)
 * // [{ action: 'ssm:GetParameter', resource: 'arn:aws:ssm:us-east-1:000000000000:parameter/airless/variables/x' }]
 */
export function ssmChecks(target: string, body: Record<string, unknown>, scope: Scope): Check[] {
  const op = target.split('.')[1];
  if (!op) throw new GatewayError(`SSM request without an operation in X-Amz-Target: '${target}'`);
  const arn = (name: string) => (name.startsWith('arn:') ? name : `arn:aws:ssm:${scope.region}:${scope.accountId}:parameter/${name.replace(/^\//, '')}`);
  const named = op === 'GetParametersByPath' ? body.Path : body.Name;
  if (typeof named !== 'string') throw new GatewayError(`SSM ${op}: the gateway does not know its resource (no ${op === 'GetParametersByPath' ? 'Path' : 'Name'})`);
  return [{ action: `ssm:${op}`, resource: arn(named) }];
}
