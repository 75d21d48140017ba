/**
 * The bench's results as one JSON document and as tables for a person, each figure
 * beside its target.
 */
import { formatInnerLoop, type InnerLoopResult } from './inner-loop.js';
import type { CostResult } from './scenarios/cost.js';
import type { HaResult } from './scenarios/ha.js';
import { formatMapping, type MappingRow } from './scenarios/mapping.js';
import { formatJobs, type JobsResult } from './scenarios/jobs.js';
import type { ShapeResult } from './scenarios/shapes.js';
import type { ScaleResult } from './scenarios/scale.js';
import { formatBackfill, type BackfillBenchResult } from './scenarios/backfill.js';
import type { IdleResult } from './scenarios/idle.js';
import { formatIdleBill } from './idle-bill.js';

export interface SensorSummary {
  sensors: number;
  distinct: number;
  shards: number;
  pokesPerCycle: number;
  naivePokesPerCycle: number;
  cycleMs: number;
  /** The cycle when every sensor pokes its own target (no batching). */
  naiveCycleMs?: number;
  /** Slowest shard poked alone: the cycle time with one poker Lambda per shard. */
  slowestShardMs: number;
}

export interface BenchReport {
  machine: { cores: number; node: string; platform: string; loadAvg1m: number; quick: boolean; startedAt: string };
  shapes: ShapeResult[];
  sensors?: SensorSummary;
  cost?: CostResult;
  ha?: HaResult;
  /** Issue 13: one expand of 10,000 (bench/scenarios/mapping.ts). */
  mapping?: MappingRow[];
  /** Issue 22: one run of 1,000 and one of 10,000 independent tasks, embedded (bench/scenarios/scale.ts). */
  scale?: ScaleResult;
  /** Issue 21: requests per backfilled run (bench/scenarios/backfill.ts). */
  backfill?: BackfillBenchResult;
  /** Issue 22 §4: the month's bill when nothing runs (bench/scenarios/idle.ts). */
  idle?: IdleResult;
  /** Issue 19: `airless run` of the scaffold's DAG, first and second (bench/inner-loop.ts). */
  innerLoop?: InnerLoopResult;
  /** Issue 20: the requests of one operator's job (bench/scenarios/jobs.ts). */
  jobs?: JobsResult;
  durationMs: number;
}

/** Targets of issue 6, checked for the table (benchmarks never fail a build). */
export const TARGETS = {
  memoryShapeWallMs: 100,
  memoryP50StepLagMs: 1,
  dynamoShapeWallMs: 3_000,
  sensorCycleMs: 5_000,
  usdPerMillionTasks: 2,
  /** A wide run's cost per task over a chain's, at most (issue 22). */
  fanOutOverChain: 1.1,
  /** Wall time of 10x the tasks, at most this many times (issue 22). */
  scaleWallRatio: 12,
  idleUsdPerMonth: 2,
} as const;

const mark = (ok: boolean) => (ok ? 'ok' : 'MISSED');

function table(head: string[], rows: Array<Array<string | number>>): string {
  const cells = [head, ...rows.map((r) => r.map(String))];
  const widths = head.map((_, i) => Math.max(...cells.map((r) => r[i]!.length)));
  const line = (r: string[]) => r.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  return [line(head), widths.map((w) => '-'.repeat(w)).join('  '), ...cells.slice(1).map(line)].join('\n');
}

/**
 * @example
 * console.log(formatReport(report));
 */
export function formatReport(r: BenchReport): string {
  const out: string[] = [];
  const m = r.machine;
  out.push(`Airless bench${m.quick ? ' (--quick: a tenth of the size)' : ''} — ${m.cores} cores, Node ${m.node}, ${m.platform}, load ${m.loadAvg1m.toFixed(1)} at start, ${m.startedAt}`);
  out.push('');
  if (r.shapes.length > 0) {
    out.push('1. Scheduler shapes (trivial tasks, concurrency 32)');
    out.push(table(
      ['shape', 'store', 'tasks', 'wall ms', 'cpu ms', 'tasks/s', 'total lag ms', 'p50 step ms', 'p99 step ms', 'target'],
      r.shapes.map((s) => {
        const ok = s.store.startsWith('memory')
          ? s.wallMs < TARGETS.memoryShapeWallMs * (s.tasks / 1000) && s.p50StepLagMs < TARGETS.memoryP50StepLagMs
          : s.wallMs < TARGETS.dynamoShapeWallMs * (s.tasks / 1000);
        return [s.name, s.store, s.tasks, s.wallMs, s.cpuMs ?? '-', s.tasksPerSec, s.totalTaskLagMs, s.p50StepLagMs, s.p99StepLagMs, mark(ok && s.allSucceeded)];
      }),
    ));
    out.push('   targets: memory < 0.1 s per 1,000 tasks and p50 step lag < 1 ms; DynamoDB Local < 3 s per 1,000 tasks.');
    out.push('   memory wall: best of 3 runs; cpu: the process, every thread, in that run (isolated rows: worker threads included).');
    out.push('   Airflow 2.0 (AIP-15, published): 11.6-14.3 s per 1,000-task shape.');
  }
  if (r.sensors) {
    const s = r.sensors;
    out.push('');
    out.push(`2. Sensors: ${s.sensors} waiting, ${s.distinct} distinct targets, ${s.shards} shards, 50 ms pokes`);
    out.push(table(
      ['pokes/cycle', 'distinct', 'naive pokes/cycle', 'ratio', 'cycle ms', 'naive cycle ms', 'slowest shard ms', 'target'],
      [[s.pokesPerCycle, s.distinct, s.naivePokesPerCycle, (s.naivePokesPerCycle / Math.max(1, s.pokesPerCycle)).toFixed(2), s.cycleMs,
        s.naiveCycleMs ?? '-', s.slowestShardMs, mark(s.pokesPerCycle === s.distinct && s.cycleMs < TARGETS.sensorCycleMs)]],
    ));
  }
  if (r.cost) {
    const c = r.cost;
    const b = c.breakdownUsdPerMillion;
    out.push('');
    out.push(`3. Cost per task instance (the worker bundled as cdk synth bundles it, ${c.compute.memoryMb} MB ${c.compute.architecture}, on DynamoDB Local + SQS; counted on the wire)`);
    const rowOf = (name: string, p: CostResult['perTask'], usd: number) => [name, p.wcu, p.rcu, p.sqsRequests, p.invocations, p.gbSeconds, p.workerMs.toFixed(1), usd];
    out.push(table(
      ['', 'WCU', 'RCU', 'SQS req', 'invocations', 'GB-s', 'worker ms', '$ / million tasks'],
      [
        rowOf(`${c.chain.runs} x 10-task chains, batches of 10`, c.perTask, c.usdPerMillionTasks),
        rowOf('one 10-task chain, quiet queue (batch of 1)', c.perTaskIdle, c.usdPerMillionTasksIdle),
        rowOf(`${c.longChain.runs} x 100-task chains, batches of 10`, c.longChain.perTask, c.longChain.usdPerMillionTasks),
        rowOf(`${c.eagerChain.runs} x 10-task chains, 1 min timeouts (eager follow)`, c.eagerChain.perTask, c.eagerChain.usdPerMillionTasks),
        rowOf(`one run of ${c.fanOut1000.tasks} independent tasks`, c.fanOut1000.perTask, c.fanOut1000.usdPerMillionTasks),
      ],
    ));
    const fan = Math.max(c.fanOut1000.perTask.wcu / c.perTask.wcu, c.fanOut1000.perTask.rcu / Math.max(c.perTask.rcu, 1e-9));
    out.push(`   $ per million: DynamoDB writes ${b.dynamoWrites}, reads ${b.dynamoReads}, SQS ${b.sqs}, Lambda requests ${b.lambdaRequests}, Lambda compute ${b.lambdaCompute}, Scheduler ${b.scheduler}  -> ${mark(c.usdPerMillionTasks <= TARGETS.usdPerMillionTasks)} (target <= $${TARGETS.usdPerMillionTasks}, compute included)`);
    out.push(`   wide run over chain, per task: WCU x${(c.fanOut1000.perTask.wcu / c.perTask.wcu).toFixed(2)}, RCU x${(c.fanOut1000.perTask.rcu / Math.max(c.perTask.rcu, 1e-9)).toFixed(2)} -> ${mark(fan <= TARGETS.fanOutOverChain)} (target at most x${TARGETS.fanOutOverChain})`);
    out.push(`   worker cold start ${c.compute.coldStartMs} ms (not in the per-task figures)`);
    out.push(`   Step Functions Standard: $${c.stepFunctionsUsdPerMillionTasks} per million tasks ($${c.stepFunctionsUsdPerMillionTasksRange.join('-')}); ${(c.stepFunctionsUsdPerMillionTasks / c.usdPerMillionTasks).toFixed(1)}x Airless`);
    out.push(`   MWAA mw1.small: $${c.mwaaSmallUsdPerMonth} a month before any task; Airless idle floor: $${c.fixedMonthly.totalUsd} a month (reconcile $${c.fixedMonthly.reconcileUsd}, ${8} pokers $${c.fixedMonthly.pokersUsd})`);
    out.push(`   One sensor wait (${c.sensorWait.misses} misses then success): ${c.sensorWait.total.wcu} WCU, ${c.sensorWait.total.rcu} RCU; each missed cycle ${c.sensorWait.perMissedCycle.wcu} WCU, ${c.sensorWait.perMissedCycle.rcu} RCU`);
  }
  if (r.scale) {
    const s = r.scale;
    out.push('');
    out.push('5. Scale: one run of N independent tasks, embedded runtime (time warp, tries in threads, maxActiveTasks 16)');
    out.push(table(['tasks', 'wall ms', 'peak RSS MB', 'RSS before the run MB', 'state'], s.runs.map((x) => [x.tasks, x.wallMs, x.peakRssMb, x.baseRssMb, x.state])));
    out.push(`   ${s.taskRatio}x the tasks took ${s.wallRatio}x the time -> ${mark(s.wallRatio <= TARGETS.scaleWallRatio)} (target at most ${TARGETS.scaleWallRatio}x)`);
  }
  if (r.ha) {
    const h = r.ha;
    out.push('');
    out.push('4. HA: one engine process vs three on one set of tables (DynamoDB Local, local-aws-sqs)');
    out.push(table(
      ['processes', 'tasks', 'wall ms', 'tasks/s', 'lost races', 'duplicates', 'failed messages'],
      h.rounds.map((x) => [x.processes, x.tasks, x.wallMs, x.tasksPerSec, x.lostRaces, x.duplicates, x.failedMessages]),
    ));
    out.push(`   duplicates ${mark(h.duplicates === 0)} (must be 0); three at least as fast as one: ${mark(h.threeProcessTasksPerSec >= h.oneProcessTasksPerSec)}`);
  }
  if (r.mapping) out.push('', formatMapping(r.mapping));
  if (r.backfill) out.push('', formatBackfill(r.backfill));
  if (r.idle) {
    out.push('', `Idle: a month with nothing running (${r.idle.dags} DAGs registered, none due; list prices, no free tier) -> ${mark(r.idle.usdPerMonth <= TARGETS.idleUsdPerMonth)} (target <= $${TARGETS.idleUsdPerMonth.toFixed(2)})`);
    out.push(formatIdleBill(r.idle));
  }
  if (r.innerLoop) out.push('', formatInnerLoop(r.innerLoop));
  if (r.jobs) out.push('', formatJobs(r.jobs));
  out.push('');
  out.push(`done in ${(r.durationMs / 1000).toFixed(1)} s`);
  return out.join('\n');
}
