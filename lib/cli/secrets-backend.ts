/**
 * Where `airless variables|connections` read and write: the local files (`.airless/`, or
 * AIRLESS_SECRETS_DIR) by default; with `--stack` or `--endpoint`, SSM Parameter Store and
 * Secrets Manager under the stack's prefixes: its `VariablesPrefix` / `ConnectionsPrefix`
 * outputs with `--stack`, AIRLESS_VARIABLES_PREFIX and AIRLESS_CONNECTIONS_PREFIX over them.
 */
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SSMClient } from '@aws-sdk/client-ssm';
import { AwsSecrets } from '../adapters/aws/secrets-aws.js';
import { DEFAULT_CONNECTIONS_PREFIX, DEFAULT_VARIABLES_PREFIX, FUNCTION_ENV, STACK_OUTPUTS } from '../adapters/aws/stack-contract.js';
import { SecretsFile, secretsDir, type SecretKind } from '../adapters/secrets-local.js';
import { UsageError } from './output.js';

/** What a variables/connections handler reads and writes: the environment (AIRLESS_AWS_ENDPOINT...) and where lines go (the command's io). */
export interface SecretsIo {
  env: Record<string, string | undefined>;
  out: (line: string) => void;
}

export type Backend = { where: 'local'; file: SecretsFile } | { where: 'aws'; aws: AwsSecrets };

/** Keys and ids as the runtime accepts them (secrets.ts). */
export function checkKey(what: string, key: string): string {
  if (!/^[A-Za-z0-9_.\-/]{1,250}$/.test(key)) throw new UsageError(`${what} ${JSON.stringify(key)} is not valid (use 1 to 250 letters, digits, _ - . /)`);
  return key;
}

export async function backendFor(kind: SecretKind, o: { stack?: string; endpoint?: string }, env: Record<string, string | undefined> = process.env): Promise<Backend> {
  const endpoint = o.endpoint ?? (o.stack !== undefined ? env.AIRLESS_AWS_ENDPOINT ?? env.AWS_ENDPOINT_URL : undefined);
  if (o.stack === undefined && o.endpoint === undefined) return { where: 'local', file: new SecretsFile(secretsDir(env), kind) };
  const region = env.AWS_REGION ?? env.AWS_DEFAULT_REGION ?? (endpoint ? 'us-east-1' : undefined);
  const config = {
    ...(region ? { region } : {}),
    ...(endpoint ? { endpoint, credentials: { accessKeyId: env.AWS_ACCESS_KEY_ID ?? 'test', secretAccessKey: env.AWS_SECRET_ACCESS_KEY ?? 'test' } } : {}),
  };
  // The stack says its prefixes (a stack deployed with other ones), and that it exists.
  let outputs: Record<string, string> = {};
  if (o.stack !== undefined) {
    // Loaded only here: every CLI command imports this module, few need CloudFormation.
    const [{ CloudFormationClient }, { stackOutputs }] = await Promise.all([import('@aws-sdk/client-cloudformation'), import('./aws-stack.js')]);
    const cf = new CloudFormationClient(config);
    try {
      outputs = await stackOutputs(cf, o.stack);
    } finally {
      cf.destroy();
    }
  }
  return {
    where: 'aws',
    aws: new AwsSecrets({
      ssm: new SSMClient(config), secretsManager: new SecretsManagerClient(config),
      variablesPrefix: env[FUNCTION_ENV.variablesPrefix] ?? outputs[STACK_OUTPUTS.variablesPrefix] ?? DEFAULT_VARIABLES_PREFIX,
      connectionsPrefix: env[FUNCTION_ENV.connectionsPrefix] ?? outputs[STACK_OUTPUTS.connectionsPrefix] ?? DEFAULT_CONNECTIONS_PREFIX,
    }),
  };
}

export const SECRET_OPTIONS = {
  stack: { type: 'string', value: 'NAME', help: 'the deployed stack: SSM Parameter Store / Secrets Manager instead of the local .airless files' },
  endpoint: { type: 'string', value: 'URL', help: 'talk to a rehearsal or LocalStack at URL (implies a deployed stack)' },
  json: { type: 'boolean', help: 'print JSON (secrets masked)' },
} as const;
