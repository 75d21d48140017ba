/**
 * Dynamic task mapping at scale (issue 13): one run of `list -> each.expand(list) -> total`
 * with n instances, on the memory store (virtual clock) and on DynamoDB Local, with the
 * write and read units per instance beside those of a plain task (a fan-out of the same
 * trivial task, each a task of its own: root -> 100 tasks -> join).
 *
 * npm run bench -- --only mapping [--quick]   (n = 10,000; --quick: 1,000)
 */
import { performance } from 'node:perf_hooks';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { createTables, deleteTables } from '../../lib/adapters/aws/dynamo-schema.js';
import { DynamoStore } from '../../lib/adapters/aws/dynamo-store.js';
import { VirtualClock } from '../../lib/adapters/clock.js';
import { MemoryLog } from '../../lib/adapters/memory/observe.js';
import type { Clock, Store } from '../../lib/engine/index.js';
import { InlineBundleSource } from '../../lib/runtime/inline-bundles.js';
import { EmbeddedRuntime } from '../../lib/runtime/embedded.js';
import { dag } from '../../lib/sdk/index.js';
import type { DagDefinition } from '../../lib/sdk/types.js';
import { PerfClock } from '../clock.js';

export interface MappingRow {
  store: 'memory' | 'dynamodb-local';
  shape: 'mapped' | 'plain fan-out';
  /** Mapped instances, or plain tasks of the fan-out. */
  instances: number;
  wallMs: number;
  instancesPerSec: number;
  succeeded: boolean;
  /** DynamoDB only: consumed units and requests over the whole run, divided by `instances`. */
  wcuPerInstance?: number;
  rcuPerInstance?: number;
  requestsPerInstance?: number;
}

const PLAIN_WIDTH = 100;

function mappedDag(n: number): DagDefinition {
  return dag('bench_mapped', {}, ({ task }) => {
    const list = task('list', async () => Array.from({ length: n }, (_, i) => i), { isolation: 'none' });
    const each = task('each', async (_ctx, x: number) => x * 2, { isolation: 'none' }).expand(list);
    each.before(task('total', async (ctx) => (await ctx.xcom.pull<number[]>('each')).reduce((a, b) => a + b, 0), { isolation: 'none' }));
  });
}

function plainDag(width: number): DagDefinition {
  return dag('bench_plain', { maxActiveTasks: width + 2 }, ({ task }) => {
    const root = task('root', async () => 1, { isolation: 'none' });
    const join = task('join', async () => 1, { isolation: 'none' });
    for (let i = 0; i < width; i++) root.before(task(`t${i}`, async () => i * 2, { isolation: 'none' })).before(join);
  });
}

async function runOne(d: DagDefinition, clock: Clock, store: Store | undefined, concurrency: number): Promise<{ wallMs: number; ok: boolean }> {
  const bundles = new InlineBundleSource([d]);
  const rt = new EmbeddedRuntime({ bundles, clock, store, concurrency, schedules: false, tickMs: 3_600_000, log: new MemoryLog(undefined, 100) });
  await rt.register(bundles.version);
  const start = performance.now();
  const run = await rt.trigger(d.spec.dagId);
  const outcome = await rt.runToCompletion(d.spec.dagId, run.runId);
  const wallMs = performance.now() - start;
  const ok = outcome === 'done' && (await rt.ports.store.getRun(d.spec.dagId, run.runId))?.state === 'success';
  return { wallMs, ok };
}

const round = (x: number, digits = 2) => Math.round(x * 10 ** digits) / 10 ** digits;

/**
 * @example
 * const rows = await mappingBench({ n: 1000, concurrency: 32 }); // memory only
 */
export async function mappingBench(opts: { n: number; concurrency: number; dynamodb?: DynamoDBClient; progress?: (l: string) => void }): Promise<MappingRow[]> {
  const rows: MappingRow[] = [];
  // Warm the JIT on a small run first.
  await runOne(mappedDag(200), new VirtualClock(Date.UTC(2026, 0, 1)), undefined, opts.concurrency);
  const mem = await runOne(mappedDag(opts.n), new VirtualClock(Date.UTC(2026, 0, 1)), undefined, opts.concurrency);
  rows.push({ store: 'memory', shape: 'mapped', instances: opts.n, wallMs: round(mem.wallMs, 1), instancesPerSec: Math.round(opts.n / (mem.wallMs / 1000)), succeeded: mem.ok });
  if (!opts.dynamodb) return rows;
  for (const [shape, d, count] of [['plain fan-out', plainDag(PLAIN_WIDTH), PLAIN_WIDTH + 2], ['mapped', mappedDag(opts.n), opts.n]] as const) {
    opts.progress?.(`mapping on DynamoDB Local: ${shape}, ${count} ${shape === 'mapped' ? 'instances' : 'tasks'}`);
    const prefix = `bench-map-${shape === 'mapped' ? 'm' : 'p'}-${Date.now().toString(36)}-`;
    await createTables(opts.dynamodb, prefix);
    try {
      const store = new DynamoStore({ client: opts.dynamodb, tablePrefix: prefix });
      const r = await runOne(d, new PerfClock(), store, opts.concurrency);
      const u = store.usage;
      rows.push({
        store: 'dynamodb-local', shape, instances: count, wallMs: round(r.wallMs, 1), instancesPerSec: Math.round(count / (r.wallMs / 1000)),
        succeeded: r.ok, wcuPerInstance: round(u.wcu / count), rcuPerInstance: round(u.rcu / count), requestsPerInstance: round(u.requests / count),
      });
    } finally {
      await deleteTables(opts.dynamodb, prefix);
    }
  }
  return rows;
}

export function formatMapping(rows: readonly MappingRow[]): string {
  const head = ['store', 'shape', 'instances', 'wall ms', 'per s', 'WCU/inst', 'RCU/inst', 'req/inst', 'ok'];
  const cells = [head, ...rows.map((r) => [r.store, r.shape, r.instances, r.wallMs, r.instancesPerSec, r.wcuPerInstance ?? '-', r.rcuPerInstance ?? '-', r.requestsPerInstance ?? '-', r.succeeded ? 'yes' : 'NO'].map(String))];
  const widths = head.map((_, i) => Math.max(...cells.map((c) => c[i]!.length)));
  const line = (c: string[]) => c.map((x, i) => (i < 2 ? x.padEnd(widths[i]!) : x.padStart(widths[i]!))).join('  ');
  return ['Dynamic task mapping (one expand; plain fan-out = root -> 100 tasks -> join, per task)', line(head), widths.map((w) => '-'.repeat(w)).join('  '), ...cells.slice(1).map(line)].join('\n');
}
