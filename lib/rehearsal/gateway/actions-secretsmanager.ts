/**
 * Secrets Manager (JSON 1.1, `X-Amz-Target: secretsmanager.Op`) → IAM checks. Every secret
 * action is on the `Secret` resource type: the secret's full ARN, with the six random
 * characters AWS appends (`secret:airless/connections/db-AbCdEf`), also when the request
 * names it by name; CreateSecret on the ARN the new secret gets; ListSecrets has no
 * resource type (`*`)
 * (https://docs.aws.amazon.com/service-authorization/latest/reference/list_awssecretsmanager.html).
 */
import { GatewayError } from './errors.js';
import type { Check, Scope } from './checks.js';
import type { SecretStore } from './params/secrets.js';

/**
 * @example
 * secretsChecks('secretsmanager.GetSecretValue', { SecretId: 'airless/connections/db' }, scope, store)
 * // [{ action: 'secretsmanager:GetSecretValue', resource: 'arn:aws:secretsmanager:us-east-1:000000000000:secret:airless/connections/db-AbCdEf' }]
 */
export function secretsChecks(target: string, body: Record<string, unknown>, _scope: Scope, store: SecretStore): Check[] {
  const op = target.split('.')[1];
  if (!op) throw new GatewayError(`Secrets Manager request without an operation in X-Amz-Target: '${target}'`);
  const action = `secretsmanager:${op}`;
  if (op === 'ListSecrets' || op === 'BatchGetSecretValue' || op === 'GetRandomPassword') return [{ action, resource: '*' }];
  if (op === 'CreateSecret') {
    if (typeof body.Name !== 'string') throw new GatewayError('Secrets Manager CreateSecret: the gateway does not know its resource (no Name)');
    return [{ action, resource: store.arnForCreate(body.Name) }];
  }
  if (typeof body.SecretId !== 'string') throw new GatewayError(`Secrets Manager ${op}: the gateway does not know its resource (no SecretId)`);
  return [{ action, resource: store.resourceOf(body.SecretId) }];
}
