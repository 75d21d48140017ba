import { describe, expect, it } from 'vitest';
import { TRIGGER_RULES, type TriggerRule } from '../../../lib/engine/index.js';
import type { UpstreamOutcome } from '../../../lib/engine/index.js';
import { evaluateTriggerRule } from '../../../lib/engine/index.js';
import type { VirtualClock } from '../../../lib/adapters/clock.js';
import { dag } from '../../../lib/sdk/index.js';
import { airflowDecision, type RefOutcome } from '../../helpers/airflow-reference.js';
import { makeRuntime, runOnce } from '../../helpers/runtime.js';

const OUTCOMES: readonly (RefOutcome | undefined)[] = ['success', 'failed', 'skipped', 'upstream_failed', undefined];

function combos(n: number): (RefOutcome | undefined)[][] {
  if (n === 0) return [[]];
  return combos(n - 1).flatMap((rest) => OUTCOMES.map((o) => [o, ...rest]));
}

function engineDecision(rule: TriggerRule, outcomes: readonly (RefOutcome | undefined)[]) {
  const ids = outcomes.map((_, i) => `u${i}`);
  const recorded: Record<string, UpstreamOutcome> = {};
  outcomes.forEach((o, i) => { if (o) recorded[ids[i]] = o; });
  return evaluateTriggerRule(rule, ids, recorded);
}

describe('trigger rules: truth table against Airflow TriggerRuleDep', () => {
  // all_done_setup_success depends on which upstreams are setups: its own table is in engine-flow-setup-teardown.test.ts.
  for (const rule of TRIGGER_RULES.filter((r) => r !== 'all_done_setup_success')) {
    it(`${rule} over every combination of 1 to 3 upstreams`, () => {
      const mismatches: string[] = [];
      let checked = 0;
      for (const n of [1, 2, 3]) {
        for (const c of combos(n)) {
          checked++;
          const got = engineDecision(rule, c);
          const want = airflowDecision(rule, c);
          if (got !== want) mismatches.push(`[${c.map((o) => o ?? 'not_done').join(', ')}]: engine ${got}, airflow ${want}`);
        }
      }
      expect(checked).toBe(5 + 25 + 125);
      expect(mismatches).toEqual([]);
    });
  }

  it('spot checks written out by hand', () => {
    const cases: [TriggerRule, (RefOutcome | undefined)[], string][] = [
      ['all_success', ['success', undefined], 'wait'],
      ['all_success', ['failed', undefined], 'upstream_failed'],
      ['all_success', ['skipped', undefined], 'skip'],
      ['all_success', ['skipped', 'upstream_failed'], 'upstream_failed'],
      ['all_failed', ['failed', 'upstream_failed'], 'run'],
      ['all_failed', ['failed', undefined], 'wait'],
      ['all_failed', ['success', undefined], 'skip'],
      ['all_done', ['failed', 'skipped', 'upstream_failed'], 'run'],
      ['all_done', ['failed', undefined], 'wait'],
      ['all_skipped', ['skipped', 'skipped'], 'run'],
      ['all_skipped', ['upstream_failed', undefined], 'skip'],
      ['one_success', ['success', undefined], 'run'],
      ['one_success', ['skipped', 'skipped'], 'skip'],
      ['one_success', ['skipped', 'failed'], 'upstream_failed'],
      ['one_failed', ['upstream_failed', undefined], 'run'],
      ['one_failed', ['success', 'skipped'], 'skip'],
      ['one_done', ['failed', undefined], 'run'],
      ['one_done', ['upstream_failed', 'skipped'], 'skip'],
      ['one_done', ['upstream_failed', 'upstream_failed'], 'skip'],
      ['none_failed', ['skipped', 'success'], 'run'],
      ['none_failed', ['skipped', 'skipped'], 'run'],
      ['none_failed', ['upstream_failed', undefined], 'upstream_failed'],
      ['none_failed_min_one_success', ['skipped', 'skipped'], 'skip'],
      ['none_failed_min_one_success', ['skipped', 'success'], 'run'],
      ['none_failed_min_one_success', ['skipped', undefined], 'wait'],
      ['none_skipped', ['failed', 'upstream_failed'], 'run'],
      ['none_skipped', ['skipped', undefined], 'skip'],
      ['always', [undefined, undefined], 'run'],
    ];
    for (const [rule, outcomes, want] of cases) {
      expect({ rule, outcomes, d: engineDecision(rule, outcomes) }).toEqual({ rule, outcomes, d: want });
    }
  });

  it('a branch that did not choose the task skips it whatever the rule', () => {
    for (const rule of TRIGGER_RULES) {
      expect(evaluateTriggerRule(rule, ['b', 'x'], { b: 'branch_skipped' })).toBe('skip');
    }
  });

  it('a task without upstreams runs', () => {
    for (const rule of TRIGGER_RULES) expect(evaluateTriggerRule(rule, [], {})).toBe('run');
  });
});

describe('trigger rules end to end', () => {
  it('upstream_failed propagates through several levels and stops at all_done / one_failed', async () => {
    const ran: string[] = [];
    const body = (id: string) => async () => { ran.push(id); return id; };
    const d = dag('uf', {}, ({ task }) => {
      const a = task('a', async () => { ran.push('a'); throw new Error('a broke'); });
      const b = task('b', body('b'));
      const c = task('c', body('c'));
      const e = task('e', body('e'), { triggerRule: 'none_failed' });
      const cleanup = task('cleanup', body('cleanup'), { triggerRule: 'all_done' });
      const alert = task('alert', body('alert'), { triggerRule: 'one_failed' });
      const after = task('after', body('after'));
      a.before(b).before(c).before(e).before(cleanup).before(after);
      c.before(alert);
    });
    const { rt } = await makeRuntime([d]);
    const r = await runOnce(rt, 'uf');
    expect(r.outcome).toBe('done');
    expect(r.states).toEqual({
      a: 'failed', b: 'upstream_failed', c: 'upstream_failed', e: 'upstream_failed',
      cleanup: 'success', alert: 'success', after: 'success',
    });
    expect(ran.sort()).toEqual(['a', 'after', 'alert', 'cleanup']);
    // Leaves: after (success), alert (success): Airflow's run state comes from the leaves.
    expect(r.run.state).toBe('success');
  });

  it('skips propagate through several levels; none_failed runs after skips; all_skipped runs', async () => {
    const ran: string[] = [];
    const d = dag('sk', {}, ({ task }) => {
      const s = task('s', (ctx) => ctx.skip('nothing to do'));
      const t = task('t', () => { ran.push('t'); });
      const u = task('u', () => { ran.push('u'); });
      const v = task('v', () => { ran.push('v'); }, { triggerRule: 'none_failed' });
      const w = task('w', () => { ran.push('w'); }, { triggerRule: 'all_skipped' });
      const ok = task('ok', () => { ran.push('ok'); });
      const join = task('join', () => { ran.push('join'); }, { triggerRule: 'one_success' });
      s.before(t).before(u).before(v);
      u.before(w);
      [u, ok].forEach((x) => x.before(join));
    });
    const { rt } = await makeRuntime([d]);
    const r = await runOnce(rt, 'sk');
    expect(r.states).toEqual({
      s: 'skipped', t: 'skipped', u: 'skipped', v: 'success', w: 'success', ok: 'success', join: 'success',
    });
    expect(ran.sort()).toEqual(['join', 'ok', 'v', 'w']);
    expect(r.run.state).toBe('success');
  });

  it('a failed leaf fails the run; a leaf upstream-failed three levels down fails it too', async () => {
    const d = dag('leaf', {}, ({ task }) => {
      const a = task('a', () => { throw new Error('x'); });
      a.before(task('b', () => 1)).before(task('c', () => 1)).before(task('d', () => 1));
    });
    const { rt } = await makeRuntime([d]);
    const r = await runOnce(rt, 'leaf');
    expect(r.states).toEqual({ a: 'failed', b: 'upstream_failed', c: 'upstream_failed', d: 'upstream_failed' });
    expect(r.run.state).toBe('failed');
  });

  it('an always task runs when the run starts, without waiting for its upstream', async () => {
    const holder: { clock?: VirtualClock } = {};
    const d = dag('alw', {}, ({ task }) => {
      const slow = task('slow', async () => { await holder.clock!.sleep(10 * 60_000); throw new Error('late failure'); });
      const watch = task('watch', () => 'watching', { triggerRule: 'always' });
      const next = task('next', () => 1, { triggerRule: 'all_done' });
      slow.before(watch).before(next);
    });
    const { rt, clock } = await makeRuntime([d]);
    holder.clock = clock;
    const t0 = clock.now();
    const r = await runOnce(rt, 'alw');
    expect(r.states).toEqual({ slow: 'failed', watch: 'success', next: 'success' });
    expect(r.tasks.watch.endedAt).toBe(t0);
    expect(r.tasks.slow.endedAt).toBe(t0 + 10 * 60_000);
    expect(r.tasks.watch.upstream).toEqual({ slow: 'failed' });
    expect(r.run.state).toBe('success');
  });
});
