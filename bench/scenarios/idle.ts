/**
 * The `idle` figure: what an installation costs a month when nothing runs (issue 22 §4).
 * The template comes from the stack as `cdk synth` builds it (bundling skipped: the
 * template is the same); what each scheduled function does at idle is measured by calling
 * its real handler (functions/tick.ts, functions/poker.ts, through their middleware, so
 * the EMF metrics flush as in Lambda) against DynamoDB Local with the real DynamoStore,
 * its stdout captured. Every other AWS endpoint is a closed port: an idle invocation that
 * calls anything else fails here. The bill itself: bench/idle-bill.ts.
 */
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { createTables, deleteTables, TABLES, type TableId } from '../../lib/adapters/aws/dynamo-schema.js';
import { makeClients } from '../../lib/adapters/aws/clients.js';
import { lambdaPorts } from '../../lib/adapters/aws/lambda.js';
import { registerManifest } from '../../lib/engine/index.js';
import { LOCAL_AWS } from '../../lib/runtime/dynamodb-local.js';
import type { AirlessProps } from '../../lib/infra/airless.js';
import { AirlessStack } from '../../lib/infra/stack.js';
import { dag } from '../../lib/sdk/index.js';
import { InlineBundleSource } from '../../lib/runtime/inline-bundles.js';
import { idleBill, type IdleBill, type IdleInvocation, type IdleMeasurements, type TemplateJson } from '../idle-bill.js';

/** DAGs registered in the idle installation: daily schedules whose first tick is tomorrow, so none is due. */
export const IDLE_DAGS = 10;
/** Idle invocations measured per function (after one warm-up). */
const SAMPLES = 5;

export interface IdleResult extends IdleBill {
  /** What one idle invocation of each scheduled function does. */
  measured: IdleMeasurements;
  dags: number;
}

/**
 * The default stack's template, as `cdk synth` writes it (without bundling the functions).
 *
 * @example
 * const template = synthTemplate();
 */
export function synthTemplate(airless: AirlessProps = {}): TemplateJson {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const stack = new AirlessStack(app, 'Airless', { airless });
  return Template.fromStack(stack).toJSON() as TemplateJson;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** Runs `fn` with stdout captured (Powertools writes logs and EMF there). */
async function captured<T>(fn: () => Promise<T>): Promise<{ value: T; out: string }> {
  const write = process.stdout.write;
  let out = '';
  process.stdout.write = ((chunk: string | Uint8Array) => {
    out += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
    return true;
  }) as typeof process.stdout.write;
  try {
    return { value: await fn(), out };
  } finally {
    process.stdout.write = write;
  }
}

/** Custom metrics of EMF documents in captured output: `Name{dim=value,...}` per metric and dimension set. */
export function emfMetrics(out: string): string[] {
  const names = new Set<string>();
  for (const line of out.split('\n')) {
    if (!line.includes('"_aws"')) continue;
    const doc = JSON.parse(line) as { _aws: { CloudWatchMetrics: { Dimensions: string[][]; Metrics: { Name: string }[] }[] } } & Record<string, unknown>;
    for (const d of doc._aws.CloudWatchMetrics) {
      for (const dims of d.Dimensions.length ? d.Dimensions : [[]]) {
        const label = dims.map((k) => `${k}=${String(doc[k])}`).join(',');
        for (const m of d.Metrics) names.add(`${m.Name}{${label}}`);
      }
    }
  }
  return [...names].sort();
}

/**
 * Measures one idle invocation of the tick and of each poker shard on DynamoDB Local.
 * Sets the functions' environment for the duration (and restores it).
 *
 * @example
 * const measured = await measureIdle({ dynamodb: client, endpoint, shards: 8 });
 */
export async function measureIdle(o: { dynamodb: DynamoDBClient; endpoint: string; shards: number; dags?: number }): Promise<IdleMeasurements> {
  const prefix = `idle-${Date.now().toString(36)}-`;
  const closed = 'http://127.0.0.1:9';
  const env: Record<string, string> = {
    AIRLESS_TABLE_PREFIX: prefix,
    AIRLESS_QUEUE_URL: `${closed}/000000000000/ready`,
    AIRLESS_QUEUE_ARN: 'arn:aws:sqs:us-east-1:000000000000:ready',
    AIRLESS_BUCKET: 'idle-bundles',
    AIRLESS_SHARDS: String(o.shards),
    POWERTOOLS_SERVICE_NAME: 'airless',
    POWERTOOLS_METRICS_NAMESPACE: 'Airless',
    AWS_REGION: 'us-east-1',
    AIRLESS_SYSTEM_SCHEDULE_GROUP: '',
  };
  const saved = Object.fromEntries(Object.keys(env).map((k) => [k, process.env[k]]));
  Object.assign(process.env, env);
  await createTables(o.dynamodb, prefix);
  const tablesTouched = new Set<string>();
  try {
    const clients = makeClients({ endpoints: { dynamodb: o.endpoint, sqs: closed, s3: closed, scheduler: closed, ssm: closed, secretsmanager: closed }, credentials: LOCAL_AWS.credentials, maxAttempts: 1 });
    // Which tables an idle invocation touches (KMS table keys), and the read floor: DynamoDB
    // Local reports 0 units for a query or scan that finds nothing, DynamoDB bills at least
    // 0.5 (an eventually consistent read) for any read request.
    let readFloor = 0;
    clients.dynamodb.middlewareStack.add((next, ctx) => async (args) => {
      const name = (args.input as { TableName?: string }).TableName;
      if (name) tablesTouched.add(name);
      const out = await next(args);
      const cc = (out.output as { ConsumedCapacity?: { CapacityUnits?: number } }).ConsumedCapacity;
      if (/^(GetItem|Query|Scan)Command$/.test(ctx.commandName ?? '')) readFloor += Math.max(0, 0.5 - (cc?.CapacityUnits ?? 0));
      return out;
    }, { step: 'initialize', name: 'idleTables' });
    let schedulerCalls = 0;
    clients.scheduler.middlewareStack.add((next) => async (args) => {
      schedulerCalls++;
      return next(args);
    }, { step: 'initialize', name: 'idleSchedulerCalls' });
    // The tick as deployed, with the poker switch (any Scheduler call at idle would fail here).
    process.env.AIRLESS_SYSTEM_SCHEDULE_GROUP = 'Airless-system';
    let ports = lambdaPorts({ clients, reset: true });
    const n = o.dags ?? IDLE_DAGS;
    const tomorrow = new Date(Math.ceil(Date.now() / 86_400_000) * 86_400_000 + 86_400_000).toISOString();
    const bundles = new InlineBundleSource(Array.from({ length: n }, (_, i) => dag(`idle_${i}`, { schedule: '@daily', startDate: tomorrow, catchup: false }, ({ task }) => {
      const a = task('extract', async () => 1);
      const b = task('transform', async () => 2);
      const c = task('load', async () => 3);
      a.before(b);
      b.before(c);
    })));
    await registerManifest(ports, bundles.version, await bundles.manifest(bundles.version));
    const { handler: tick } = await import('../../functions/tick.js');
    const { handler: poker } = await import('../../functions/poker.js');
    const context = { getRemainingTimeInMillis: () => 120_000, functionName: 'idle', awsRequestId: 'idle' } as never;
    const measure = async (invoke: (i: number) => Promise<unknown>, count: number): Promise<IdleInvocation> => {
      await captured(() => invoke(0)); // warm-up: the first tick sets each DAG's next tick
      const samples: IdleInvocation[] = [];
      for (let i = 0; i < count; i++) {
        tablesTouched.clear();
        const u0 = { ...ports.store.usage };
        const f0 = readFloor;
        const q0 = ports.queue.usage.requests;
        const s0 = schedulerCalls;
        const t0 = performance.now();
        const { out } = await captured(() => invoke(i));
        const ms = performance.now() - t0;
        const lines = out.split('\n').filter((l) => l.length > 0);
        samples.push({
          rcu: ports.store.usage.rcu - u0.rcu + (readFloor - f0), wcu: ports.store.usage.wcu - u0.wcu, dynamoRequests: ports.store.usage.requests - u0.requests,
          sqsRequests: ports.queue.usage.requests - q0, schedulerCalls: schedulerCalls - s0, ms,
          logBytes: Buffer.byteLength(out) - lines.length, logEvents: lines.length, metrics: emfMetrics(out),
          tables: (Object.keys(TABLES) as TableId[]).filter((id) => tablesTouched.has(prefix + TABLES[id].suffix)),
        });
      }
      const avg = (f: (s: IdleInvocation) => number) => samples.reduce((a, s) => a + f(s), 0) / samples.length;
      return {
        rcu: avg((s) => s.rcu), wcu: avg((s) => s.wcu), dynamoRequests: avg((s) => s.dynamoRequests), sqsRequests: avg((s) => s.sqsRequests),
        schedulerCalls: avg((s) => s.schedulerCalls), ms: median(samples.map((s) => s.ms)), logBytes: avg((s) => s.logBytes), logEvents: avg((s) => s.logEvents),
        metrics: [...new Set(samples.flatMap((s) => s.metrics))].sort(), tables: [...new Set(samples.flatMap((s) => s.tables))],
      };
    };
    const Tick = await measure(() => tick({}, context), SAMPLES);
    // A poker as it would run if its schedule fired at idle, without the switch (which
    // would disable its schedule: calls that are not billed). One invocation per shard.
    process.env.AIRLESS_SYSTEM_SCHEDULE_GROUP = '';
    ports = lambdaPorts({ clients, reset: true });
    const Poker = await measure((i) => poker({ shard: i % o.shards }, context), Math.max(SAMPLES, o.shards));
    clients.dynamodb.destroy();
    return { Tick, Poker };
  } finally {
    await deleteTables(o.dynamodb, prefix).catch(() => undefined);
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}

/**
 * The idle bill of the default stack (8 poker shards), measured on DynamoDB Local.
 *
 * @example
 * const idle = await idleBench(client, endpoint);
 * idle.usdPerMonth; // the `idle.usdPerMonth` figure
 */
export async function idleBench(dynamodb: DynamoDBClient, endpoint: string): Promise<IdleResult> {
  const measured = await measureIdle({ dynamodb, endpoint, shards: 8 });
  return { ...idleBill(synthTemplate(), measured), measured, dags: IDLE_DAGS };
}
