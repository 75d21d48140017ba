/**
 * Batched sensors (AIP-17): one poke per distinct target per cycle, however many tasks
 * wait on it and however many pokers run; shards partition the targets.
 */
import { describe, expect, it } from 'vitest';
import { pokeShard } from '../../../lib/engine/index.js';
import { sensorHash, VIRTUAL_SHARDS } from '../../../lib/engine/index.js';
import type { TriggerRecord } from '../../../lib/engine/index.js';
import { dag } from '../../../lib/sdk/index.js';
import { makeRuntime, T0 } from '../../helpers/runtime.js';
import { onDynamo } from '../../helpers/stores.js';
import { countingSensor, lateClock, MIN, pokeCycle } from '../../helpers/waiting.js';

const TARGETS = 100;
/** 10 runs on memory; 3 on DynamoDB Local, where each sensor costs real writes (same targets, same dedup). */
const RUNS = onDynamo ? 3 : 10;
const SENSORS = TARGETS * RUNS;

/** 100 sensor tasks (one per target) x 10 runs = 1,000 waiting sensors over 100 targets (300 on DynamoDB). */
async function thousandSensors() {
  const clock = lateClock();
  const probe = countingSensor('probe', clock);
  const d = dag('many', { maxActiveRuns: RUNS }, ({ sensor }) => {
    for (let i = 0; i < TARGETS; i++) sensor(`s${i}`, { type: probe.def, pokeContext: { target: `t${i}` } }, { timeout: '1d' });
  });
  const made = await makeRuntime([d]);
  clock.set(made.clock);
  const runIds: string[] = [];
  for (let r = 0; r < RUNS; r++) {
    const run = await made.rt.trigger('many', { runId: `r${r}`, logicalDate: T0 + r * 86_400_000 });
    runIds.push(run.runId);
  }
  const triggers = async (): Promise<TriggerRecord[]> => {
    const all: TriggerRecord[] = [];
    for (let v = 0; v < VIRTUAL_SHARDS; v++) all.push(...(await made.rt.ports.store.listSensorTriggers(v, Number.MAX_SAFE_INTEGER)));
    return all;
  };
  const states = async (target: number) =>
    Promise.all(runIds.map(async (runId) => (await made.rt.ports.store.getTask({ dagId: 'many', runId, taskId: `s${target}` }))!.state));
  return { ...made, probe, runIds, triggers, states };
}

describe('batched poker', () => {
  it('pokes 100 distinct targets once for 1,000 waiting sensors and settles each waiter in the cycle its target turns true', async () => {
    const { rt, clock, probe, triggers, states } = await thousandSensors();
    expect(await triggers()).toHaveLength(SENSORS);
    expect(rt.metrics.get('SensorsRegistered')).toBe(SENSORS);

    const first = await pokeCycle(rt, 8, 1);
    expect(probe.count()).toBe(100);
    expect(new Set(probe.pokes.map((p) => p.target)).size).toBe(100);
    expect(first.reduce((n, r) => n + r.pokes, 0)).toBe(100);
    expect(first.reduce((n, r) => n + r.sensors, 0)).toBe(SENSORS);
    expect(first.reduce((n, r) => n + r.settled, 0)).toBe(0);
    expect(rt.metrics.get('Pokes')).toBe(100);
    expect(rt.metrics.get('DistinctTargetsPoked')).toBe(100);
    expect(rt.metrics.get('SensorsWaiting')).toBe(SENSORS);

    // Targets 0..9 turn true: their 10 waiters each settle in the next cycle, nobody else.
    for (let i = 0; i < 10; i++) probe.truthy.add(`t${i}`);
    clock.advanceBy(MIN);
    const second = await pokeCycle(rt, 8, 2);
    expect(probe.count()).toBe(200);
    expect(second.reduce((n, r) => n + r.settled, 0)).toBe(10 * RUNS);
    for (let i = 0; i < 10; i++) expect(await states(i)).toEqual(Array(RUNS).fill('success'));
    expect(await states(10)).toEqual(Array(RUNS).fill('sensing'));
    expect(await triggers()).toHaveLength(90 * RUNS);

    // A third cycle pokes only the 90 targets still waited on.
    clock.advanceBy(MIN);
    await pokeCycle(rt, 8, 3);
    expect(probe.count()).toBe(290);
  });

  it('puts duplicates on one shard and every sensor on exactly one poker for 1, 3 and 8 shards', async () => {
    const { triggers } = await thousandSensors();
    const all = await triggers();
    const shardOf = new Map<string, number>();
    for (const t of all) {
      expect(t).toMatchObject(sensorHash('probe', t.pokeContext));
      const seen = shardOf.get(t.hashcode!);
      if (seen !== undefined) expect(t.shardcode).toBe(seen);
      shardOf.set(t.hashcode!, t.shardcode!);
    }
    expect(shardOf.size).toBe(100);
    for (const n of [1, 3, 8]) {
      const owners = new Map<string, number[]>();
      for (let i = 0; i < n; i++) {
        for (const t of all.filter((x) => x.shardcode! % n === i)) owners.set(t.id, [...(owners.get(t.id) ?? []), i]);
      }
      expect(owners.size).toBe(SENSORS);
      expect([...owners.values()].every((o) => o.length === 1)).toBe(true);
    }
    // The same poke context rendered with keys in another order is the same target.
    expect(sensorHash('probe', { a: 1, b: [2] })).toEqual(sensorHash('probe', { b: [2], a: 1 }));
    expect(sensorHash('probe', { a: 1 }).hashcode).not.toBe(sensorHash('other', { a: 1 }).hashcode);
  });

  it('never strands or double-pokes a target when the shard count changes between or within cycles', async () => {
    const { rt, clock, probe } = await thousandSensors();
    const perCycle: number[] = [];
    let before = 0;
    for (const [cycle, n] of [[1, 1], [2, 3], [3, 8], [4, 3]] as const) {
      if (cycle > 1) clock.advanceBy(MIN);
      await pokeCycle(rt, n, cycle);
      perCycle.push(probe.count() - before);
      before = probe.count();
    }
    expect(perCycle).toEqual([100, 100, 100, 100]);
    // Each target exactly once per cycle.
    for (let i = 0; i < TARGETS; i++) expect(probe.count(`t${i}`)).toBe(4);

    // Mid-reconfiguration: pokers of the old layout (3) and of the new one (8) both run cycle 5.
    clock.advanceBy(MIN);
    await Promise.all([pokeCycle(rt, 3, 5), pokeCycle(rt, 8, 5)]);
    expect(probe.count()).toBe(500);
    // A late poker of an already-finished cycle pokes nothing, even once targets are due.
    clock.advanceBy(MIN);
    const late = await pokeCycle(rt, 8, 4);
    expect(late.reduce((n, r) => n + r.pokes, 0)).toBe(0);
    expect(probe.count()).toBe(500);
  });

  it('concurrent pokers on the same shard and cycle poke each target once', async () => {
    const { rt, probe, states } = await thousandSensors();
    probe.truthy.add('t7');
    const [a, b] = await Promise.all([pokeShard(rt.ports, 0, { shards: 1, cycle: 9 }), pokeShard(rt.ports, 0, { shards: 1, cycle: 9 })]);
    expect(probe.count()).toBe(100);
    for (let i = 0; i < TARGETS; i++) expect(probe.count(`t${i}`)).toBe(1);
    expect(a.pokes + b.pokes).toBe(100);
    expect(a.settled + b.settled).toBe(RUNS);
    expect(await states(7)).toEqual(Array(RUNS).fill('success'));
    expect(rt.metrics.get('TaskSucceeded')).toBe(RUNS);
  });

  it('a target not yet due is not poked; a due duplicate makes the whole group due', async () => {
    const { rt, clock, probe } = await thousandSensors();
    // Cycles every second (so the 60 s interval is longer than a cycle and is written).
    await pokeCycle(rt, 8, 1, 1_000);
    expect(probe.count()).toBe(100);
    // Default pokeInterval 60 s: at +59 s nothing is due, at +60 s everything is.
    clock.advanceBy(59_000);
    await pokeCycle(rt, 8, 2, 1_000);
    expect(probe.count()).toBe(100);
    clock.advanceBy(1_000);
    await pokeCycle(rt, 8, 3, 1_000);
    expect(probe.count()).toBe(200);
  });

  it('a sensor poked every cycle costs no write per waiter when its target is not ready', async () => {
    const { rt, clock, probe } = await thousandSensors();
    const updates: string[] = [];
    const store = rt.ports.store;
    const updateTrigger = store.updateTrigger.bind(store);
    store.updateTrigger = async (id, patch) => { updates.push(id); return updateTrigger(id, patch); };
    await pokeCycle(rt, 8, 1);
    clock.advanceBy(60_000);
    await pokeCycle(rt, 8, 2);
    expect(probe.count()).toBe(200);
    expect(updates).toEqual([]);
  });
});
