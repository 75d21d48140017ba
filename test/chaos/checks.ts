/**
 * The invariants the chaos run proves, as pure functions over what it collected: the
 * runs and task instances in DynamoDB, the DAG specs and the evidence log the task
 * bodies and pokes wrote. Each returns violations as readable strings.
 */
import type { DagRun, DagSpec, TaskInstance } from '../../lib/engine/index.js';
import { decideRunState } from '../../lib/engine/index.js';
import { isRunTerminal, isTerminal } from '../../lib/engine/index.js';

export interface TaskLine {
  kind: 'task';
  run: string;
  task: string;
  try: number;
  method: string;
  pid: string;
}

export interface PokeLine {
  kind: 'poke';
  target: string;
  cycle: number;
  pid: string;
}

export type LogLine = TaskLine | PokeLine;

export interface Evidence {
  /** `dagId/runId` of every run the parent triggered. */
  expectedRuns: readonly string[];
  runs: readonly DagRun[];
  tasks: readonly TaskInstance[];
  specs: ReadonlyMap<string, DagSpec>;
  log: readonly LogLine[];
  /** Backfills the run made: their DAG and max-active-runs (the DAG runs nothing else). */
  backfills?: readonly { dagId: string; maxActiveRuns: number }[];
}

export interface CheckResult {
  name: string;
  violations: string[];
}

/**
 * Parses the evidence log; a torn or foreign line is itself a violation.
 *
 * @example
 * parseLog('{"kind":"poke","target":"g0@1","cycle":5,"pid":"p0"}\n').lines.length; // 1
 */
export function parseLog(text: string): { lines: LogLine[]; bad: string[] } {
  const lines: LogLine[] = [];
  const bad: string[] = [];
  for (const raw of text.split('\n')) {
    if (!raw) continue;
    try {
      const v = JSON.parse(raw) as LogLine;
      if (v.kind === 'task' || v.kind === 'poke') lines.push(v);
      else bad.push(raw);
    } catch {
      bad.push(raw);
    }
  }
  return { lines, bad };
}

const runKey = (r: { dagId: string; runId: string }) => `${r.dagId}/${r.runId}`;

/**
 * Every invariant over the evidence.
 *
 * @example
 * const results = checkAll(evidence);
 * const total = results.reduce((n, r) => n + r.violations.length, 0);
 */
export function checkAll(e: Evidence): CheckResult[] {
  return [
    { name: 'every run terminal', violations: runsTerminal(e) },
    { name: 'each run created once', violations: runsOnce(e) },
    { name: 'each (run, task, try, method) executed at most once', violations: triesOnce(e.log) },
    { name: 'each sensor target poked at most once per cycle', violations: pokesOncePerCycle(e.log) },
    { name: 'no task left non-terminal', violations: tasksTerminal(e) },
    { name: 'run state matches its tasks', violations: runStatesConsistent(e) },
    { name: 'a backfill never runs more than its max-active-runs at once', violations: backfillConcurrency(e) },
  ];
}

function runsTerminal(e: Evidence): string[] {
  const byKey = new Map(e.runs.map((r) => [runKey(r), r]));
  const out: string[] = [];
  for (const k of e.expectedRuns) {
    const r = byKey.get(k);
    if (!r) out.push(`run ${k} does not exist`);
    else if (!isRunTerminal(r.state)) out.push(`run ${k} ended the test in state ${r.state}`);
  }
  return out;
}

function runsOnce(e: Evidence): string[] {
  const out: string[] = [];
  const seen = new Map<string, number>();
  for (const r of e.runs) seen.set(runKey(r), (seen.get(runKey(r)) ?? 0) + 1);
  for (const [k, n] of seen) if (n > 1) out.push(`run ${k} stored ${n} times`);
  const expected = new Set(e.expectedRuns);
  for (const k of seen.keys()) if (!expected.has(k)) out.push(`run ${k} was created but never triggered`);
  if (e.runs.length !== e.expectedRuns.length) out.push(`runs table holds ${e.runs.length} runs, ${e.expectedRuns.length} were triggered`);
  return out;
}

function triesOnce(log: readonly LogLine[]): string[] {
  const seen = new Map<string, string>();
  const out: string[] = [];
  for (const l of log) {
    if (l.kind !== 'task') continue;
    const k = `${l.run} ${l.task} try ${l.try} ${l.method}`;
    const prev = seen.get(k);
    if (prev !== undefined) out.push(`${k} executed twice (by ${prev} and ${l.pid})`);
    else seen.set(k, l.pid);
  }
  return out;
}

function pokesOncePerCycle(log: readonly LogLine[]): string[] {
  const seen = new Map<string, string>();
  const out: string[] = [];
  for (const l of log) {
    if (l.kind !== 'poke') continue;
    if (l.cycle < 0) {
      out.push(`poke of ${l.target} by ${l.pid} outside a poke cycle`);
      continue;
    }
    const k = `${l.target} cycle ${l.cycle}`;
    const prev = seen.get(k);
    if (prev !== undefined) out.push(`${k} poked twice (by ${prev} and ${l.pid})`);
    else seen.set(k, l.pid);
  }
  return out;
}

function tasksTerminal(e: Evidence): string[] {
  return e.tasks
    .filter((t) => !isTerminal(t.state))
    .map((t) => `task ${t.dagId}/${t.runId}/${t.taskId} left ${t.state} (try ${t.tryNumber})`);
}

function runStatesConsistent(e: Evidence): string[] {
  const byRun = new Map<string, TaskInstance[]>();
  for (const t of e.tasks) {
    const k = runKey(t);
    const list = byRun.get(k);
    if (list) list.push(t);
    else byRun.set(k, [t]);
  }
  const out: string[] = [];
  for (const r of e.runs) {
    const spec = e.specs.get(r.dagId);
    if (!spec) {
      out.push(`run ${runKey(r)} of unknown dag`);
      continue;
    }
    const decided = decideRunState(spec, byRun.get(runKey(r)) ?? []);
    if (decided !== r.state) out.push(`run ${runKey(r)} is ${r.state} but its tasks say ${decided}`);
  }
  return out;
}

/**
 * A run is running from the first evidence line of its tries to the last (the log is
 * appended in the order things happened, and a run, once running, runs until it ends):
 * where more of a backfill's runs' spans cover one line than its max-active-runs, that
 * many ran at once. Sound, not complete: runs that overlap between lines are not seen.
 */
function backfillConcurrency(e: Evidence): string[] {
  const out: string[] = [];
  for (const b of e.backfills ?? []) {
    const spans = new Map<string, [number, number]>();
    e.log.forEach((l, i) => {
      if (l.kind !== 'task' || !l.run.startsWith(`${b.dagId}/`)) return;
      const s = spans.get(l.run);
      spans.set(l.run, s ? [s[0], i] : [i, i]);
    });
    const ranges = [...spans.values()];
    let worst = 0;
    let at = -1;
    for (let i = 0; i < e.log.length; i++) {
      const n = ranges.filter(([a, z]) => a <= i && i <= z).length;
      if (n > worst) [worst, at] = [n, i];
    }
    if (worst > b.maxActiveRuns) out.push(`${worst} runs of the backfill of ${b.dagId} ran at once (evidence line ${at + 1}), its max is ${b.maxActiveRuns}`);
  }
  return out;
}
