/**
 * The rehearsal's AWS gateway: one HTTP endpoint on 127.0.0.1 that every AWS SDK call of
 * the rehearsed Lambda functions (and of the CLI) reaches through `AWS_ENDPOINT_URL`.
 *
 * For each request it
 * 1. identifies the caller from the SigV4 `Authorization` header's access key id
 *    (signatures are NOT verified: the rehearsal is a single-user local tool);
 * 2. works out the IAM action and resource ARN AWS would evaluate (DynamoDB, SQS, S3,
 *    EventBridge Scheduler);
 * 3. authorizes it with `@cloud-copilot/iam-simulate` against the caller's identity policies
 *    and the resource's resource policy; a denial is answered as AWS answers it, so the SDK
 *    raises `AccessDeniedException` / S3 `AccessDenied`;
 * 4. forwards allowed DynamoDB/SQS/S3 requests unchanged to the local servers, and serves
 *    EventBridge Scheduler, SSM Parameter Store and Secrets Manager in process (params/).
 * Every decision is appended to `decisions`.
 *
 * Modelled as AWS does: the action and resource ARN per request (DynamoDB transactions item by
 * item; batches; Query/Scan on an index ARN; SQS batch calls as their single actions; S3 object,
 * bucket and DeleteObjects keys with s3:prefix/s3:delimiter/s3:max-keys; iam:PassRole with
 * iam:PassedToService on CreateSchedule/UpdateSchedule), explicit deny over allow, resource
 * policies (bucket, queue, topic, key, Lambda permissions) beside identity policies, the
 * caller shown as its STS session (arn:aws:sts::ACCOUNT:assumed-role/ROLE/FUNCTION).
 * Context keys set: aws:SecureTransport=true (the gateway is plain HTTP on 127.0.0.1 but
 * stands for AWS's HTTPS endpoints), aws:PrincipalArn, aws:PrincipalAccount,
 * aws:RequestedRegion, aws:CurrentTime and aws:EpochTime (from `clock`).
 * Not modelled: signatures and session tokens (not verified), permission boundaries, SCPs,
 * session policies, VPC endpoint policies, KMS grants, S3 ACLs and Object Ownership, request
 * context keys other than those above (aws:SourceIp, aws:SourceVpce, dynamodb:LeadingKeys...),
 * and services other than DynamoDB, SQS, S3, Scheduler, SSM and Secrets Manager (answered
 * with a clear 400); of SSM and Secrets Manager only the operations Airless sends.
 *
 * Queue URLs: an SQSClient without an explicit `endpoint` option may send a request to its
 * QueueUrl's host (useQueueUrlAsEndpoint), so the queue URLs the functions see should point
 * at `url` (local-aws-sqs finds a queue by the URL's last segment).
 *
 * @example
 * const gw = await startGateway({
 *   region: 'us-east-1', accountId: '000000000000',
 *   upstream: { dynamodb: ddbUrl, sqs: sqsUrl, s3: s3Url },
 *   resourcePolicies: {}, principals: [{ accessKeyId: 'AKIDWORKER', name: 'Worker',
 *     roleArn: 'arn:aws:iam::000000000000:role/Worker', policies: [{ name: 'p', document }] }],
 *   clock: () => clock.now(),
 * });
 * // worker thread env: AWS_ENDPOINT_URL=gw.url, AWS_ACCESS_KEY_ID=AKIDWORKER, AWS_SECRET_ACCESS_KEY=x
 */
import type { SchedulerEmulator, ScheduleFire } from './scheduler/types.js';
import type { EventBridge } from './eventbridge/bus.js';
import type { JobHooks, JobRunner } from './jobs/index.js';
import type { Faults } from './faults.js';

export type { SchedulerEmulator, ScheduleFire, ScheduleTarget, Schedule, ScheduleInput, DeadLetter, RunDueResult } from './scheduler/types.js';

/** An IAM policy document as it appears in a CloudFormation template (already resolved to strings). */
export interface PolicyDocument {
  Version?: string;
  Id?: string;
  Statement: PolicyStatement | PolicyStatement[];
}

export interface PolicyStatement {
  Sid?: string;
  Effect: 'Allow' | 'Deny';
  Principal?: unknown;
  NotPrincipal?: unknown;
  Action?: string | string[];
  NotAction?: string | string[];
  Resource?: string | string[];
  NotResource?: string | string[];
  Condition?: Record<string, Record<string, unknown>>;
}

/** A caller: one Lambda function's role (or the CLI user), known by the access key id its container is given. */
export interface Principal {
  accessKeyId: string;
  /** The function's logical id, or 'cli'. */
  name: string;
  roleArn: string;
  policies: { name: string; document: PolicyDocument }[];
  /**
   * The role's trust policy (AssumeRolePolicyDocument). When given, a schedule fire with this
   * role is first checked as `scheduler.amazonaws.com` calling sts:AssumeRole on it.
   */
  trustPolicy?: PolicyDocument;
}

export interface GatewayOptions {
  region: string;
  accountId: string;
  /** Base URLs of the local servers, e.g. http://127.0.0.1:8000. */
  upstream: { dynamodb: string; sqs: string; s3: string };
  /** Resource policies by resource ARN: bucket (arn:aws:s3:::NAME), queue, topic, key policies. */
  resourcePolicies: Record<string, PolicyDocument>;
  principals: Principal[];
  /**
   * Requests signed with an access key id that no principal has are treated as the CLI user
   * with allow-all (AdministratorAccess-like) when true (the default); when false they are
   * rejected as AWS rejects an unknown key.
   */
  cliAllowAll?: boolean;
  /**
   * Access key id the gateway puts in the forwarded requests' credential scope. DynamoDB Local
   * keeps one database per access key (without -sharedDb) and s3rver knows only S3RVER, so
   * every caller's requests are forwarded under this one key; create the tables, queues and
   * buckets with it too. Signatures are not re-computed: none of the local servers checks them.
   * @default 'S3RVER' (what lib/adapters/aws/clients.ts uses for local endpoints)
   */
  upstreamAccessKeyId?: string;
  /** Milliseconds since the epoch; the rehearsal's (possibly warped) clock. */
  clock: () => number;
  /** Called by `gateway.scheduler.runDue()` for each due fire, after the target role was authorized. */
  onScheduleFire?: (fire: ScheduleFire) => Promise<void>;
}

/** One authorization decision, in call order. */
export interface Decision {
  at: number;
  /** Principal name (function logical id, 'cli', or the scheduler role ARN). */
  principal: string;
  action: string;
  resource: string;
  allowed: boolean;
  /** 'ExplicitlyDenied', 'ImplicitlyDenied', 'UnknownAccessKey' ... when denied. */
  reason?: string;
  /** Sids (or `policyName#index` when a statement has no Sid) of the statements that allowed it. */
  matchedStatements?: string[];
  /** The request context used, so a decision can be replayed with `evaluate`. */
  context?: Record<string, string | string[]>;
}

export interface Gateway {
  url: string;
  decisions: Decision[];
  scheduler: SchedulerEmulator;
  /** The EventBridge emulator: buses, rules, PutEvents, AWS services' own events (eventbridge/). */
  events: EventBridge;
  /** The simulated jobs of ECS, Batch, Glue, Step Functions, Athena, EMR Serverless (jobs/). */
  jobs: JobRunner;
  /** Faults a scenario injects into allowed calls (faults.ts): a 500, or an S3 object gone. */
  faults: Faults;
  /** Where Athena writes results and how Lambda's Invoke runs a function: the rehearsal sets them. */
  setJobHooks(hooks: JobHooks): void;
  /** Authorize (and record) one action by a principal (or a principal name/role ARN). */
  authorize(principal: Principal | string, action: string, resource: string, context?: Record<string, string | string[]>): Promise<boolean>;
  /** Evaluate without recording, with any policy set: used to replay decisions against a policy minus one statement. */
  evaluate: typeof evaluate;
  close(): Promise<void>;
}

export { startGateway } from './server.js';
export { EventBridge, DeliveryError } from './eventbridge/bus.js';
export type { BusEvent, BusRule, Delivery, EventDeadLetter, EventSink, RuleTarget } from './eventbridge/types.js';
export { JobApiError } from './jobs/api.js';
export { Faults, type Fault } from './faults.js';
export { JobRunner, type JobBehaviour, type JobHooks, type JobSelector, type JobService, type LambdaInvoker, type SimJob, type JobResources } from './jobs/index.js';
export { evaluate, type EvaluateInput, type EvaluateResult } from './authorize.js';
import { evaluate } from './authorize.js';
