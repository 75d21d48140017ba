/**
 * Poker schedules enabled only while sensors wait (issue 22 §4; the protocol and its proof:
 * docs/adr/0024-nothing-at-idle.md). Three writers share one state item per shard, each
 * write a compare-and-set on its version:
 *
 * - a sensor registration (sensor-start.ts), after its trigger row is written, makes the
 *   state `on` and, coming from `off`, enables the schedule ({@link ensurePokerOn});
 * - the poker, at the end of a cycle whose listing found no sensor, moves `on → draining`,
 *   and a cycle at least a minute after that, still empty, `draining → off`; then it
 *   disables the schedule and reads the state again: if a registration turned it `on`
 *   meanwhile, its enable may have landed before this disable, so the poker enables again;
 * - the tick, while runs are active, enables any schedule whose state is `on` but that is
 *   disabled (a crash between a write and its call, a deploy that reset it), and, every few
 *   minutes, turns `on` any `off` shard in which it finds a sensor registration or a
 *   job's safety-net row.
 *
 * A job's wait (flow/event-wait.ts) is a registration too: its row sits in a safety-net
 * partition this poker checks (flow/job-safety-net.ts), it calls {@link ensurePokerOn}
 * after writing it, and the poker counts every such row, due or not, before draining.
 *
 * Why no registration is stranded: one that read `on` wrote its row before the poker's
 * `draining` write, so the listing that may lead to `off` (a minute later) sees it; one
 * that read `draining` or `off` writes `on`, which either beats the poker's `off` write or
 * follows it and enables after the poker's disable, or before it, in which case the
 * poker's re-read sees `on` and enables again.
 */
import type { Ports } from '../model/ports.js';
import type { PokerState, PokerWant } from '../model/poker-state.js';
import { JOB_PARTITIONS, JOB_SHARD_BASE, VIRTUAL_SHARDS } from '../rules/shards.js';

/** A draining shard goes off when a cycle listed at least this long after `draining` was written is still empty. */
export const DRAIN_MS = 60_000;
/** The tick looks for sensors in `off` shards every this many minutes (each look is a query per virtual shard). */
export const SWEEP_EVERY_MINUTES = 5;
/** Attempts of a registration's compare-and-set before it leaves the shard to the tick. */
const ATTEMPTS = 5;

/**
 * The poker shard that pokes a sensor registered in virtual shard `shardcode`.
 * @example
 * pokerShardOf(13, 8); // 5
 */
export function pokerShardOf(shardcode: number, shards: number): number {
  return shardcode % shards;
}

const next = (p: Ports, shard: number, cur: PokerState | undefined, want: PokerWant): PokerState =>
  ({ shard, want, version: (cur?.version ?? 0) + 1, since: p.clock.now() });

/**
 * Called after a sensor's trigger row is written: makes sure shard `shard`'s poker runs.
 * Costs one strongly consistent read when the shard is already `on`.
 *
 * @example
 * await ensurePokerOn(ports, pokerShardOf(reg.shardcode, ports.config.shards));
 */
export async function ensurePokerOn(p: Ports, shard: number): Promise<void> {
  if (!p.pokerSchedules) return;
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const cur = await p.store.getPokerState(shard);
    if (cur?.want === 'on') return;
    const r = await p.store.putPokerState(next(p, shard, cur, 'on'));
    if (!r.ok) {
      p.metrics.count('LostRaces');
      continue;
    }
    // A draining shard's schedule is still enabled: only the poker disables it, after its
    // own `draining → off` write, which this write has just made fail.
    if (cur?.want === 'draining') return;
    try {
      await p.pokerSchedules.setEnabled(shard, true);
    } catch (err) {
      // The state says `on`: the tick enables the schedule within a minute. A caller that
      // may not switch schedules (an operator's CLI without the grant) still registers.
      p.log.warn('could not enable the poker schedule; the tick will', { shard, error: String((err as Error)?.message ?? err) });
    }
    return;
  }
  p.log.warn('poker state kept changing; the tick will enable the schedule if it is needed', { shard });
}

/**
 * The poker's end of cycle: `sensors` is what its listing found, at `listedAt` (the
 * cycle's start, before the listing).
 */
export async function afterPokeCycle(p: Ports, shard: number, sensors: number, listedAt: number): Promise<void> {
  if (!p.pokerSchedules) return;
  const cur = await p.store.getPokerState(shard);
  if (sensors > 0) {
    if (cur?.want !== 'on') await ensurePokerOn(p, shard);
    return;
  }
  if (cur?.want === 'on') {
    if (!(await p.store.putPokerState(next(p, shard, cur, 'draining'))).ok) p.metrics.count('LostRaces');
    return;
  }
  if (cur?.want === 'draining') {
    // Registrations that read `on` wrote their rows before `since`: this listing, a cycle
    // later, would have seen them (the sensor index lags by far less than a minute).
    if (listedAt - cur.since < DRAIN_MS) return;
    if (!(await p.store.putPokerState(next(p, shard, cur, 'off'))).ok) {
      p.metrics.count('LostRaces');
      return;
    }
  }
  // `off` (just written, or a fire that was already under way, or a schedule a deploy
  // enabled): disable, then re-read, since a registration may have enabled it meanwhile.
  await disable(p, shard);
}

async function disable(p: Ports, shard: number): Promise<void> {
  await p.pokerSchedules!.setEnabled(shard, false);
  const after = await p.store.getPokerState(shard);
  if (after !== undefined && after.want !== 'off') {
    await p.pokerSchedules!.setEnabled(shard, true);
    p.log.info('a sensor registered while the poker was disabled: enabled again', { shard });
  }
}

export interface PokerCheckReport {
  /** Shards whose schedule was enabled here. */
  enabled: number[];
}

/**
 * The tick's safety net (a no-op when no run is active: a waiting sensor's run is running).
 * Enables the schedule of every `on` or `draining` shard that is disabled; with `sweep`
 * (by default every {@link SWEEP_EVERY_MINUTES} minutes), also turns `on` any `off`
 * shard with a sensor registration (a registration from a process without the switch,
 * or from before the upgrade that brought it).
 *
 * @example
 * await checkPokerSchedules(ports);
 */
export async function checkPokerSchedules(p: Ports, opts: { sweep?: boolean } = {}): Promise<PokerCheckReport> {
  const report: PokerCheckReport = { enabled: [] };
  if (!p.pokerSchedules) return report;
  if ((await p.store.listActiveRuns()).length === 0) return report;
  const sweep = opts.sweep ?? Math.floor(p.clock.now() / 60_000) % SWEEP_EVERY_MINUTES === 0;
  const shards = p.config.shards;
  await Promise.all(Array.from({ length: shards }, async (_, shard) => {
    const cur = await p.store.getPokerState(shard);
    if (cur?.want === 'on' || cur?.want === 'draining') {
      if ((await p.pokerSchedules!.isEnabled(shard)) !== false) return;
      await p.pokerSchedules!.setEnabled(shard, true);
    } else {
      if (!sweep) return;
      // The sensor shards this poker pokes, and the jobs' safety-net partitions it checks.
      const virtual = Array.from({ length: VIRTUAL_SHARDS }, (_, v) => v).filter((v) => pokerShardOf(v, shards) === shard);
      const jobs = Array.from({ length: JOB_PARTITIONS }, (_, j) => j).filter((j) => pokerShardOf(j, shards) === shard).map((j) => JOB_SHARD_BASE + j);
      const found = await Promise.all([...virtual, ...jobs].map((v) => p.store.hasSensorTriggers(v)));
      if (!found.some(Boolean)) return;
      await ensurePokerOn(p, shard);
    }
    report.enabled.push(shard);
    p.metrics.count('PokerRecovered');
    p.log.warn('the tick enabled a poker schedule that sensors need', { shard, want: cur?.want ?? 'none' });
  }));
  report.enabled.sort((a, b) => a - b);
  return report;
}
