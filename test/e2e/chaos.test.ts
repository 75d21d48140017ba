/**
 * The short chaos run in `npm test`: three real engine processes on DynamoDB Local and
 * one local-aws-sqs queue, duplicated sends and two SIGKILLs; every invariant must hold.
 * The long run is `npm run chaos -- --runs 200 --json`.
 */
import { rmSync } from 'node:fs';
import { describe, expect, inject, it } from 'vitest';
import { runChaos } from '../chaos/chaos.js';
import { checkAll, parseLog } from '../chaos/checks.js';
import type { DagSpec } from '../../lib/engine/index.js';

const endpoint = inject('dynamodbEndpoint');

describe('chaos: 3 processes, duplicate deliveries, SIGKILLs', () => {
  const title = endpoint ? 'finishes every run with no violation' : 'SKIPPED: DynamoDB Local is unavailable (allowed outside CI only)';
  it.skipIf(!endpoint)(title, async () => {
    const lines: string[] = [];
    const report = await runChaos({ runs: 12, processes: 3, kills: 2, killEveryMs: 2_500, seed: 7, dynamodbEndpoint: endpoint, progress: (l) => lines.push(l) });
    const failed = report.checks.filter((c) => c.violations.length > 0);
    expect(failed, JSON.stringify(failed, null, 2)).toEqual([]);
    expect(report.violations).toBe(0);
    expect((report.runStates.success ?? 0) + (report.runStates.failed ?? 0)).toBe(12 + report.backfillRuns);
    // The backfill the children advanced while crashing: every run created once, never more than 2 at once (a check), completed.
    expect(report.backfillRuns).toBe(6);
    expect(report.backfill).toEqual({ completed: true, active: 0, created: 6, total: 6 });
    expect(report.kills).toBe(2);
    expect(report.duplicateDeliveries).toBeGreaterThan(0);
    expect(report.triesExecuted).toBeGreaterThanOrEqual(report.tasks - 12);
    expect(report.pokes).toBeGreaterThan(0);
    rmSync(report.workDir, { recursive: true, force: true });
  }, 120_000);
});

describe('chaos checks catch what they claim to catch', () => {
  const spec = { dagId: 'd', tasks: [{ taskId: 'a', downstream: [] }] } as unknown as DagSpec;
  const base = {
    expectedRuns: ['d/r1'],
    runs: [{ dagId: 'd', runId: 'r1', state: 'success' }] as never[],
    tasks: [{ dagId: 'd', runId: 'r1', taskId: 'a', state: 'success', tryNumber: 1, upstream: {} }] as never[],
    specs: new Map([['d', spec]]),
    log: [],
  };
  const count = (e: Parameters<typeof checkAll>[0]) => checkAll(e).reduce((n, c) => n + c.violations.length, 0);

  it('passes clean evidence', () => {
    expect(count(base)).toBe(0);
  });

  it('flags a try executed twice and a target poked twice in one cycle', () => {
    const { lines } = parseLog([
      '{"kind":"task","run":"d/r1","task":"a","try":1,"method":"execute","pid":"p0"}',
      '{"kind":"task","run":"d/r1","task":"a","try":1,"method":"execute","pid":"p1"}',
      '{"kind":"poke","target":"g0@1","cycle":9,"pid":"p0"}',
      '{"kind":"poke","target":"g0@1","cycle":9,"pid":"p2"}',
      '{"kind":"poke","target":"g0@1","cycle":10,"pid":"p2"}',
    ].join('\n'));
    expect(count({ ...base, log: lines })).toBe(2);
  });

  it('flags a duplicate run, a stuck task and a run state its tasks contradict', () => {
    const dupRun = { ...base, runs: [...base.runs, ...base.runs] };
    expect(checkAll(dupRun).find((c) => c.name === 'each run created once')!.violations.length).toBeGreaterThan(0);
    const stuck = { ...base, tasks: [{ ...(base.tasks[0] as object), state: 'running' }] as never[] };
    const names = checkAll(stuck).filter((c) => c.violations.length).map((c) => c.name);
    expect(names).toEqual(['no task left non-terminal', 'run state matches its tasks']);
    const wrong = { ...base, runs: [{ dagId: 'd', runId: 'r1', state: 'failed' }] as never[] };
    expect(checkAll(wrong).find((c) => c.name === 'run state matches its tasks')!.violations).toHaveLength(1);
  });

  it("flags a backfill's runs overlapping beyond its max-active-runs (by the evidence log's order)", () => {
    const line = (run: string, task: string) => `{"kind":"task","run":"b/${run}","task":"${task}","try":1,"method":"execute","pid":"p0"}`;
    // r1 and r2 overlap, then r3 starts before r2's last line: at most 2 at once.
    const two = parseLog([line('r1', 'x'), line('r2', 'x'), line('r1', 'y'), line('r3', 'x'), line('r2', 'y'), line('r3', 'y')].join('\n')).lines;
    const backfills = [{ dagId: 'b', maxActiveRuns: 2 }];
    const name = 'a backfill never runs more than its max-active-runs at once';
    expect(checkAll({ ...base, log: two, backfills }).find((c) => c.name === name)!.violations).toEqual([]);
    expect(checkAll({ ...base, log: two, backfills: [{ dagId: 'b', maxActiveRuns: 1 }] }).find((c) => c.name === name)!.violations).toEqual([
      '2 runs of the backfill of b ran at once (evidence line 2), its max is 1',
    ]);
    const three = parseLog([line('r1', 'x'), line('r2', 'x'), line('r3', 'x'), line('r1', 'y'), line('r2', 'y'), line('r3', 'y')].join('\n')).lines;
    expect(checkAll({ ...base, log: three, backfills }).find((c) => c.name === name)!.violations).toHaveLength(1);
  });
});
