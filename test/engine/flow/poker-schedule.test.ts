/**
 * Poker schedules that run only while sensors wait (lib/engine/flow/poker-schedule.ts,
 * docs/adr/0024-nothing-at-idle.md), on the memory store and on DynamoDB Local: the first
 * sensor of a shard enables that shard's poker only; an empty poker drains for a minute,
 * then disables itself; a registration racing the last settle is never left with its
 * poker off (forced interleavings, then real races); the tick repairs what a crash or a
 * deploy left.
 */
import { describe, expect, it } from 'vitest';
import { MemoryPokerSchedules, type PokerSwitch } from '../../../lib/adapters/memory/poker-schedules.js';
import { checkPokerSchedules, pokeShard, sensorHash, triggerRun, type Ports } from '../../../lib/engine/index.js';
import { dag } from '../../../lib/sdk/index.js';
import { makeRuntime } from '../../helpers/runtime.js';
import { onDynamo } from '../../helpers/stores.js';
import { countingSensor, lateClock } from '../../helpers/waiting.js';

const MIN = 60_000;

/** A target whose sensor lands in poker shard `shard` of `shards`. */
function targetIn(shard: number, shards: number, type = 'probe'): string {
  for (let i = 0; ; i++) if (sensorHash(type, { target: `t${i}` }).shardcode % shards === shard) return `t${i}`;
}

/** A runtime whose ports switch `MemoryPokerSchedules`; each run of `waits` has one sensor on target `conf.target`. */
async function setup(o: { shards: number; beforeLanding?: (s: PokerSwitch) => Promise<void> }) {
  const late = lateClock();
  const probe = countingSensor('probe', late);
  const waits = dag('waits', { maxActiveRuns: 10_000 }, ({ sensor }) => {
    sensor('s', { type: probe.def, pokeContext: { target: '{{ params.target }}' } }, { pokeInterval: '1m', timeout: '1d' });
  });
  const { rt, clock } = await makeRuntime([waits]);
  late.set(clock);
  const pokers = new MemoryPokerSchedules({ shards: o.shards, beforeLanding: o.beforeLanding });
  const ports: Ports = { ...rt.ports, pokerSchedules: pokers, config: { ...rt.ports.config, shards: o.shards } };
  let n = 0;
  const register = (target: string) => triggerRun(ports, 'waits', { runId: `r${n++}`, conf: { target } });
  const cycle = (shard: number) => pokeShard(ports, shard, { shards: o.shards, cycle: Math.floor(clock.now() / MIN) });
  const waiting = async (shard: number) => {
    let count = 0;
    for (let v = shard; v < 64; v += o.shards) count += (await ports.store.listSensorTriggers(v, Number.MAX_SAFE_INTEGER)).length;
    return count;
  };
  return { rt, clock, ports, pokers, probe, register, cycle, waiting };
}

describe('poker schedules follow the sensors', () => {
  it('keeps every poker off on a fresh installation, and the first sensor of a shard enables that poker only, once', async () => {
    const s = await setup({ shards: 8 });
    expect(s.pokers.enabledShards()).toEqual([]);
    const t5 = targetIn(5, 8);
    await s.register(t5);
    await s.register(t5);
    expect(s.pokers.enabledShards()).toEqual([5]);
    expect(s.pokers.landed).toEqual([{ shard: 5, enabled: true }]);
    expect(await s.ports.store.getPokerState(5)).toMatchObject({ want: 'on', version: 1 });
    expect(await s.ports.store.getPokerState(0)).toBeUndefined();
  });

  it('drains an empty poker for a minute, then disables it; a sensor in that minute keeps it on without a schedule call', async () => {
    const s = await setup({ shards: 1 });
    const t = targetIn(0, 1);
    await s.register(t);
    s.probe.truthy.add(t);
    expect((await s.cycle(0)).settled).toBe(1);
    s.clock.advanceBy(MIN);
    await s.cycle(0); // empty: draining
    expect(await s.ports.store.getPokerState(0)).toMatchObject({ want: 'draining' });
    expect(s.pokers.enabledShards()).toEqual([0]);

    s.probe.truthy.delete(t);
    await s.register(t); // in the draining minute: back on, the schedule never went off
    expect(await s.ports.store.getPokerState(0)).toMatchObject({ want: 'on' });
    s.clock.advanceBy(MIN);
    await s.cycle(0);
    expect(s.pokers.landed).toEqual([{ shard: 0, enabled: true }]);

    s.probe.truthy.add(t);
    s.clock.advanceBy(MIN);
    await s.cycle(0); // settles it
    s.clock.advanceBy(MIN);
    await s.cycle(0); // draining
    s.clock.advanceBy(MIN - 1);
    await s.cycle(0); // 59.999 s later: still draining
    expect(s.pokers.enabledShards()).toEqual([0]);
    s.clock.advanceBy(1);
    await s.cycle(0); // a full minute: off
    expect(await s.ports.store.getPokerState(0)).toMatchObject({ want: 'off' });
    expect(s.pokers.enabledShards()).toEqual([]);
    expect(s.pokers.landed).toEqual([{ shard: 0, enabled: true }, { shard: 0, enabled: false }]);
  });

  it('enables again when a registration\'s enable lands before the poker\'s disable (the poker re-reads the state)', async () => {
    let registerNow: (() => Promise<unknown>) | undefined;
    const s = await setup({
      shards: 1,
      // The poker's disable is held back until a registration has turned the shard on and its enable has landed.
      beforeLanding: async (sw) => {
        if (!sw.enabled && registerNow) {
          const r = registerNow;
          registerNow = undefined;
          await r();
        }
      },
    });
    const t = targetIn(0, 1);
    await s.register(t);
    s.probe.truthy.add(t);
    await s.cycle(0);
    s.clock.advanceBy(MIN);
    await s.cycle(0); // draining
    s.clock.advanceBy(MIN);
    s.probe.truthy.delete(t);
    registerNow = () => s.register(t);
    await s.cycle(0); // off, disable... held: the registration reads `off`, writes `on`, enables; then the disable lands
    expect(s.pokers.landed.slice(1)).toEqual([{ shard: 0, enabled: true }, { shard: 0, enabled: false }, { shard: 0, enabled: true }]);
    expect(await s.waiting(0)).toBe(1);
    expect(s.pokers.enabledShards()).toEqual([0]);
    expect(await s.ports.store.getPokerState(0)).toMatchObject({ want: 'on' });
  });

  it('sees a registration that read `on` just before the poker drained: the listing a minute later finds it and keeps the poker on', async () => {
    const s = await setup({ shards: 1 });
    const t = targetIn(0, 1);
    await s.register(t);
    s.probe.truthy.add(t);
    await s.cycle(0);
    s.clock.advanceBy(MIN);
    // The registration's row is written and it reads `on`; the poker then finds nothing
    // only because its listing ran first: forced by registering between listing and state read.
    const store = s.ports.store;
    const list = store.listSensorTriggers.bind(store);
    let once = true;
    store.listSensorTriggers = async (v, due) => {
      const out = await list(v, due);
      if (once) {
        once = false;
        s.probe.truthy.delete(t);
        await s.register(t);
      }
      return out;
    };
    await s.cycle(0);
    store.listSensorTriggers = list;
    expect(await store.getPokerState(0)).toMatchObject({ want: 'draining' });
    s.clock.advanceBy(MIN);
    await s.cycle(0); // sees the sensor: on again, never disabled
    expect(await store.getPokerState(0)).toMatchObject({ want: 'on' });
    expect(s.pokers.landed).toEqual([{ shard: 0, enabled: true }]);
  });

  it('never leaves a waiting sensor with its poker off when registrations race the last settle, the poker and the tick', async () => {
    // Calls land in a random order: each switch waits a random number of event-loop turns.
    let seed = 7;
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    const turns = async (max: number) => { for (let i = Math.floor(random() * max); i > 0; i--) await new Promise(setImmediate); };
    const s = await setup({ shards: 1, beforeLanding: () => turns(6) });
    const t = targetIn(0, 1);
    const rounds = onDynamo ? 15 : 150;
    let reEnabled = 0;
    for (let round = 0; round < rounds; round++) {
      // The last sensor settles; a minute later its poker drains, a minute after that it may go off...
      s.probe.truthy.add(t);
      await s.register(t);
      await s.cycle(0);
      s.clock.advanceBy(MIN);
      await s.cycle(0);
      s.clock.advanceBy(MIN);
      s.probe.truthy.delete(t);
      // ...while one or two sensors register and the tick checks, in a random order.
      const before = s.pokers.landed.length;
      const racers: Array<() => Promise<unknown>> = [() => s.cycle(0), () => turns(4).then(() => s.register(t)), () => turns(8).then(() => checkPokerSchedules(s.ports, { sweep: true }))];
      if (random() < 0.5) racers.push(() => turns(8).then(() => s.register(t)));
      await Promise.all(racers.sort(() => random() - 0.5).map((f) => f()));
      const landed = s.pokers.landed.slice(before);
      if (landed.some((x, i) => !x.enabled && landed.slice(i + 1).some((y) => y.enabled))) reEnabled++;
      expect(await s.waiting(0), `round ${round}`).toBeGreaterThan(0);
      expect(s.pokers.enabledShards(), `round ${round}: sensors wait, so the poker must be on (landed ${JSON.stringify(landed)})`).toEqual([0]);
      expect((await s.ports.store.getPokerState(0))?.want, `round ${round}`).not.toBe('off');
    }
    // The dangerous interleaving (a disable landing while a registration turned the shard on) really happened.
    expect(reEnabled).toBeGreaterThan(0);
  });

  it('lets the tick enable a poker a deploy disabled, and turn on a shard whose sensors were registered without the switch', async () => {
    const s = await setup({ shards: 8 });
    await s.register(targetIn(2, 8));
    s.pokers.force(2, false); // a deploy resets the schedule to its template state
    // Registered by a process without the switch (an old CLI): state stays off.
    await triggerRun({ ...s.ports, pokerSchedules: undefined }, 'waits', { runId: 'cli', conf: { target: targetIn(6, 8) } });
    expect(s.pokers.enabledShards()).toEqual([]);

    expect((await checkPokerSchedules(s.ports, { sweep: false })).enabled).toEqual([2]);
    expect(s.pokers.enabledShards()).toEqual([2]);
    expect((await checkPokerSchedules(s.ports, { sweep: true })).enabled).toEqual([6]);
    expect(s.pokers.enabledShards()).toEqual([2, 6]);
    expect(await s.ports.store.getPokerState(6)).toMatchObject({ want: 'on' });
    expect((await checkPokerSchedules(s.ports, { sweep: true })).enabled).toEqual([]);
  });

  it('registers a sensor even when the schedule cannot be switched (a CLI without the grant): the tick enables it', async () => {
    const s = await setup({ shards: 1, beforeLanding: async (sw) => { if (sw.enabled && !allowed) throw new Error('AccessDeniedException: not authorized to perform: iam:PassRole'); } });
    let allowed = false;
    await s.register(targetIn(0, 1));
    expect(await s.waiting(0)).toBe(1);
    expect(await s.ports.store.getPokerState(0)).toMatchObject({ want: 'on' });
    expect(s.pokers.enabledShards()).toEqual([]);
    allowed = true;
    expect((await checkPokerSchedules(s.ports, { sweep: false })).enabled).toEqual([0]);
    expect(s.pokers.enabledShards()).toEqual([0]);
  });

  it('costs nothing at idle: with no active run the tick reads no poker state and no schedule', async () => {
    const s = await setup({ shards: 8 });
    const get = s.ports.store.getPokerState.bind(s.ports.store);
    let reads = 0;
    s.ports.store.getPokerState = (shard) => { reads++; return get(shard); };
    expect((await checkPokerSchedules(s.ports, { sweep: true })).enabled).toEqual([]);
    expect(reads).toBe(0);
    expect(s.pokers.reads).toBe(0);
  });
});
