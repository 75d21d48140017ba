/**
 * The HA proof (issue 4): several real engine processes share one DynamoDB and one SQS
 * queue, every message may be delivered twice, and processes are SIGKILLed and
 * restarted at random moments. When every run has finished, the evidence (DynamoDB
 * contents and the append-only log the task bodies and pokes wrote) must satisfy every
 * invariant in checks.ts.
 *
 * `npm run chaos -- [--runs N] [--processes 3] [--seed S] [--kills K] [--kill-every-ms MS] [--json]
 *   [--dynamodb-endpoint URL] [--timeout-ms MS]`
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, openSync, readFileSync, readdirSync, rmSync, closeSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { CreateQueueCommand, GetQueueAttributesCommand } from '@aws-sdk/client-sqs';
import { createSqsServer } from 'local-aws-sqs';
import { makeClients } from '../../lib/adapters/aws/clients.js';
import { createTables, deleteTables } from '../../lib/adapters/aws/dynamo-schema.js';
import { DynamoStore } from '../../lib/adapters/aws/dynamo-store.js';
import { CountingMetrics } from '../../lib/adapters/aws/metrics.js';
import { SqsQueue } from '../../lib/adapters/aws/sqs-queue.js';
import { SystemClock } from '../../lib/adapters/clock.js';
import { buildToLocalVersion } from '../../lib/build/local-source.js';
import type { DagRun, DagSpec, TaskInstance } from '../../lib/engine/index.js';
import type { Ports } from '../../lib/engine/index.js';
import { registerManifest, triggerRun } from '../../lib/engine/index.js';
import { backfillRunId, createBackfill } from '../../lib/engine/index.js';
import { isRunTerminal } from '../../lib/engine/index.js';
import { startDynamoDbLocal } from '../../lib/runtime/dynamodb-local.js';
import { checkAll, parseLog, type CheckResult } from './checks.js';
import { CHAOS_CONFIG, DelayTimer, seeded, type ChildEnv, type ChildStats } from './shared.js';

const HERE = fileURLToPath(new URL('.', import.meta.url));
const REPO = join(HERE, '..', '..');

export interface ChaosOptions {
  runs?: number;
  processes?: number;
  seed?: number;
  /** Most kills to make; they stop once every run is terminal. Default: no cap. */
  kills?: number;
  /** Mean pause between kills. Default 6 s. */
  killEveryMs?: number;
  dynamodbEndpoint?: string;
  /** Give up waiting for terminal runs after this long. */
  timeoutMs?: number;
  /** Probability that a child sends a message twice. Default 0.5. */
  duplicateProbability?: number;
  /** Progress lines go here (stderr by default). */
  progress?: (line: string) => void;
  /** Days of chaos_backfill to backfill, 2 runs at most at once, while the other runs go on (0: none). Default 6. */
  backfillDays?: number;
}

export interface ChaosReport {
  runs: number;
  /** Runs the backfill created (among `runStates`). */
  backfillRuns: number;
  /** The backfill as it ended (undefined without one). */
  backfill?: { completed: boolean; active: number; created: number; total: number };
  tasks: number;
  kills: number;
  duplicateDeliveries: number;
  lostRaces: number;
  violations: number;
  durationMs: number;
  runStates: Record<string, number>;
  triesExecuted: number;
  pokes: number;
  deadLettered: number;
  counters: Record<string, number>;
  checks: CheckResult[];
  workDir: string;
}

/** Every child alive in this process, so that Ctrl-C in the CLI leaves none behind. */
const LIVE = new Set<ChildProcess>();

const DAG_SPREAD = ['chaos_chain', 'chaos_fan', 'chaos_sensors', 'chaos_defer'];

/**
 * Runs the chaos test end to end and returns its report (it never throws on a violation).
 *
 * @example
 * const report = await runChaos({ runs: 12, kills: 2 });
 * if (report.violations > 0) console.error(report.checks);
 */
export async function runChaos(opts: ChaosOptions = {}): Promise<ChaosReport> {
  const started = Date.now();
  const runs = opts.runs ?? 30;
  const nproc = opts.processes ?? 3;
  const seed = opts.seed ?? 1;
  const rnd = seeded(seed);
  const say = opts.progress ?? ((l: string) => process.stderr.write(`[chaos] ${l}\n`));
  const work = mkdtempSync(join(tmpdir(), 'airless-chaos-'));
  const logFile = join(work, 'evidence.jsonl');
  const statsDir = join(work, 'stats');
  mkdirSync(statsDir);
  mkdirSync(join(work, 'out'));
  const cleanups: Array<() => Promise<unknown>> = [];
  const children = new Map<number, ChildProcess>();
  try {
    const ddbEndpoint = opts.dynamodbEndpoint ?? (await startDdb(cleanups));
    const sqsServer = await createSqsServer({ port: 0, emulateQueueCreationLifecycle: false });
    cleanups.push(() => new Promise((r) => sqsServer.close(r)));
    const sqsEndpoint = `http://127.0.0.1:${(sqsServer.address() as AddressInfo).port}`;
    const clients = makeClients({ endpoints: { dynamodb: ddbEndpoint, sqs: sqsEndpoint }, maxAttempts: 6 });
    cleanups.push(async () => { clients.dynamodb.destroy(); clients.sqs.destroy(); });
    const prefix = `chaos${seed}-${started.toString(36)}-`;
    await createTables(clients.dynamodb, prefix);
    if (opts.dynamodbEndpoint) cleanups.push(() => deleteTables(clients.dynamodb, prefix));
    const { queueUrl, dlqUrl } = await createQueues(clients.sqs);
    const bundleRoot = join(work, 'bundles');
    const { version, manifest } = await buildToLocalVersion(join(HERE, 'dags'), bundleRoot);
    say(`bundle ${version}, tables ${prefix}*, queue on ${sqsEndpoint}, DynamoDB on ${ddbEndpoint}`);

    const metrics = new CountingMetrics();
    const store = new DynamoStore({ client: clients.dynamodb, tablePrefix: prefix, metrics });
    const queue = new SqsQueue({ client: clients.sqs, queueUrl });
    const clock = new SystemClock();
    const ports: Ports = {
      store, queue, clock, metrics,
      timer: new DelayTimer(queue, () => clock.now()),
      bundles: { manifest: async () => manifest, load: () => Promise.reject(new Error('the parent runs no task code')) },
      log: { info: () => {}, warn: () => {}, error: (m, f) => say(`ERROR ${m} ${JSON.stringify(f ?? {})}`) },
      config: CHAOS_CONFIG,
      workerId: 'parent',
    };
    await registerManifest(ports, version, manifest);
    // A backfill the children advance (reconcile, and the message each of its runs' ends sends) while they crash.
    const backfills: { id: number; dagId: string; maxActiveRuns: number }[] = [];
    const expected: string[] = [];
    const days = opts.backfillDays ?? 6;
    if (days > 0) {
      const today = Math.floor(started / 86_400_000) * 86_400_000;
      const b = await createBackfill(ports, { dagId: 'chaos_backfill', fromDate: today - (days + 1) * 86_400_000, toDate: today - 2 * 86_400_000, maxActiveRuns: 2 });
      backfills.push({ id: b.id, dagId: b.dagId, maxActiveRuns: b.maxActiveRuns });
      for (let d = 0; d < b.total; d++) expected.push(`${b.dagId}/${backfillRunId(today - (days + 1 - d) * 86_400_000)}`);
      say(`backfill ${b.id} of ${b.dagId}: ${b.total} runs, at most ${b.maxActiveRuns} at once`);
    }

    let generation = 0;
    const spawnChild = (slot: number) => {
      const processId = `p${slot}g${generation++}`;
      const env: ChildEnv = {
        CHAOS_DDB_ENDPOINT: ddbEndpoint, CHAOS_SQS_ENDPOINT: sqsEndpoint, CHAOS_QUEUE_URL: queueUrl,
        CHAOS_TABLE_PREFIX: prefix, CHAOS_BUNDLE_ROOT: bundleRoot, CHAOS_PROCESS_ID: processId,
        CHAOS_LOG: logFile, CHAOS_STATS_DIR: statsDir, CHAOS_SEED: String(seed * 1000 + generation),
        CHAOS_DUP_PROBABILITY: String(opts.duplicateProbability ?? 0.5),
      };
      const out = openSync(join(work, 'out', `${processId}.log`), 'a');
      const child = spawn(process.execPath, ['--import', 'tsx', join(HERE, 'node.ts')], {
        cwd: REPO,
        env: { ...process.env, ...env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
        stdio: ['ignore', out, out],
      });
      closeSync(out);
      LIVE.add(child);
      child.once('exit', () => LIVE.delete(child));
      children.set(slot, child);
    };
    for (let i = 0; i < nproc; i++) spawnChild(i);

    const trigger = async (i: number) => {
      const dagId = DAG_SPREAD[i % DAG_SPREAD.length];
      const group = `g${i % 3}`;
      // Every run of a group waits on the same target, ready 3-9 s after the start.
      const readyAt = String(started + 3_000 + 3_000 * (i % 3));
      const run = await triggerRun(ports, dagId, { runId: `chaos-${i}`, conf: { group, readyAt } });
      expected.push(`${run.dagId}/${run.runId}`);
    };
    const triggering = pool(Array.from({ length: runs }, (_, i) => i), 4, trigger);

    let kills = 0;
    let allDone = false;
    const killer = (async () => {
      while (!allDone && kills < (opts.kills ?? Number.POSITIVE_INFINITY)) {
        await sleep((opts.killEveryMs ?? 6_000) * (0.4 + 1.2 * rnd()));
        if (allDone) break;
        const slot = Math.floor(rnd() * nproc);
        children.get(slot)?.kill('SIGKILL');
        kills++;
        say(`kill ${kills}: SIGKILL process slot ${slot}; restarting it`);
        spawnChild(slot);
      }
    })();

    await triggering;
    say(`${runs} runs triggered in ${Date.now() - started} ms`);
    const deadline = started + (opts.timeoutMs ?? 180_000 + runs * 2_500);
    const pending = new Set(expected);
    while (pending.size > 0 && Date.now() < deadline) {
      await sleep(2_000);
      for (const k of [...pending]) {
        if (k.startsWith('backfill ')) continue; // checked below, once every run is terminal
        const [dagId, runId] = k.split('/');
        const r = await store.getRun(dagId, runId);
        if (r && isRunTerminal(r.state)) pending.delete(k);
      }
      // Then the backfills complete: the advance after their last run's end.
      if ([...pending].every((k) => k.startsWith('backfill '))) {
        for (const b of backfills) {
          const done = (await store.getBackfill(b.id))?.completedAt !== undefined;
          if (done) pending.delete(`backfill ${b.id}`);
          else pending.add(`backfill ${b.id}`);
        }
      }
      say(`${expected.length - pending.size}/${expected.length} runs terminal, ${kills} kills`);
    }
    allDone = true;
    await killer;
    await stopChildren(children);

    const specs = new Map<string, DagSpec>(manifest.dags.map((d) => [d.dagId, d]));
    const storedRuns: DagRun[] = (await Promise.all([...DAG_SPREAD, ...backfills.map((b) => b.dagId)].map((d) => store.listRuns(d)))).flat();
    const tasks: TaskInstance[] = (await pool(storedRuns, 8, (r) => store.listTasks(r.dagId, r.runId))).flat();
    const { lines, bad } = parseLog(readFileSync(logFile, { encoding: 'utf8', flag: 'a+' }));
    const checks = checkAll({ expectedRuns: expected, runs: storedRuns, tasks, specs, log: lines, backfills });
    if (bad.length) checks.push({ name: 'evidence log well formed', violations: bad.map((b) => `torn line ${b.slice(0, 80)}`) });
    const stats = readStats(statsDir);
    const counters: Record<string, number> = {};
    for (const s of stats) for (const [k, v] of Object.entries(s.counters)) counters[k] = (counters[k] ?? 0) + v;
    const runStates: Record<string, number> = {};
    for (const r of storedRuns) runStates[r.state] = (runStates[r.state] ?? 0) + 1;
    const final = backfills[0] && (await store.getBackfill(backfills[0].id));
    return {
      runs, backfillRuns: expected.length - runs, tasks: tasks.length, kills,
      backfill: final ? { completed: final.completedAt !== undefined, active: final.active, created: final.created, total: final.total } : undefined,
      duplicateDeliveries: stats.reduce((n, s) => n + s.duplicateSends, 0),
      lostRaces: (counters.LostRaces ?? 0) + metrics.get('LostRaces'),
      violations: checks.reduce((n, c) => n + c.violations.length, 0),
      durationMs: Date.now() - started,
      runStates,
      triesExecuted: lines.filter((l) => l.kind === 'task').length,
      pokes: lines.filter((l) => l.kind === 'poke').length,
      deadLettered: await queueDepth(clients.sqs, dlqUrl),
      counters, checks, workDir: work,
    };
  } finally {
    for (const c of children.values()) c.kill('SIGKILL');
    for (const c of cleanups.reverse()) await c().catch(() => undefined);
  }
}

async function startDdb(cleanups: Array<() => Promise<unknown>>): Promise<string> {
  const ddb = await startDynamoDbLocal();
  cleanups.push(() => ddb.stop());
  return ddb.endpoint;
}

async function createQueues(sqs: ReturnType<typeof makeClients>['sqs']): Promise<{ queueUrl: string; dlqUrl: string }> {
  const dlq = await sqs.send(new CreateQueueCommand({ QueueName: 'chaos-dlq' }));
  const arn = await sqs.send(new GetQueueAttributesCommand({ QueueUrl: dlq.QueueUrl, AttributeNames: ['QueueArn'] }));
  const q = await sqs.send(new CreateQueueCommand({
    QueueName: 'chaos-ready',
    Attributes: { RedrivePolicy: JSON.stringify({ deadLetterTargetArn: arn.Attributes!.QueueArn, maxReceiveCount: 10 }) },
  }));
  return { queueUrl: q.QueueUrl!, dlqUrl: dlq.QueueUrl! };
}

async function queueDepth(sqs: ReturnType<typeof makeClients>['sqs'], url: string): Promise<number> {
  const a = await sqs.send(new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['ApproximateNumberOfMessages'] }));
  return Number(a.Attributes?.ApproximateNumberOfMessages ?? 0);
}

/** SIGTERM, then SIGKILL after 10 s: a child finishes its in-flight messages and writes its stats. */
async function stopChildren(children: Map<number, ChildProcess>): Promise<void> {
  await Promise.all([...children.values()].map((c) => new Promise<void>((resolve) => {
    if (c.exitCode !== null || c.signalCode !== null) return resolve();
    const force = setTimeout(() => c.kill('SIGKILL'), 10_000);
    c.once('exit', () => { clearTimeout(force); resolve(); });
    c.kill('SIGTERM');
  })));
}

function readStats(dir: string): ChildStats[] {
  return readdirSync(dir).filter((f) => f.endsWith('.json')).map((f) => JSON.parse(readFileSync(join(dir, f), 'utf8')) as ChildStats);
}

async function pool<T, R>(items: readonly T[], limit: number, fn: (x: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let i = 0;
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (i < items.length) { const k = i++; out[k] = await fn(items[k]); }
  }));
  return out;
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

async function cli(): Promise<void> {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  for (const sig of ['SIGINT', 'SIGTERM'] as const) {
    process.once(sig, () => {
      for (const c of LIVE) c.kill('SIGKILL');
      // 'exit' handlers (DynamoDB Local's JVM) run on process.exit.
      process.exit(130);
    });
  }
  const { values } = parseArgs({
    options: {
      runs: { type: 'string' }, processes: { type: 'string' }, seed: { type: 'string' }, kills: { type: 'string' },
      json: { type: 'boolean' }, 'dynamodb-endpoint': { type: 'string' }, 'timeout-ms': { type: 'string' }, keep: { type: 'boolean' },
      'kill-every-ms': { type: 'string' },
    },
  });
  const num = (v: string | undefined) => (v === undefined ? undefined : Number(v));
  const report = await runChaos({
    runs: num(values.runs), processes: num(values.processes), seed: num(values.seed), kills: num(values.kills),
    dynamodbEndpoint: values['dynamodb-endpoint'], timeoutMs: num(values['timeout-ms']),
    killEveryMs: num(values['kill-every-ms']),
  });
  const { checks, counters, ...summary } = report;
  for (const c of checks) {
    console.log(`${c.violations.length === 0 ? 'ok  ' : 'FAIL'} ${c.name}${c.violations.length ? ` (${c.violations.length})` : ''}`);
    for (const v of c.violations.slice(0, 20)) console.log(`       ${v}`);
  }
  console.log(JSON.stringify({ ...summary, counters }, null, 2));
  if (!values.keep && report.violations === 0) rmSync(report.workDir, { recursive: true, force: true });
  if (values.json) {
    const { runs, tasks, kills, duplicateDeliveries, lostRaces, violations } = report;
    console.log(JSON.stringify({ runs, tasks, kills, duplicateDeliveries, lostRaces, violations }));
  }
  process.exitCode = report.violations > 0 ? 1 : 0;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await cli();
}
