/**
 * The jobs' safety net rides on the poker (flow/job-safety-net.ts), and the pokers are off
 * at idle (flow/poker-schedule.ts, docs/adr/0024-nothing-at-idle.md): a job's wait turns
 * its poker on, the poker stays on while any job row waits in its partitions (due or not),
 * and the tick's sweep finds job rows a process without the switch left. On the memory
 * store and DynamoDB Local. Pokers run here only while their schedule is enabled, as on AWS.
 */
import { describe, expect, it } from 'vitest';
import { MemoryPokerSchedules } from '../../../lib/adapters/memory/poker-schedules.js';
import { checkPokerSchedules, ensurePokerOn, handleMessage, pokeShard, triggerRun, type Ports } from '../../../lib/engine/index.js';
import { batchSubmitJob, dag } from '../../../lib/sdk/index.js';
import { jobRuntime, MIN } from '../../helpers/jobs.js';

const SHARDS = 8;

async function setup(o: { switchOnRegistration?: boolean } = {}) {
  const d = dag('lost', {}, ({ task }) => { task('b', batchSubmitJob({ jobQueue: 'q', jobDefinition: 'd' }, { safetyNetInterval: '10m' })); });
  // The job ends at 25 minutes and its end event never comes.
  const { rt, clock, jobs } = await jobRuntime([d], { batch_submit_job: () => ({ after: '25m', dropEvent: true }) });
  const pokers = new MemoryPokerSchedules({ shards: SHARDS });
  const ports: Ports = { ...rt.ports, pokerSchedules: pokers, config: { ...rt.ports.config, shards: SHARDS } };
  // A worker of a process without the switch (say, an older stack's) registers without turning a poker on.
  const workerPorts: Ports = o.switchOnRegistration === false ? { ...ports, pokerSchedules: undefined } : ports;
  /** The worker: every message due, handled until the queue is empty. */
  const work = async () => {
    for (;;) {
      await rt.timer.deliverDue();
      const ds = await rt.queue.receive(10, 15 * MIN);
      if (ds.length === 0) return;
      for (const m of ds) {
        await handleMessage(workerPorts, m.message);
        await rt.queue.ack(m);
      }
    }
  };
  /** One minute as AWS runs it: each poker whose schedule is enabled runs one cycle, then the worker. */
  const minute = async () => {
    clock.advanceBy(MIN);
    const cycle = Math.floor(clock.now() / MIN);
    for (const shard of pokers.enabledShards()) await pokeShard(ports, shard, { shards: SHARDS, cycle });
    await work();
  };
  const task = async () => (await ports.store.listTasks('lost', 'r1'))[0]!;
  return { rt, jobs, pokers, ports, work, minute, task };
}

/** Idle: every poker was on once (sensors came and went) and has drained to off. */
async function drainedToOff(s: Awaited<ReturnType<typeof setup>>) {
  for (let shard = 0; shard < SHARDS; shard++) await ensurePokerOn(s.ports, shard);
  expect(s.pokers.enabledShards()).toHaveLength(SHARDS);
  for (let i = 0; i < 3; i++) await s.minute();
  expect(s.pokers.enabledShards()).toEqual([]);
  for (let shard = 0; shard < SHARDS; shard++) expect((await s.ports.store.getPokerState(shard))?.want).toBe('off');
}

describe('the jobs\' safety net with the pokers off at idle', () => {
  it('a job whose end event is lost turns its poker on, keeps it on between describes, is resumed, and the poker drains after', async () => {
    const s = await setup();
    await drainedToOff(s);
    const t0 = s.rt.clock.now();
    await triggerRun(s.ports, 'lost', { runId: 'r1' });
    await s.work();
    expect((await s.task()).state).toBe('deferred');
    // Only the poker serving the job's safety-net partition is turned on.
    const on = s.pokers.enabledShards();
    expect(on).toHaveLength(1);
    expect(await s.ports.store.getPokerState(on[0]!)).toMatchObject({ want: 'on' });

    // Between describes no job row is due; the poker stays on all the same.
    for (let m = 1; m <= 29; m++) {
      await s.minute();
      expect(s.pokers.enabledShards(), `minute ${m}`).toEqual(on);
    }
    expect(s.jobs.calls[0]!.describes).toBe(2); // at 10 and 20 minutes: running
    await s.minute(); // 30 minutes: described ended, resumed
    expect(s.jobs.calls[0]!.describes).toBe(3);
    const ti = await s.task();
    expect(ti.state).toBe('success');
    expect(ti.endedAt! - t0).toBeLessThanOrEqual(31 * MIN);
    expect(s.rt.metrics.get('JobsResumedBySafetyNet')).toBe(1);

    // Nothing waits any more: the poker drains and turns itself off.
    for (let i = 0; i < 3; i++) await s.minute();
    expect(s.pokers.enabledShards()).toEqual([]);
    expect((await s.ports.store.getPokerState(on[0]!))?.want).toBe('off');
  });

  it('a job wait registered without the switch is found by the tick\'s sweep, which turns its poker on', async () => {
    const s = await setup({ switchOnRegistration: false });
    await drainedToOff(s);
    await triggerRun(s.ports, 'lost', { runId: 'r1' });
    await s.work();
    expect((await s.task()).state).toBe('deferred');
    expect(s.pokers.enabledShards()).toEqual([]);
    const report = await checkPokerSchedules(s.ports, { sweep: true });
    expect(report.enabled).toHaveLength(1);
    expect(s.pokers.enabledShards()).toEqual(report.enabled);
    for (let m = 1; m <= 31 && (await s.task()).state !== 'success'; m++) await s.minute();
    expect((await s.task()).state).toBe('success');
    expect(s.jobs.calls[0]!.describes).toBe(3);
  });
});
