/**
 * The template's Lambda functions as the rehearsal runs them: asset folder, handler,
 * timeout, memory, the template's environment plus what the Lambda runtime sets, the
 * gateway endpoint, and the fake access key its role is known by.
 */
import { cpSync } from 'node:fs';
import { join } from 'node:path';
import { AirlessError } from '../engine/index.js';
import type { Principal } from './gateway/index.js';
import type { FunctionSpec } from './lambda.js';
import type { StackTemplate } from './template.js';

/**
 * Node.js functions with a bundled asset; others (CDK's Python custom-resource handlers,
 * which run only during a deploy) are left out.
 *
 * @example
 * const specs = buildFunctions(template, { cdkOut, codeRoot, gatewayUrl, principals });
 */
export function buildFunctions(t: StackTemplate, o: { cdkOut: string; codeRoot: string; gatewayUrl: string; principals: Principal[] }): FunctionSpec[] {
  const specs: FunctionSpec[] = [];
  for (const [id, r] of t.ofType('AWS::Lambda::Function')) {
    const asset = r.Metadata?.['aws:asset:path'];
    const p = t.props(id) as Record<string, any>;
    if (typeof asset !== 'string' || !String(p.Runtime ?? '').startsWith('nodejs')) continue;
    const codeDir = join(o.codeRoot, id);
    cpSync(join(o.cdkOut, asset), codeDir, { recursive: true });
    const name = t.physicalName(id);
    const arn = t.getAtt(id, 'Arn');
    const principal = o.principals.find((x) => x.roleArn === p.Role);
    if (!principal) throw new AirlessError(`function ${id} has a role (${String(p.Role)}) the template does not define`);
    const invokeConfig = t.ofType('AWS::Lambda::EventInvokeConfig').map(([cid]) => t.props(cid) as Record<string, any>).find((c) => c.FunctionName === name || c.FunctionName === arn);
    const logGroupName = String(p.LoggingConfig?.LogGroup ?? `/aws/lambda/${name}`);
    const memoryMb = Number(p.MemorySize ?? 128);
    specs.push({
      logicalId: id, name, arn, roleArn: principal.roleArn, codeDir, handler: String(p.Handler ?? 'index.handler'),
      timeoutMs: Number(p.Timeout ?? 3) * 1000, memoryMb, logGroupName,
      reservedConcurrency: p.ReservedConcurrentExecutions === undefined ? undefined : Number(p.ReservedConcurrentExecutions),
      asyncRetries: invokeConfig?.MaximumRetryAttempts === undefined ? 2 : Number(invokeConfig.MaximumRetryAttempts),
      env: {
        ...(p.Environment?.Variables ?? {}),
        AWS_ENDPOINT_URL: o.gatewayUrl,
        AWS_ACCESS_KEY_ID: principal.accessKeyId,
        AWS_SECRET_ACCESS_KEY: 'rehearsal',
        AWS_REGION: 'us-east-1',
        AWS_DEFAULT_REGION: 'us-east-1',
        AWS_LAMBDA_FUNCTION_NAME: name,
        AWS_LAMBDA_FUNCTION_VERSION: '$LATEST',
        AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(memoryMb),
        AWS_LAMBDA_LOG_GROUP_NAME: logGroupName,
        AWS_EXECUTION_ENV: `AWS_Lambda_${String(p.Runtime)}`,
        LAMBDA_TASK_ROOT: codeDir,
        TZ: 'UTC',
        // The rehearsal runs on Node 20 what Lambda runs on Node 24; s3rver needs plain bodies.
        AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
        AWS_REQUEST_CHECKSUM_CALCULATION: 'WHEN_REQUIRED',
        AWS_RESPONSE_CHECKSUM_VALIDATION: 'WHEN_REQUIRED',
      },
    });
  }
  return specs;
}
