/**
 * Deferrable tasks (AIP-40) on the embedded runtime: resume with kwargs and the event,
 * deferral timeouts, duplicate and stale fires, and a timer lost in a crash.
 */
import { describe, expect, it } from 'vitest';
import { handleMessage } from '../../../lib/engine/index.js';
import type { FireMessage, QueueMessage } from '../../../lib/engine/index.js';
import { DEFAULT_CONFIG } from '../../../lib/engine/index.js';
import { dag } from '../../../lib/sdk/index.js';
import { makeRuntime, runOnce, T0 } from '../../helpers/runtime.js';
import { countingSensor, crashOnceStore, lateClock, lossyTimer, MIN } from '../../helpers/waiting.js';
import { pokeShard } from '../../../lib/engine/index.js';
import { reconcile } from '../../../lib/engine/index.js';

describe('deferral', () => {
  it('resumes the named method with { kwargs, event } after 10 virtual minutes, holding no worker meanwhile', async () => {
    const clock = lateClock();
    const calls: Array<{ method: string; at: number; input?: any }> = [];
    const d = dag('d', {}, ({ task }) => {
      task('t', {
        execute: (ctx) => {
          calls.push({ method: 'execute', at: clock.now() });
          return ctx.defer({ trigger: { after: '10m' }, resume: 'check', kwargs: { jobId: 'j-1', n: 2 } });
        },
        check: (_ctx, input) => {
          calls.push({ method: 'check', at: clock.now(), input });
          return input.kwargs.n * 21;
        },
      });
    });
    const made = await makeRuntime([d]);
    clock.set(made.clock);
    const run = await made.rt.trigger('d');
    const states: string[] = [];
    await made.rt.runUntil(async () => {
      states.push((await made.rt.ports.store.getTask({ dagId: 'd', runId: run.runId, taskId: 't' }))!.state);
      return (await made.rt.ports.store.getRun('d', run.runId))!.state === 'success';
    });
    expect(calls.map((c) => [c.method, (c.at - T0) / MIN])).toEqual([['execute', 0], ['check', 10]]);
    expect(calls[1].input).toEqual({
      kwargs: { jobId: 'j-1', n: 2 },
      event: { payload: undefined, firedAt: new Date(T0 + 10 * MIN).toISOString(), key: undefined, reason: 'trigger' },
    });
    expect(states).toContain('deferred');
    expect(states).not.toContain('running');
    expect(await made.rt.ports.store.getXcom({ dagId: 'd', runId: run.runId, taskId: 't', key: 'return_value' })).toBe(42);
    expect(made.rt.metrics.get('TasksDeferred')).toBe(1);
    expect(made.rt.metrics.get('TriggersFired')).toBe(1);
    expect(made.rt.metrics.get('TimersRecovered')).toBe(0);
  });

  it('a deferral timeout fails the try, or retries it while retries remain', async () => {
    const clock = lateClock();
    const tries: number[] = [];
    const d = dag('to', {}, ({ task }) => {
      task('t', {
        execute: (ctx) => {
          tries.push(clock.now());
          return ctx.defer({ trigger: { after: '1h' }, resume: 'never', timeout: '10m' });
        },
        never: () => { throw new Error('must not resume'); },
      }, { retries: 1, retryDelay: '5m' });
    });
    const made = await makeRuntime([d]);
    clock.set(made.clock);
    const r = await runOnce(made.rt, 'to');
    expect(r.tasks.t.state).toBe('failed');
    expect(r.tasks.t.tryNumber).toBe(2);
    expect(r.tasks.t.error).toMatch(/deferral timed out/);
    // try 1 defers at 0 and times out at 10; the retry starts at 15 and times out at 25.
    expect(tries.map((t) => (t - T0) / MIN)).toEqual([0, 15]);
    expect(r.tasks.t.endedAt).toBe(T0 + 25 * MIN);
    expect(made.rt.metrics.get('TriggersFired')).toBe(0);
  });

  it('a retry after a failed resume starts over from execute, not from the resume method', async () => {
    const clock = lateClock();
    const calls: string[] = [];
    const d = dag('rs', {}, ({ task }) => {
      task('t', {
        execute: (ctx) => { calls.push(`execute#${ctx.tryNumber}`); return ctx.defer({ trigger: { after: '10m' }, resume: 'check', kwargs: { try: ctx.tryNumber } }); },
        check: (ctx, input) => {
          calls.push(`check#${ctx.tryNumber}`);
          if (input.kwargs.try === 1) throw new Error('job failed');
          return 'ok';
        },
      }, { retries: 1, retryDelay: '1m' });
    });
    const made = await makeRuntime([d]);
    clock.set(made.clock);
    const r = await runOnce(made.rt, 'rs');
    expect(calls).toEqual(['execute#1', 'check#1', 'execute#2', 'check#2']);
    expect(r.tasks.t.state).toBe('success');
  });

  it('a trigger that fires twice resumes once', async () => {
    const clock = lateClock();
    let resumed = 0;
    const d = dag('dup', {}, ({ task }) => {
      task('t', {
        execute: (ctx) => ctx.defer({ trigger: { after: '10m' }, resume: 'go' }),
        go: () => { resumed++; return 'ok'; },
      }).before(task('later', { execute: (ctx) => ctx.defer({ trigger: { after: '5m' }, resume: 'done' }), done: () => 1 }));
    });
    const made = await makeRuntime([d], { concurrency: 4 });
    clock.set(made.clock);
    // Every deferral timer is delivered twice at its time (at-least-once delivery), and once more 1m later.
    const inner = made.rt.timer;
    const fires: QueueMessage[] = [];
    made.rt.ports.timer = {
      schedule: async (id, at, m) => {
        if (id.startsWith('defer-') && (m as FireMessage).taskId === 't') {
          fires.push(m);
          await inner.schedule(`${id}-dup`, at, m);
          await inner.schedule(`${id}-late`, at + MIN, m);
        }
        return inner.schedule(id, at, m);
      },
    };
    const r = await runOnce(made.rt, 'dup');
    expect(r.states).toEqual({ t: 'success', later: 'success' });
    expect(fires).toHaveLength(1);
    expect(resumed).toBe(1);
    expect(made.rt.metrics.get('TriggersFired')).toBe(2);
    // The duplicate lost (a stale fire or a lost race); the late one found the task finished.
    expect(made.rt.metrics.get('StaleFires') + made.rt.metrics.get('LostRaces')).toBeGreaterThanOrEqual(2);
  });

  it('a stale fire of an earlier deferral of the same try does not resume a later deferral', async () => {
    const clock = lateClock();
    const at: Record<string, number> = {};
    const d = dag('stale', {}, ({ task }) => {
      task('t', {
        execute: (ctx) => ctx.defer({ trigger: { after: '10m' }, resume: 'step2' }),
        step2: (ctx) => { at.step2 = clock.now(); return ctx.defer({ trigger: { after: '10m' }, resume: 'step3' }); },
        step3: () => { at.step3 = clock.now(); return 3; },
      });
    });
    const made = await makeRuntime([d]);
    clock.set(made.clock);
    const inner = made.rt.timer;
    let first: FireMessage | undefined;
    made.rt.ports.timer = {
      schedule: async (id, when, m) => {
        if (!first && id.startsWith('defer-')) {
          first = m as FireMessage;
          // Re-delivered 15 minutes in, while the task waits in its second deferral.
          await inner.schedule('replay-first', T0 + 15 * MIN, m);
        }
        return inner.schedule(id, when, m);
      },
    };
    const r = await runOnce(made.rt, 'stale');
    expect(first?.token).toBeTypeOf('string');
    expect(r.tasks.t.state).toBe('success');
    expect(r.tasks.t.tryNumber).toBe(1);
    expect((at.step2 - T0) / MIN).toBe(10);
    expect((at.step3 - T0) / MIN).toBe(20);
    expect(made.rt.metrics.get('StaleFires')).toBe(1);
    expect(made.rt.metrics.get('TriggersFired')).toBe(2);
  });
});

describe('fire messages', () => {
  it('a resume needs the claim token of its deferral: without one it is malformed, with another it is stale', async () => {
    const d = dag('tok', {}, ({ task }) => {
      task('t', { execute: (ctx) => ctx.defer({ trigger: { after: '10m' }, resume: 'done' }), done: () => 'ok' });
    });
    const { rt } = await makeRuntime([d]);
    const run = await rt.trigger('tok');
    await rt.runUntil(async () => (await rt.ports.store.getTask({ dagId: 'tok', runId: run.runId, taskId: 't' }))?.state === 'deferred');
    const fire = { kind: 'fire', dagId: 'tok', runId: run.runId, taskId: 't', tryNumber: 1, reason: 'trigger' } as const;
    await expect(handleMessage(rt.ports, fire)).rejects.toThrow(/reason "trigger" needs field "token"/);
    await handleMessage(rt.ports, { ...fire, token: 'forged' });
    expect(rt.metrics.get('StaleFires')).toBe(1);
    expect((await rt.ports.store.getTask({ dagId: 'tok', runId: run.runId, taskId: 't' }))!.state).toBe('deferred');
    expect(await rt.runToCompletion('tok', run.runId)).toBe('done');
    expect((await rt.ports.store.getTask({ dagId: 'tok', runId: run.runId, taskId: 't' }))!.state).toBe('success');
  });
});

describe('crash recovery', () => {
  for (const mode of ['throw', 'drop'] as const) {
    it(`a timer lost between writing deferred and arming it (${mode}) is recovered by reconcile within TIMER_GRACE`, async () => {
      const clock = lateClock();
      let resumedAt: number | undefined;
      const d = dag('lost', {}, ({ task }) => {
        task('t', {
          execute: (ctx) => ctx.defer({ trigger: { after: '10m' }, resume: 'go' }),
          go: () => { resumedAt = clock.now(); },
        });
      });
      const made = await makeRuntime([d]);
      clock.set(made.clock);
      const lossy = lossyTimer(made.rt.timer, 'defer-', 1, mode);
      made.rt.ports.timer = lossy.timer;
      const r = await runOnce(made.rt, 'lost');
      expect(lossy.lost).toHaveLength(1);
      expect(r.tasks.t.state).toBe('success');
      expect(resumedAt).toBeGreaterThan(T0 + 10 * MIN);
      expect(resumedAt).toBeLessThanOrEqual(T0 + 10 * MIN + DEFAULT_CONFIG.timerGraceMs);
      expect(made.rt.metrics.get('TimersRecovered')).toBe(1);
    });
  }

  it('a crash between registering a sensor and writing sensing is recovered by reconcile', async () => {
    const clock = lateClock();
    const probe = countingSensor('probe', clock);
    probe.truthy.add('x');
    const d = dag('reg', {}, ({ sensor, task }) => {
      sensor('wait', { type: probe.def, pokeContext: { target: 'x' } }, { timeout: '1h' }).before(task('after', () => 1));
    });
    const made = await makeRuntime([d]);
    clock.set(made.clock);
    const crash = crashOnceStore(made.rt.ports.store, (patch) => patch.state === 'sensing');
    made.rt.ports.store = crash.store;
    await expect(made.rt.trigger('reg')).rejects.toThrow(/simulated crash/);
    expect(crash.crashed()).toBe(true);
    const run = (await made.rt.ports.store.listRuns('reg'))[0];
    const key = { dagId: 'reg', runId: run.runId, taskId: 'wait' };
    expect((await made.rt.ports.store.getTask(key))!.state).toBe('scheduled');
    const reg = await made.rt.ports.store.getTrigger(`reg/${run.runId}/wait`);
    expect(reg?.tryNumber).toBe(1);

    // A poke before the recovery finds the target true but keeps the registration.
    const early = await pokeShard(made.rt.ports, 0, { shards: 1, cycle: 0 });
    expect(early).toMatchObject({ pokes: 1, settled: 0 });
    expect(await made.rt.ports.store.getTrigger(`reg/${run.runId}/wait`)).toBeDefined();

    made.clock.advanceBy(MIN);
    const r = await made.rt.runToCompletion('reg', run.runId);
    expect(r).toBe('done');
    const ti = (await made.rt.ports.store.getTask(key))!;
    expect(ti.state).toBe('success');
    expect(ti.tryNumber).toBe(1);
    expect(ti.endedAt).toBe(T0 + MIN);
    expect((await made.rt.ports.store.getTask({ ...key, taskId: 'after' }))!.state).toBe('success');
    expect(probe.count()).toBe(2);
  });

  it('a registration left by an earlier try is replaced, not reused as a stale row', async () => {
    const clock = lateClock();
    const probe = countingSensor('probe', clock);
    const d = dag('old', {}, ({ sensor }) => {
      sensor('wait', { type: probe.def, pokeContext: { target: 'x' } }, { timeout: '1h' });
    });
    const made = await makeRuntime([d]);
    clock.set(made.clock);
    const run = await made.rt.trigger('old', { runId: 'r1' });
    // Simulate the leftover of try 0 that a crash kept: same id, older try.
    const id = 'old/r1/wait';
    const cur = (await made.rt.ports.store.getTrigger(id))!;
    await made.rt.ports.store.deleteTrigger(id);
    await made.rt.ports.store.putTrigger({ ...cur, tryNumber: 0 });
    const ti = (await made.rt.ports.store.getTask({ dagId: 'old', runId: run.runId, taskId: 'wait' }))!;
    await made.rt.ports.store.updateTask(ti, { state: 'sensing' }, { state: 'scheduled', tryNumber: 0 });
    made.clock.advanceBy(MIN);
    await reconcile(made.rt.ports);
    expect((await made.rt.ports.store.getTrigger(id))!.tryNumber).toBe(1);
    probe.truthy.add('x');
    await pokeShard(made.rt.ports, 0, { shards: 1, cycle: 5 });
    expect((await made.rt.ports.store.getTask(ti))!.state).toBe('success');
  });
});
