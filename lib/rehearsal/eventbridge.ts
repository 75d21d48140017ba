/**
 * EventBridge and the job services, wired into a running rehearsal: the template's buses (and
 * their policies) and rules go into the gateway's emulator; deliveries reach the rehearsal's
 * functions (an asynchronous invoke, as EventBridge invokes) and queues; S3 buckets with
 * EventBridge notifications on publish "Object Created" / "Object Deleted" to the default bus
 * after each allowed write; a function's EventInvokeConfig destinations receive its
 * asynchronous results as the Lambda service sends them (with the function's role); Lambda's
 * Invoke API starts functions; Athena writes results to the rehearsal's S3.
 */
import { randomUUID } from 'node:crypto';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import type { AwsClients } from '../adapters/aws/clients.js';
import { DeliveryError, JobApiError, type Delivery, type Gateway, type PolicyDocument } from './gateway/index.js';
import { loadJobResources } from './jobs.js';
import type { InvokeResult, RehearsalFunction } from './lambda.js';
import type { CreatedResources } from './resources.js';
import { ACCOUNT_ID, type StackTemplate } from './template.js';
import { headWhenStored, throttled, type AsyncInvoker } from './triggers.js';

export interface EventWiring {
  /** Runs due job steps and deliveries, and publishes S3's events for new writes. */
  step(now: number): Promise<void>;
  /** Nothing due or running. */
  idle(): boolean;
  /** The next job step or delivery retry, or undefined. */
  nextDue(): number | undefined;
}

export interface EventWiringDeps {
  template: StackTemplate;
  gateway: Gateway;
  functions: Map<string, RehearsalFunction>;
  asyncInvoker: AsyncInvoker;
  /** Clients on the local servers, unauthorized (the services' own deliveries were authorized first). */
  direct: AwsClients;
  resources: CreatedResources;
  /** The gateway's resource policies by ARN: bus policies are added. */
  resourcePolicies: Record<string, PolicyDocument>;
  /** Functions the Lambda service refuses until a time (`refuseInvocations`). */
  refused: Map<string, number>;
  clock: () => number;
  onError: (e: unknown) => void;
}

/**
 * @example
 * const events = wireEventsAndJobs({ template, gateway, functions, asyncInvoker, direct, resources, resourcePolicies, refused, clock, onError });
 * await events.step(clock.now());
 */
export function wireEventsAndJobs(d: EventWiringDeps): EventWiring {
  const { template: t, gateway, direct } = d;
  const eb = gateway.events;
  const fns = [...d.functions.values()];
  const fnByArn = (arn: string) => fns.find((f) => f.spec.arn === arn || arn.startsWith(`${f.spec.arn}:`));

  for (const [id] of t.ofType('AWS::Events::EventBus')) {
    eb.createBus(t.physicalName(id));
    const policy = (t.props(id) as { Policy?: PolicyDocument }).Policy;
    if (policy) addPolicy(d.resourcePolicies, t.getAtt(id, 'Arn'), policy);
  }
  for (const [id] of t.ofType('AWS::Events::EventBusPolicy')) {
    const p = t.props(id) as { EventBusName?: string; Statement?: object };
    if (p.Statement) addPolicy(d.resourcePolicies, eb.busArn(p.EventBusName ?? 'default'), { Version: '2012-10-17', Statement: [p.Statement as never] });
  }
  for (const [id] of t.ofType('AWS::Events::Rule')) {
    const p = t.props(id) as Record<string, any>;
    // Scheduled rules: Airless schedules with EventBridge Scheduler; the rehearsal does not run these.
    if (p.EventPattern === undefined) continue;
    eb.putRule({ Name: t.physicalName(id), EventBusName: p.EventBusName, EventPattern: typeof p.EventPattern === 'string' ? JSON.parse(p.EventPattern) : p.EventPattern, State: p.State, Targets: p.Targets });
  }
  loadJobResources(t, gateway.jobs.resources);

  eb.setSink({
    deliver: (x) => deliver(d, x, fnByArn),
    deadLetter: (l) => sendToQueue(d, l.queueArn, l.body, l.attributes),
  });
  gateway.setJobHooks({
    writeObject: async (bucket, key, body) => void (await direct.s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: body }))),
    lambda: {
      arnOf: (name) => fns.find((f) => [f.spec.name, f.spec.arn].includes(name.replace(/:(\$LATEST|\d+)$/, '')) || name.endsWith(`:function:${f.spec.name}`))?.spec.arn,
      invoke: async (arn, payload, type) => {
        const fn = fnByArn(arn)!;
        if ((d.refused.get(fn.spec.logicalId) ?? 0) > d.clock()) throw new JobApiError('TooManyRequestsException', 'Rate Exceeded.', 429);
        if (type === 'Event') {
          const requestId = randomUUID();
          d.asyncInvoker.enqueue(fn, payload, { requestId });
          return { requestId };
        }
        const r = await fn.invoke(payload);
        return r.ok ? { result: r.result } : { error: r.error! };
      },
    },
  });
  d.asyncInvoker.onFinish = (fn, event, r, attempts, requestId) => void destinations(d, fn, event, r, attempts, requestId).catch(d.onError);

  const s3 = s3Events(d);
  let unsupported = 0;
  return {
    async step(now) {
      s3.scan();
      await gateway.jobs.runDue(now);
      await eb.runDue(now);
      // A target the rehearsal cannot deliver to is a gap in what it proves: say so once.
      for (const u of [...eb.unsupported].slice(unsupported)) d.onError(new Error(`EventBridge target not rehearsed: ${u}`));
      unsupported = eb.unsupported.size;
    },
    idle: () => gateway.jobs.pending === 0 && eb.pending === 0 && s3.pending() === 0,
    nextDue: () => [gateway.jobs.nextDue(), eb.nextDue()].filter((x): x is number => x !== undefined).sort((a, b) => a - b)[0],
  };
}

/** A rule's delivery to its target: a function invoked asynchronously, or a message on a queue. */
async function deliver(d: EventWiringDeps, x: Delivery, fnByArn: (arn: string) => RehearsalFunction | undefined): Promise<void | { done: Promise<unknown> }> {
  const service = x.target.Arn.split(':')[2];
  if (service === 'sqs') return sendToQueue(d, x.target.Arn, x.payload, {});
  const fn = fnByArn(x.target.Arn);
  if (!fn) throw new DeliveryError('ResourceNotFoundException', `Function not found: ${x.target.Arn}`, false);
  if ((d.refused.get(fn.spec.logicalId) ?? 0) > d.clock()) throw throttled(fn.spec.name);
  let payload: unknown = x.payload;
  try {
    payload = JSON.parse(x.payload);
  } catch {
    // An InputTransformer may make plain text: the function gets it as a string.
  }
  const done = new Promise<InvokeResult>((resolve) => d.asyncInvoker.enqueue(fn, payload, { onDone: resolve }));
  return { done };
}

async function sendToQueue(d: EventWiringDeps, arn: string, body: string, attributes: Record<string, string>): Promise<void> {
  const queue = d.resources.queues.find((q) => q.arn === arn);
  if (!queue) throw new DeliveryError('ResourceNotFoundException', `The specified queue does not exist: ${arn}`, false);
  await d.direct.sqs.send(new SendMessageCommand({
    QueueUrl: queue.localUrl, MessageBody: body,
    ...(Object.keys(attributes).length ? { MessageAttributes: Object.fromEntries(Object.entries(attributes).map(([k, v]) => [k, { DataType: 'String', StringValue: v }])) } : {}),
  }));
}

/**
 * The Lambda service's destinations for an asynchronous invocation's outcome (EventInvokeConfig
 * DestinationConfig OnSuccess / OnFailure): an event bus gets "Lambda Function Invocation Result
 * - Success|Failure" with the invocation record as detail; a queue gets the record. Sent with
 * the function's role, as Lambda sends them.
 */
async function destinations(d: EventWiringDeps, fn: RehearsalFunction, event: unknown, r: InvokeResult, attempts: number, requestId: string): Promise<void> {
  const t = d.template;
  if (!r.ok) await deadLetter(d, fn, event, r, requestId);
  const config = t.ofType('AWS::Lambda::EventInvokeConfig').map(([id]) => t.props(id) as Record<string, any>)
    .find((c) => c.FunctionName === fn.spec.name || c.FunctionName === fn.spec.arn);
  const destination = (r.ok ? config?.DestinationConfig?.OnSuccess : config?.DestinationConfig?.OnFailure)?.Destination as string | undefined;
  if (!destination) return;
  const record = {
    version: '1.0', timestamp: new Date(d.clock()).toISOString(),
    requestContext: { requestId, functionArn: `${fn.spec.arn}:$LATEST`, condition: r.ok ? 'Success' : 'RetriesExhausted', approximateInvokeCount: attempts },
    requestPayload: event,
    responseContext: { statusCode: 200, executedVersion: '$LATEST', ...(r.ok ? {} : { functionError: 'Unhandled' }) },
    responsePayload: r.ok ? r.result : { errorType: r.error?.errorType, errorMessage: r.error?.errorMessage, trace: [] },
  };
  const detailType = `Lambda Function Invocation Result - ${r.ok ? 'Success' : 'Failure'}`;
  const service = destination.split(':')[2];
  if (service === 'events') {
    const context = { 'events:source': ['lambda'], 'events:detail-type': [detailType] };
    if (!(await d.gateway.authorize(fn.spec.logicalId, 'events:PutEvents', destination, context))) return;
    d.gateway.events.publish({ source: 'lambda', detailType, detail: record, resources: [`${fn.spec.arn}:$LATEST`, destination], bus: destination });
  } else if (service === 'sqs') {
    if (!(await d.gateway.authorize(fn.spec.logicalId, 'sqs:SendMessage', destination))) return;
    await sendToQueue(d, destination, JSON.stringify(record), {});
  } else {
    d.onError(new Error(`the rehearsal does not send ${fn.spec.logicalId}'s results to ${destination}`));
  }
}

/**
 * A function's own dead-letter queue (its DeadLetterConfig): an asynchronous event that failed
 * every try goes there, sent with the function's role, with the attributes Lambda sets
 * (RequestID, ErrorCode, ErrorMessage).
 */
async function deadLetter(d: EventWiringDeps, fn: RehearsalFunction, event: unknown, r: InvokeResult, requestId: string): Promise<void> {
  const [id] = d.template.ofType('AWS::Lambda::Function').find(([x]) => x === fn.spec.logicalId) ?? [];
  const target = id ? ((d.template.props(id) as { DeadLetterConfig?: { TargetArn?: string } }).DeadLetterConfig?.TargetArn) : undefined;
  if (!target) return;
  if (target.split(':')[2] !== 'sqs') return d.onError(new Error(`the rehearsal does not send ${fn.spec.logicalId}'s failed events to ${target}`));
  if (!(await d.gateway.authorize(fn.spec.logicalId, 'sqs:SendMessage', target))) return;
  await sendToQueue(d, target, JSON.stringify(event), { RequestID: requestId, ErrorCode: '200', ErrorMessage: r.error?.errorMessage ?? r.error?.errorType ?? 'failed' });
}

/**
 * S3 → EventBridge: buckets whose notification configuration turns EventBridge on send
 * "Object Created" (and "Object Deleted") to the default bus after each allowed write,
 * detail as S3 documents it (bucket.name, object.key, size, etag, sequencer, reason).
 */
function s3Events(d: EventWiringDeps) {
  const t = d.template;
  const buckets = new Set(t.ofType('Custom::S3BucketNotifications')
    .map(([id]) => t.props(id) as Record<string, any>)
    .filter((p) => p.NotificationConfiguration?.EventBridgeConfiguration !== undefined)
    .map((p) => String(p.BucketName)));
  let cursor = d.gateway.decisions.length;
  let pending = 0;
  let sequencer = 0;
  const publish = (bucket: string, key: string, created: boolean, head?: { size: number; eTag: string; versionId?: string }) => {
    const object = { key, ...(head ? { size: head.size, etag: head.eTag, ...(head.versionId ? { 'version-id': head.versionId } : {}) } : {}), sequencer: (++sequencer).toString(16).toUpperCase().padStart(18, '0') };
    d.gateway.events.publish({
      source: 'aws.s3', detailType: created ? 'Object Created' : 'Object Deleted', resources: [`arn:aws:s3:::${bucket}`],
      detail: {
        version: '0', bucket: { name: bucket }, object, 'request-id': randomUUID().replace(/-/g, '').slice(0, 16).toUpperCase(), requester: ACCOUNT_ID,
        'source-ip-address': '127.0.0.1', reason: created ? 'PutObject' : 'DeleteObject', ...(created ? {} : { 'deletion-type': 'Permanently Deleted' }),
      },
    });
  };
  return {
    pending: () => pending + (d.gateway.decisions.length > cursor && buckets.size ? 1 : 0),
    scan() {
      const ds = d.gateway.decisions;
      if (buckets.size === 0) return void (cursor = ds.length);
      for (; cursor < ds.length; cursor++) {
        const x = ds[cursor]!;
        if (!x.allowed || (x.action !== 's3:PutObject' && x.action !== 's3:DeleteObject')) continue;
        const m = /^arn:aws:s3:::([^/]+)\/(.+)$/.exec(x.resource);
        if (!m || !buckets.has(m[1]!)) continue;
        const [, bucket, key] = m as unknown as [string, string, string];
        if (x.action === 's3:DeleteObject') {
          publish(bucket, key, false);
          continue;
        }
        pending++;
        void headWhenStored(d.direct.s3, bucket, key)
          .then((head) => head && publish(bucket, key, true, head))
          .catch(d.onError)
          .finally(() => pending--);
      }
    },
  };
}

function addPolicy(policies: Record<string, PolicyDocument>, arn: string, doc: PolicyDocument): void {
  const list = (x: PolicyDocument) => (Array.isArray(x.Statement) ? x.Statement : [x.Statement]);
  const prev = policies[arn];
  policies[arn] = prev ? { Version: '2012-10-17', Statement: [...list(prev), ...list(doc)] } : doc;
}
