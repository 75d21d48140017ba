/**
 * shortCircuit as Airflow's ShortCircuitOperator: truthy proceeds; falsy skips everything
 * downstream whatever its trigger rule (ignoreDownstreamTriggerRules, the default) or only
 * the direct downstreams (false, the rest follow their rules); teardowns are never skipped
 * by it. Runs on both stores.
 */
import { describe, expect, it } from 'vitest';
import { dag } from '../../../lib/sdk/index.js';
import { makeRuntime, runOnce } from '../../helpers/runtime.js';

/** gate -> a -> b(all_done), and c -> b: b has an upstream outside the gate's reach. */
function gated(id: string, ignore: boolean | undefined, ran: string[]) {
  return dag(id, {}, ({ task, shortCircuit }) => {
    const body = (n: string) => () => { ran.push(n); return n; };
    const gate = shortCircuit('gate', (ctx) => ctx.conf.go !== false, ignore === undefined ? {} : { ignoreDownstreamTriggerRules: ignore });
    const a = task('a', body('a'));
    const b = task('b', body('b'), { triggerRule: 'all_done' });
    const c = task('c', body('c'));
    gate.before(a).before(b);
    c.before(b);
  });
}

describe('shortCircuit', () => {
  it('a truthy result lets everything downstream run, and is the gate\'s XCom', async () => {
    const ran: string[] = [];
    const { rt } = await makeRuntime([gated('sc1', undefined, ran)]);
    const r = await runOnce(rt, 'sc1', { conf: { go: true } });
    expect(r.states).toEqual({ gate: 'success', a: 'success', b: 'success', c: 'success' });
    expect(await rt.ports.store.getXcom({ dagId: 'sc1', runId: r.run.runId, taskId: 'gate', key: 'return_value' })).toBe(true);
  });

  it('falsy, by default: everything downstream is skipped, an all_done task included', async () => {
    const ran: string[] = [];
    const { rt } = await makeRuntime([gated('sc2', undefined, ran)]);
    const r = await runOnce(rt, 'sc2', { conf: { go: false } });
    expect(r.states).toEqual({ gate: 'success', a: 'skipped', b: 'skipped', c: 'success' });
    expect(ran.sort()).toEqual(['c']);
    expect(r.run.state).toBe('success');
  });

  it('falsy with ignoreDownstreamTriggerRules false: only direct downstreams are skipped; the rest follow their rules', async () => {
    const ran: string[] = [];
    const { rt } = await makeRuntime([gated('sc3', false, ran)]);
    const r = await runOnce(rt, 'sc3', { conf: { go: false } });
    expect(r.states).toEqual({ gate: 'success', a: 'skipped', b: 'success', c: 'success' });
    expect(ran.sort()).toEqual(['b', 'c']);
  });

  it('the issue example: gate.before(after_gate)', async () => {
    const ran: string[] = [];
    const d = dag('sc4', {}, ({ task, shortCircuit }) => {
      const gate = shortCircuit('gate', async (ctx) => ctx.conf.go !== false);
      gate.before(task('after_gate', async () => { ran.push('after_gate'); return 'ran'; }));
    });
    const { rt } = await makeRuntime([d]);
    expect((await runOnce(rt, 'sc4', { runId: 'go' })).states.after_gate).toBe('success');
    expect((await runOnce(rt, 'sc4', { runId: 'stop', conf: { go: false } })).states.after_gate).toBe('skipped');
    expect(ran).toEqual(['after_gate']);
  });

  it('a teardown below a falsy gate is not skipped by it: it runs when its setup succeeded', async () => {
    const ran: string[] = [];
    const d = dag('sc5', {}, ({ task, shortCircuit }) => {
      const body = (n: string) => () => { ran.push(n); return n; };
      const create = task('create', body('create'));
      const gate = shortCircuit('gate', () => 0);
      const work = task('work', body('work'));
      const drop = task('drop', body('drop')).asTeardown({ setups: create });
      create.before(gate).before(work).before(drop);
    });
    const { rt } = await makeRuntime([d]);
    const r = await runOnce(rt, 'sc5');
    expect(r.states).toEqual({ create: 'success', gate: 'success', work: 'skipped', drop: 'success' });
    expect(ran).toEqual(['create', 'drop']);
  });

  it('a crash after the falsy gate ended but before it passed its outcome on: reconcile skips all below it', async () => {
    const ran: string[] = [];
    const { rt } = await makeRuntime([gated('sc6', undefined, ran)], { tickMs: 60_000 });
    const run = await rt.trigger('sc6', { conf: { go: false } });
    // Take the gate's message, claim it and "crash" after writing its result.
    const ds = await rt.queue.receive(100, 15 * 60_000);
    const d = ds.find((x) => (x.message as { taskId?: string }).taskId === 'gate')!;
    for (const x of ds) if (x !== d) await rt.queue.release(x, 0);
    await rt.queue.ack(d);
    const key = { dagId: 'sc6', runId: run.runId, taskId: 'gate' };
    // A root has no item until the worker that takes its message creates it running (docs/adr/0020).
    expect((await rt.ports.store.putTask({ ...key, state: 'running', tryNumber: 1, upstream: {}, owner: 'dead' })).ok).toBe(true);
    await rt.ports.store.putXcom({ ...key, key: 'return_value' }, false);
    await rt.ports.store.updateTask(key, { state: 'running', tryNumber: 1 }, { state: 'success', endedAt: rt.clock.now() });
    expect(await rt.runToCompletion('sc6', run.runId)).toBe('done');
    const states = Object.fromEntries((await rt.ports.store.listTasks('sc6', run.runId)).map((t) => [t.taskId, t.state]));
    expect(states).toEqual({ gate: 'success', a: 'skipped', b: 'skipped', c: 'success' });
    expect(ran).toEqual(['c']);
  });
});
