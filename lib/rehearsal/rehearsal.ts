/**
 * `airless rehearse`: the stack `cdk synth` writes, brought up on this machine. Tables,
 * queues and buckets from the template on local servers; each Lambda function from its
 * asset in simulated containers; every AWS call through the gateway, which authorizes it
 * against the caller's role; the event source mapping, S3 notification and schedules
 * fired as declared, on a clock that `timeWarp` jumps when nothing is in flight.
 */
import { cpSync, mkdirSync, rmSync, symlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join, resolve } from 'node:path';
import { makeClients, type AwsClients } from '../adapters/aws/clients.js';
import { AirlessError } from '../engine/index.js';
import { RehearsalClock } from './clock.js';
import { startFront } from './front.js';
import { startGateway, type Decision, type Gateway } from './gateway/index.js';
import { RehearsalFunction } from './lambda.js';
import { LogSink } from './logs.js';
import { collectPolicies, type RolePolicies } from './policies.js';
import { createResources, type CreatedResources } from './resources.js';
import { nextScheduleFire, scheduleFromTemplate } from './schedules.js';
import { startServers, type LocalServers } from './servers.js';
import { StackTemplate } from './template.js';
import { AsyncInvoker, headWhenStored, matchesNotification, s3Event, sendDeadLetter, SqsPoller, throttled, type BucketNotification } from './triggers.js';
import { buildFunctions } from './functions.js';
import { packageInfo } from '../package-info.js';
import { airlessStack, synth, type SynthOptions } from './cdk-app.js';
import { wireEventsAndJobs } from './eventbridge.js';

export { synth } from './cdk-app.js';

/**
 * The root of the Airless package (the repository, or `node_modules/airless` when
 * installed): the scenarios' DAG folders (`examples/dags`, `lib/rehearsal/scenarios/dags`)
 * are found here, and the package ships them.
 */
export const PROJECT_ROOT = `${packageInfo().root}/`;

export interface RehearsalOptions extends SynthOptions {
  /** Folder for state: logs, s3rver data, container tmp dirs, synthesized template. */
  stateDir: string;
  /** Reuse this `cdk.out` instead of synthesizing. */
  cdkOut?: string;
  /** The stack to rehearse (stack name or construct path). @default the app's one Airless stack */
  stackName?: string;
  /** Jump the clock to the next due event when nothing is in flight. */
  timeWarp?: boolean;
  /** Virtual start time (ms); default now. */
  startAt?: number;
  /** Use this DynamoDB Local instead of starting one (tests share the globalSetup one). */
  dynamodbEndpoint?: string;
  /** Containers per function at most; further invocations wait their turn. @default 2 */
  maxContainers?: number;
  /** Each function log line, as it is written (`--follow`). */
  onLogLine?: (functionName: string, line: string) => void;
}

/** A running rehearsal. */
export interface Rehearsal {
  template: StackTemplate;
  clock: RehearsalClock;
  gateway: Gateway;
  /** What the CLI talks to (AIRLESS_AWS_ENDPOINT): the gateway plus DescribeStacks and Logs. */
  endpoint: string;
  functions: Map<string, RehearsalFunction>;
  outputs: Record<string, string>;
  logs: LogSink;
  roles: RolePolicies;
  resources: CreatedResources;
  /** Clients on the local servers directly (no authorization): for scenario checks. */
  direct: AwsClients;
  /** Denied decisions so far. */
  accessDenied(): Decision[];
  /** True when nothing runs or waits to run now. */
  idle(): boolean;
  /** Resolves when `done()` is true, driving time when warping; rejects after `timeoutMs` of real time. */
  until(done: () => Promise<boolean> | boolean, what: string, timeoutMs?: number): Promise<void>;
  errors: string[];
  /**
   * Makes the Lambda service refuse invocations of the functions whose logical id contains
   * `fragment` until `untilMs` (rehearsal clock), as a throttle (TooManyRequestsException):
   * the Scheduler retries per the schedule's RetryPolicy, then dead-letters. Returns the ids.
   */
  refuseInvocations(fragment: string, untilMs: number): string[];
  /** Delivers the S3 notification of a key (again), as S3's at-least-once delivery may, even after the object is gone. Returns deliveries. */
  redeliverNotification(bucket: string, key: string): Promise<number>;
  stop(): Promise<void>;
}

/**
 * @example
 * const r = await startRehearsal({ stateDir: '.airless/rehearsal', timeWarp: true });
 * console.log(r.endpoint);
 * await r.stop();
 */
export async function startRehearsal(o: RehearsalOptions): Promise<Rehearsal> {
  const stateDir = resolve(o.stateDir);
  rmSync(join(stateDir, 's3'), { recursive: true, force: true });
  rmSync(join(stateDir, 'tmp'), { recursive: true, force: true });
  mkdirSync(stateDir, { recursive: true });
  const cdkOut = o.cdkOut ? resolve(o.cdkOut) : await synth(join(stateDir, 'cdk.out'), {}, o);
  const template = airlessStack(cdkOut, o.stackName);
  const clock = new RehearsalClock(o.startAt);
  const errors: string[] = [];
  const onError = (e: unknown) => void errors.push(String((e as Error)?.message ?? e));
  const stops: (() => Promise<void>)[] = [];
  try {
    const servers: LocalServers = await startServers({ clock, dir: stateDir, dynamodbEndpoint: o.dynamodbEndpoint });
    stops.push(servers.stop);
    // TTL only when the rehearsal's clock is not behind DynamoDB Local's (see createResources).
    const resources = await createResources(template, servers, { ttl: clock.now() >= Date.now() - 60_000 });
    const roles = collectPolicies(template);
    let fire: (f: Parameters<NonNullable<Parameters<typeof startGateway>[0]['onScheduleFire']>>[0]) => Promise<void> = async () => {};
    const gateway = await startGateway({
      region: 'us-east-1', accountId: '000000000000',
      upstream: { dynamodb: servers.dynamodb, sqs: servers.sqs, s3: servers.s3 },
      resourcePolicies: roles.resourcePolicies,
      principals: roles.principals,
      clock: () => clock.now(),
      onScheduleFire: (f) => fire(f),
    });
    stops.push(() => gateway.close());
    template.setContext({ queueEndpoint: gateway.url });

    const logs = new LogSink(join(stateDir, 'logs'), clock, o.onLogLine);
    const codeRoot = prepareCodeRoot(stateDir);
    const specs = buildFunctions(template, { cdkOut: template.assetDir, codeRoot, gatewayUrl: gateway.url, principals: roles.principals });
    const functions = new Map<string, RehearsalFunction>();
    for (const spec of specs) {
      functions.set(spec.logicalId, new RehearsalFunction(spec, { clock, tmpRoot: join(stateDir, 'tmp'), onLogLine: (fn, line) => logs.write(fn, line), maxContainers: o.maxContainers ?? 2 }));
    }
    stops.push(async () => void (await Promise.all([...functions.values()].map((f) => f.stop()))));
    // The Lambda service writes each function's logs with the function's role.
    for (const f of functions.values()) {
      const stream = `arn:aws:logs:us-east-1:000000000000:log-group:${f.spec.logGroupName}:log-stream:rehearsal`;
      for (const action of ['logs:CreateLogStream', 'logs:PutLogEvents']) await gateway.authorize(f.spec.logicalId, action, stream);
    }
    const byArn = new Map([...functions.values()].map((f) => [f.spec.arn, f]));
    const direct = makeClients({ endpoints: { dynamodb: servers.dynamodb, sqs: servers.sqs, s3: servers.s3, scheduler: gateway.url, ssm: gateway.url, secretsmanager: gateway.url } });
    const asyncInvoker = new AsyncInvoker(clock);

    // Schedules: groups and the system schedules of the template; the rest the functions create.
    for (const [id] of template.ofType('AWS::Scheduler::ScheduleGroup')) gateway.scheduler.createGroup(template.physicalName(id));
    for (const [id] of template.ofType('AWS::Scheduler::Schedule')) gateway.scheduler.putSchedule(scheduleFromTemplate(template, id));
    let deliveries = 0;
    const refused = new Map<string, number>();
    gateway.scheduler.setDeadLetterSink((d) => sendDeadLetter(direct.sqs, resources, d));
    // EventBridge rules and buses, S3's EventBridge notifications, Lambda destinations, simulated jobs.
    const events = wireEventsAndJobs({ template, gateway, functions, asyncInvoker, direct, resources, resourcePolicies: roles.resourcePolicies, refused, clock: () => clock.now(), onError });
    fire = async (f) => {
      deliveries++;
      try {
        const target = byArn.get(f.target.Arn);
        if (target && (refused.get(target.spec.logicalId) ?? 0) > clock.now()) throw throttled(target.spec.name);
        if (target) {
          asyncInvoker.enqueue(target, JSON.parse(f.target.Input ?? '{}'));
          return;
        }
        const queue = resources.queues.find((q) => q.arn === f.target.Arn);
        if (!queue) throw new AirlessError(`schedule ${f.group}/${f.name} targets ${f.target.Arn}, which the rehearsal does not have`);
        const { SendMessageCommand } = await import('@aws-sdk/client-sqs');
        await direct.sqs.send(new SendMessageCommand({ QueueUrl: queue.localUrl, MessageBody: f.target.Input ?? '' }));
      } finally {
        deliveries--;
      }
    };

    // Event source mappings.
    const pollers: SqsPoller[] = [];
    for (const [id] of template.ofType('AWS::Lambda::EventSourceMapping')) {
      const p = template.props(id) as Record<string, any>;
      const fn = [...functions.values()].find((f) => f.spec.name === p.FunctionName || f.spec.arn === p.FunctionName);
      const queue = resources.queues.find((q) => q.arn === p.EventSourceArn);
      if (!fn || !queue || p.Enabled === false) continue;
      // What Lambda's poller calls with the function's role (AWS's AWSLambdaSQSQueueExecutionRole):
      // a failed item is left to return after the visibility timeout, never re-timed.
      for (const action of ['sqs:ReceiveMessage', 'sqs:DeleteMessage', 'sqs:GetQueueAttributes']) {
        await gateway.authorize(fn.spec.logicalId, action, queue.arn);
      }
      const poller = new SqsPoller({
        function: fn, queueArn: queue.arn, localQueueUrl: queue.localUrl,
        batchSize: Number(p.BatchSize ?? 10), batchingWindowMs: Number(p.MaximumBatchingWindowInSeconds ?? 0) * 1000,
        maximumConcurrency: Number(p.ScalingConfig?.MaximumConcurrency ?? 1000),
        reportBatchItemFailures: (p.FunctionResponseTypes ?? []).includes('ReportBatchItemFailures'),
      }, direct.sqs, onError);
      poller.start();
      pollers.push(poller);
    }
    stops.unshift(async () => void (await Promise.all(pollers.map((p) => p.stop()))));

    // S3 notifications, seen through the gateway's allowed PutObject decisions.
    const notifications: BucketNotification[] = [];
    for (const [id] of template.ofType('Custom::S3BucketNotifications')) {
      const p = template.props(id) as Record<string, any>;
      for (const c of p.NotificationConfiguration?.LambdaFunctionConfigurations ?? []) {
        const fn = byArn.get(c.LambdaFunctionArn);
        if (!fn) continue;
        const rules = (c.Filter?.Key?.FilterRules ?? []) as { Name: string; Value: string }[];
        notifications.push({
          bucket: String(p.BucketName), function: fn, events: c.Events,
          prefix: rules.find((r) => r.Name.toLowerCase() === 'prefix')?.Value, suffix: rules.find((r) => r.Name.toLowerCase() === 'suffix')?.Value,
        });
      }
    }
    const notified = new Map<string, { size: number; eTag: string }>();
    const notify = async (n: BucketNotification, bucket: string, key: string, head: { size: number; eTag: string }) => {
      const allowed = await roles.authorizeService(gateway, 's3.amazonaws.com', 'lambda:InvokeFunction', n.function.spec.arn, { 'aws:SourceArn': `arn:aws:s3:::${bucket}`, 'aws:SourceAccount': '000000000000' });
      if (allowed) asyncInvoker.enqueue(n.function, s3Event(bucket, key, head.size, head.eTag, clock.now()));
      return allowed;
    };
    let decisionCursor = 0;
    let pendingNotifications = 0;
    const scanPuts = () => {
      const ds = gateway.decisions;
      for (; decisionCursor < ds.length; decisionCursor++) {
        const d = ds[decisionCursor];
        if (!d.allowed || d.action !== 's3:PutObject') continue;
        const m = /^arn:aws:s3:::([^/]+)\/(.+)$/.exec(d.resource);
        if (!m) continue;
        for (const n of notifications.filter((x) => matchesNotification(x, m[1], m[2]))) {
          pendingNotifications++;
          void (async () => {
            const head = await headWhenStored(direct.s3, m[1], m[2]);
            if (!head) return;
            notified.set(`${m[1]}/${m[2]}`, head);
            await notify(n, m[1], m[2], head);
          })().catch(onError).finally(() => pendingNotifications--);
        }
      }
    };

    // CloudWatch alarms → SNS: checked once against the topic policy, as a resource-policy check.
    for (const [id] of template.ofType('AWS::CloudWatch::Alarm')) {
      const p = template.props(id) as Record<string, any>;
      for (const topic of (p.AlarmActions ?? []) as string[]) {
        if (!topic.startsWith('arn:aws:sns:')) continue;
        await roles.authorizeService(gateway, 'cloudwatch.amazonaws.com', 'sns:Publish', topic, { 'aws:SourceArn': template.getAtt(id, 'Arn'), 'aws:SourceAccount': '000000000000' });
        break;
      }
    }

    const idle = () => [...functions.values()].every((f) => f.inFlight === 0) && pollers.every((p) => p.idle && p.inFlight === 0) && events.idle()
      && asyncInvoker.pending === 0 && pendingNotifications === 0 && deliveries === 0 && decisionCursor === gateway.decisions.length;
    let idleSince = 0;
    let stepping = false;
    const step = async () => {
      if (stepping) return;
      stepping = true;
      try {
        scanPuts();
        await gateway.scheduler.runDue(clock.now());
        await events.step(clock.now());
        asyncInvoker.pump();
        if (!o.timeWarp) return;
        if (!idle()) {
          idleSince = 0;
          return;
        }
        if (idleSince === 0) idleSince = performance.now();
        if (performance.now() - idleSince < 60) return;
        // On a loaded machine a poller may not have looked since a message became visible.
        if (!pollers.every((p) => p.emptyAt >= idleSince)) return;
        const candidates = [await servers.sqsNextDue(), asyncInvoker.nextDue(), nextScheduleFire(gateway.scheduler.listSchedules(), clock.now()), gateway.scheduler.nextRetry(), events.nextDue()]
          .filter((x): x is number => x !== null && x !== undefined);
        if (candidates.length === 0) return;
        clock.jumpTo(Math.max(Math.min(...candidates), clock.now() + 1));
        idleSince = 0;
      } catch (e) {
        onError(e);
      } finally {
        stepping = false;
      }
    };
    const timer = setInterval(() => void step(), 20);
    stops.unshift(async () => clearInterval(timer));

    const outputs = template.outputs();
    const front = await startFront({ gatewayUrl: gateway.url, stackName: template.stackName, outputs, logs });
    stops.unshift(() => front.close());

    return {
      template, clock, gateway, endpoint: front.url, functions, outputs, logs, roles, resources, direct, errors,
      accessDenied: () => gateway.decisions.filter((d) => !d.allowed),
      refuseInvocations: (fragment, untilMs) => {
        const ids = [...functions.keys()].filter((id) => id.includes(fragment));
        if (ids.length === 0) throw new AirlessError(`refuseInvocations: no function's logical id contains "${fragment}"`);
        for (const id of ids) refused.set(id, untilMs);
        return ids;
      },
      redeliverNotification: async (bucket, key) => {
        // A key never notified (its upload's notification lost, the object gone) gets an empty one.
        const head = notified.get(`${bucket}/${key}`) ?? { size: 0, eTag: '' };
        let n = 0;
        for (const x of notifications.filter((y) => matchesNotification(y, bucket, key))) if (await notify(x, bucket, key, head)) n++;
        return n;
      },
      idle,
      until: async (done, what, timeoutMs = 60_000) => {
        const started = performance.now();
        while (!(await done())) {
          if (performance.now() - started > timeoutMs) {
            throw new AirlessError(`rehearsal: timed out after ${Math.round(timeoutMs / 1000)} s waiting for ${what} (virtual time ${new Date(clock.now()).toISOString()})`);
          }
          await new Promise((r) => setTimeout(r, 25));
        }
      },
      stop: async () => {
        clearInterval(timer);
        for (const c of Object.values(direct)) c.destroy();
        // One stuck server (a keep-alive socket) must not keep the rest, or the process, up.
        for (const s of stops) await withTimeout(s(), 5_000).catch(onError);
      },
    };
  } catch (e) {
    for (const s of stops.reverse()) await s().catch(() => {});
    throw e;
  }
}

function withTimeout(p: Promise<unknown>, ms: number): Promise<unknown> {
  let t: NodeJS.Timeout | undefined;
  return Promise.race([p, new Promise((resolve) => { t = setTimeout(resolve, ms); t.unref(); })]).finally(() => clearTimeout(t));
}

/**
 * Containers import their asset from here; `node_modules/@aws-sdk` links to the SDK
 * Airless itself resolves (in the repository its own, installed wherever npm put it,
 * usually the project's hoisted copy), as Lambda's Node runtime provides the SDK v3 and
 * nothing else.
 */
function prepareCodeRoot(stateDir: string): string {
  const root = join(stateDir, 'code');
  rmSync(root, { recursive: true, force: true });
  mkdirSync(join(root, 'node_modules'), { recursive: true });
  const sdk = awsSdkScope();
  if (sdk) symlinkSync(sdk, join(root, 'node_modules', '@aws-sdk'), 'dir');
  return root;
}

/** The `node_modules/@aws-sdk` folder that holds the SDK clients Airless depends on. */
function awsSdkScope(): string | undefined {
  let dir: string;
  try {
    dir = dirname(createRequire(import.meta.url).resolve('@aws-sdk/client-dynamodb'));
  } catch {
    return undefined;
  }
  while (basename(dir) !== '@aws-sdk') {
    const up = dirname(dir);
    if (up === dir) return undefined;
    dir = up;
  }
  return dir;
}

export function copyAsset(from: string, to: string): void {
  cpSync(from, to, { recursive: true });
}
