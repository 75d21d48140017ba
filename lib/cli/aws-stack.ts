/**
 * Finding a deployed stack from the CLI: SDK clients from the usual AWS environment
 * (or one endpoint for LocalStack), the stack's outputs (read into the functions'
 * environment by the stack contract, lib/adapters/aws/stack-contract.ts), and AWS errors
 * explained in one line with a hint.
 */
import { CloudFormationClient, DescribeStacksCommand, ListStackResourcesCommand } from '@aws-sdk/client-cloudformation';
import { CloudWatchLogsClient } from '@aws-sdk/client-cloudwatch-logs';
import { makeClients, type AwsClients } from '../adapters/aws/clients.js';
import { AwsConfigError, STACK_OUTPUTS } from '../adapters/aws/stack-contract.js';
import { AirlessError } from '../engine/index.js';

// The stack contract's names and readers, where the CLI has always exported them.
export { AwsConfigError, envFromOutputs, queueArnFromUrl, STACK_OUTPUTS } from '../adapters/aws/stack-contract.js';

export const DEFAULT_STACK = 'Airless';

export interface CliClients extends AwsClients {
  cloudformation: CloudFormationClient;
  logs: CloudWatchLogsClient;
  region?: string;
}

/**
 * SDK clients for the CLI. With `AIRLESS_AWS_ENDPOINT` (or `AWS_ENDPOINT_URL`) set, every
 * client talks to that endpoint with path-style S3 (LocalStack); otherwise region and
 * credentials come from the default provider chain.
 *
 * @example
 * const clients = cliClients(process.env);
 */
export function cliClients(env: Record<string, string | undefined>): CliClients {
  const endpoint = env.AIRLESS_AWS_ENDPOINT ?? env.AWS_ENDPOINT_URL;
  const region = env.AWS_REGION ?? env.AWS_DEFAULT_REGION;
  if (!endpoint) {
    return { ...makeClients(region ? { region } : {}), cloudformation: new CloudFormationClient(region ? { region } : {}), logs: new CloudWatchLogsClient(region ? { region } : {}), region };
  }
  const credentials = {
    accessKeyId: env.AWS_ACCESS_KEY_ID ?? 'test',
    secretAccessKey: env.AWS_SECRET_ACCESS_KEY ?? 'test',
    ...(env.AWS_SESSION_TOKEN ? { sessionToken: env.AWS_SESSION_TOKEN } : {}),
  };
  const r = region ?? 'us-east-1';
  const base = { region: r, credentials, endpoint };
  return {
    ...makeClients({ region: r, credentials, endpoints: { dynamodb: endpoint, sqs: endpoint, s3: endpoint, scheduler: endpoint, ssm: endpoint, secretsmanager: endpoint } }),
    cloudformation: new CloudFormationClient(base),
    logs: new CloudWatchLogsClient(base),
    region: r,
  };
}

/**
 * The outputs of a stack, by key.
 *
 * @example
 * const outputs = await stackOutputs(clients.cloudformation, 'Airless');
 */
export async function stackOutputs(cf: CloudFormationClient, stackName: string): Promise<Record<string, string>> {
  const res = await aws(`CloudFormation DescribeStacks ${stackName}`, () => cf.send(new DescribeStacksCommand({ StackName: stackName })), stackName);
  const stack = res.Stacks?.[0];
  if (!stack) throw new AwsConfigError(`stack ${stackName} not found; deploy it with \`npx cdk deploy\` or pass --stack NAME`);
  if (/ROLLBACK_COMPLETE$|^DELETE_/.test(stack.StackStatus ?? '')) {
    throw new AwsConfigError(`stack ${stackName} is ${stack.StackStatus}; redeploy it with \`npx cdk deploy\``);
  }
  return Object.fromEntries((stack.Outputs ?? []).filter((o) => o.OutputKey && o.OutputValue).map((o) => [o.OutputKey!, o.OutputValue!]));
}

/**
 * The worker's log group: the `WorkerLogGroupName` output, else the stack's
 * `AWS::Logs::LogGroup` whose logical id is the worker's (`...FunctionsWorkerLogs<hash>`).
 */
export async function workerLogGroup(cf: CloudFormationClient, stackName: string, outputs: Record<string, string>): Promise<string> {
  const named = outputs[STACK_OUTPUTS.workerLogGroup] ?? (await logGroupsFromResources(cf, stackName)).Worker;
  if (named) return named;
  throw new AwsConfigError(`stack ${stackName} has no worker log group; redeploy it with \`npx cdk deploy\``);
}

/**
 * The log groups of the worker, the poker and the tick (`airless logs` reads all three: a
 * sensor's lines are written by the poker and the tick). Outputs first; a stack deployed
 * before they existed is searched once for the rest.
 *
 * @example
 * const groups = await functionLogGroups(cf, 'Airless', outputs); // { worker, poker, tick }
 */
export async function functionLogGroups(cf: CloudFormationClient, stackName: string, outputs: Record<string, string>): Promise<{ worker: string; poker?: string; tick?: string }> {
  let worker: string | undefined = outputs[STACK_OUTPUTS.workerLogGroup];
  let poker: string | undefined = outputs[STACK_OUTPUTS.pokerLogGroup];
  let tick: string | undefined = outputs[STACK_OUTPUTS.tickLogGroup];
  if (!worker || !poker || !tick) {
    const found = await logGroupsFromResources(cf, stackName);
    worker ??= found.Worker;
    poker ??= found.Poker;
    tick ??= found.Tick;
  }
  if (!worker) throw new AwsConfigError(`stack ${stackName} has no worker log group; redeploy it with \`npx cdk deploy\``);
  return { worker, ...(poker ? { poker } : {}), ...(tick ? { tick } : {}) };
}

/** The functions' log groups among the stack's resources, by logical id (`...Functions<Name>Logs<hash>`). */
async function logGroupsFromResources(cf: CloudFormationClient, stackName: string): Promise<Partial<Record<'Worker' | 'Poker' | 'Tick', string>>> {
  const found: Partial<Record<'Worker' | 'Poker' | 'Tick', string>> = {};
  let token: string | undefined;
  do {
    const page = await aws(`CloudFormation ListStackResources ${stackName}`, () =>
      cf.send(new ListStackResourcesCommand({ StackName: stackName, NextToken: token })), stackName);
    for (const r of page.StackResourceSummaries ?? []) {
      const m = r.ResourceType === 'AWS::Logs::LogGroup' ? /(Worker|Poker|Tick)Logs[0-9A-F]{8}$/.exec(r.LogicalResourceId ?? '') : null;
      if (m && r.PhysicalResourceId) found[m[1] as 'Worker' | 'Poker' | 'Tick'] ??= r.PhysicalResourceId;
    }
    token = page.NextToken;
  } while (token);
  return found;
}

interface SdkError {
  name?: string;
  Code?: string;
  message?: string;
  code?: string;
  $metadata?: { httpStatusCode?: number };
}

/**
 * Explains an SDK error in one line with a hint; config problems (credentials, region,
 * missing stack, access) become {@link AwsConfigError} (exit 2), the rest an
 * {@link AirlessError} (exit 1). The original error is kept as `cause`.
 *
 * @example
 * try { await cf.send(cmd); } catch (e) { throw explainAwsError('CloudFormation DescribeStacks', e, 'Airless'); }
 */
export function explainAwsError(what: string, err: unknown, stackName?: string): AirlessError {
  if (err instanceof AirlessError) return err;
  const e = (typeof err === 'object' && err !== null ? err : {}) as SdkError;
  const name = e.name ?? e.Code ?? 'Error';
  const msg = (e.message ?? String(err)).split('\n')[0];
  const config = (text: string) => new AwsConfigError(text, { cause: err });
  if (name === 'CredentialsProviderError' || /Could not load credentials|credential/i.test(msg) && !/expired/i.test(msg)) {
    return config(`${what}: no AWS credentials found; set AWS_PROFILE (and run \`aws sso login\`) or AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY`);
  }
  if (/ExpiredToken|TokenRefreshRequired|RequestExpired/.test(name) || /expired/i.test(msg)) {
    return config(`${what}: your AWS session has expired; refresh it (\`aws sso login\` or new temporary credentials) and try again`);
  }
  if (/Region is missing|region/i.test(msg) && /missing|not set|invalid/i.test(msg)) {
    return config(`${what}: no AWS region configured; set AWS_REGION (or a region in your AWS profile)`);
  }
  if (/InvalidClientTokenId|UnrecognizedClient|SignatureDoesNotMatch|InvalidSignature/.test(name)) {
    return config(`${what}: AWS rejected your credentials (${name}); check AWS_PROFILE / AWS_ACCESS_KEY_ID and the account`);
  }
  if (/AccessDenied|AccessDeniedException|UnauthorizedOperation|Forbidden/.test(name) || e.$metadata?.httpStatusCode === 403) {
    return config(`${what}: access denied (${msg}); your identity needs this permission on the stack's resources`);
  }
  if (name === 'ValidationError' && /does not exist/.test(msg)) {
    return config(`stack ${stackName ?? ''} does not exist in this account and region; deploy it with \`npx cdk deploy\`, or pass --stack NAME / set AWS_REGION`.replace('stack  ', 'stack '));
  }
  if (/ECONNREFUSED|ENOTFOUND|EAI_AGAIN|getaddrinfo/.test(`${name} ${msg} ${e.code ?? ''}`)) {
    return new AirlessError(`${what}: cannot reach AWS (${msg}); check the network, or AIRLESS_AWS_ENDPOINT for LocalStack`, { cause: err, retryable: true });
  }
  return new AirlessError(`${what} failed: ${name}: ${msg}`, { cause: err });
}

/** Runs one SDK call, explaining its error. */
export async function aws<T>(what: string, call: () => Promise<T>, stackName?: string): Promise<T> {
  try {
    return await call();
  } catch (e) {
    throw explainAwsError(what, e, stackName);
  }
}
