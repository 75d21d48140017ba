import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TRIGGER_RULES, type TriggerRule } from '../../../lib/engine/index.js';
import { dag } from '../../../lib/sdk/index.js';
import { airflowDecision, type RefOutcome } from '../../helpers/airflow-reference.js';
import { trackPeaks } from '../../helpers/observe.js';
import { makeRuntime, runOnce } from '../../helpers/runtime.js';
import { onDynamo } from '../../helpers/stores.js';

type TryOutcome = 'success' | 'fail' | 'skip';

interface Case {
  n: number;
  /** edges[i] lists the upstreams of task i (all lower indexes: the graph is acyclic). */
  upstream: number[][];
  rules: TriggerRule[];
  retries: number[];
  /** What try k (1-based) of each task does. */
  plans: TryOutcome[][];
  /** Often small enough to bind, so slot hand-over is exercised too. */
  maxActiveTasks: number;
}

const caseArb: fc.Arbitrary<Case> = fc.integer({ min: 1, max: 12 }).chain((n) =>
  fc.record({
    n: fc.constant(n),
    upstream: fc.tuple(...Array.from({ length: n }, (_, i) =>
      fc.subarray(Array.from({ length: i }, (_, j) => j)).map((ups) => (i > 0 && ups.length > 3 ? ups.slice(-3) : ups)))),
    rules: fc.array(fc.constantFrom(...TRIGGER_RULES.filter((r) => r !== 'all_done_setup_success')), { minLength: n, maxLength: n }),
    retries: fc.array(fc.integer({ min: 0, max: 2 }), { minLength: n, maxLength: n }),
    plans: fc.array(
      fc.array(fc.constantFrom<TryOutcome>('success', 'success', 'fail', 'skip'), { minLength: 3, maxLength: 3 }),
      { minLength: n, maxLength: n },
    ),
    maxActiveTasks: fc.integer({ min: 1, max: 16 }),
  }),
);

/** Final state of a task that runs: the first try that does not fail with retries left decides. */
function triesOf(plan: TryOutcome[], retries: number): { tries: number; state: RefOutcome } {
  for (let k = 1; k <= retries + 1; k++) {
    const o = plan[k - 1];
    if (o === 'success') return { tries: k, state: 'success' };
    if (o === 'skip') return { tries: k, state: 'skipped' };
    if (k === retries + 1) return { tries: k, state: 'failed' };
  }
  throw new Error('unreachable');
}

function permutations<T>(xs: readonly T[]): T[][] {
  if (xs.length <= 1) return [[...xs]];
  return xs.flatMap((x, i) => permutations([...xs.slice(0, i), ...xs.slice(i + 1)]).map((p) => [x, ...p]));
}

/**
 * The reference interpreter for one task: the decisions the rules allow, given its
 * upstreams' final states. A rule is applied as soon as it is decidable, as Airflow's
 * scheduler does, so the decision is taken at the first decidable prefix of the order in
 * which upstream outcomes arrive; any arrival order is possible, so all are allowed.
 * (Only `all_success` depends on the order: a skip seen before a failure skips the task.)
 */
function allowedDecisions(rule: TriggerRule, upstreamStates: readonly RefOutcome[]): Set<string> {
  const out = new Set<string>();
  for (const order of permutations(upstreamStates)) {
    let decided = airflowDecision(rule, order.map(() => undefined));
    for (let k = 1; decided === 'wait' && k <= order.length; k++) {
      decided = airflowDecision(rule, [...order.slice(0, k), ...order.slice(k).map(() => undefined)]);
    }
    if (decided === 'wait') throw new Error(`reference: ${rule} waits with every upstream done`);
    out.add(decided);
  }
  return out;
}

function buildDag(c: Case, executions: string[]) {
  return dag('prop', { maxActiveTasks: c.maxActiveTasks, defaultArgs: { retryDelay: '1m' } }, ({ task }) => {
    const handles = Array.from({ length: c.n }, (_, i) =>
      task(`t${i}`, (ctx) => {
        executions.push(`t${i}#${ctx.tryNumber}`);
        const o = c.plans[i][ctx.tryNumber - 1];
        if (o === 'fail') throw new Error(`planned failure of try ${ctx.tryNumber}`);
        if (o === 'skip') return ctx.skip('planned');
        return i;
      }, { triggerRule: c.rules[i], retries: c.retries[i] }));
    c.upstream.forEach((ups, i) => { for (const u of ups) handles[u].before(handles[i]); });
  });
}

describe('property: random DAGs and outcomes agree with a reference interpreter', () => {
  it('terminates, runs each try once, ends every task and the run as the rules say', async () => {
    await fc.assert(
      fc.asyncProperty(caseArb, fc.integer({ min: 1, max: 4 }), async (c, concurrency) => {
        const executions: string[] = [];
        const peaks = trackPeaks();
        const { rt } = await makeRuntime([buildDag(c, executions)], { concurrency, onEvent: peaks.onEvent });
        const r = await runOnce(rt, 'prop');
        expect(r.outcome).toBe('done');
        expect(peaks.maxActiveTasks).toBeLessThanOrEqual(c.maxActiveTasks);
        expect(r.run.activeTasks ?? 0).toBe(0);

        // No (task, try) executed twice.
        expect(new Set(executions).size).toBe(executions.length);

        const got = Array.from({ length: c.n }, (_, i) => r.states[`t${i}`] as RefOutcome);
        for (let i = 0; i < c.n; i++) {
          const allowed = allowedDecisions(c.rules[i], c.upstream[i].map((u) => got[u]));
          const ran = executions.filter((e) => e.startsWith(`t${i}#`)).sort();
          const where = { task: `t${i}`, rule: c.rules[i], upstream: c.upstream[i].map((u) => got[u]), allowed: [...allowed] };
          if (ran.length > 0) {
            const want = triesOf(c.plans[i], c.retries[i]);
            expect({ ...where, decided: 'run', state: got[i] }).toEqual({ ...where, decided: allowed.has('run') ? 'run' : 'not allowed', state: want.state });
            expect(ran).toEqual(Array.from({ length: want.tries }, (_, k) => `t${i}#${k + 1}`).sort());
          } else {
            const decided = got[i] === 'skipped' ? 'skip' : got[i];
            expect({ ...where, decided, allowed: allowed.has(decided) }).toEqual({ ...where, decided, allowed: true });
          }
        }

        const hasDownstream = new Set(c.upstream.flat());
        const leafFailed = got.some((s, i) => !hasDownstream.has(i) && (s === 'failed' || s === 'upstream_failed'));
        expect(r.run.state).toBe(leafFailed ? 'failed' : 'success');
      }),
      // PROP_RUNS / PROP_SEED widen the search locally; CI keeps the fixed seed. On DynamoDB
      // Local each case costs real requests: fewer samples, same seed.
      { numRuns: Number(process.env.PROP_RUNS ?? (onDynamo ? 15 : 100)), seed: Number(process.env.PROP_SEED ?? 20260101) },
    );
  });
});
