/**
 * Part of scenario `paths` (issue 22 §4): poker schedules run only while sensors wait
 * (docs/adr/0024-nothing-at-idle.md), each step reached by one function only, so the
 * least-privilege analysis sees every switch grant used:
 * - once no sensor waits (the README DAG's file sensor, which would wait 6 hours, marked
 *   failed by an operator), each enabled poker drains for a minute and disables its own schedule;
 * - a task followed by a sensor: the worker registers the sensor and enables its poker;
 * - a deploy resets a waiting sensor's poker to disabled: the tick enables it again;
 * - a sensor registered by a process without the switch (a CLI of an older stack): the
 *   tick finds it (a query of the sensor index, every five minutes) and turns its poker on.
 */
import { GetScheduleCommand, UpdateScheduleCommand } from '@aws-sdk/client-scheduler';
import { markTask, triggerRun } from '../../engine/index.js';
import type { ScenarioContext } from './context.js';

const runIdOf = (out: string[]) => /^run (\S+) of /.exec(out.find((l) => l.startsWith('run ')) ?? '')?.[1] ?? '';

export async function pokersFollowSensors(c: ScenarioContext): Promise<void> {
  const { r, cli, check, ports } = c;
  const group = r.outputs.SystemScheduleGroup;
  const pokers = () => r.gateway.scheduler.listSchedules().filter((s) => s.GroupName === group && s.Name.startsWith('poker-'));
  const enabled = () => pokers().filter((s) => s.State === 'ENABLED').map((s) => s.Name);
  const calls = (who: string, action: string, since: number, resource = `/${group}/poker-`) =>
    r.gateway.decisions.filter((d) => d.allowed && d.principal.includes(who) && d.action === action && d.resource.includes(resource) && d.at >= since).length;
  const allOff = (what: string) => r.until(() => enabled().length === 0, what, 120_000);

  // The README DAG's daily run still has its file sensor waiting (6 hours, for a file that
  // never lands here): an operator marks it failed, as Airflow's "Mark Failed" would.
  const marked: string[] = [];
  for (const run of await ports.store.listActiveRuns()) {
    for (const ti of await ports.store.listTasks(run.dagId, run.runId)) {
      if (ti.state !== 'sensing') continue;
      await markTask(ports, ti.dagId, ti.runId, ti.taskId, 'failed');
      marked.push(`${ti.dagId}.${ti.taskId}`);
    }
  }
  await allOff('every poker schedule to be disabled once no sensor waits');
  check(pokers().length === 2 && calls('Poker', 'scheduler:UpdateSchedule', 0) > 0 && calls('Poker', 'iam:PassRole', 0, 'Invoker') > 0,
    `with no sensor waiting (marked failed: ${marked.join(', ') || 'none'}), the pokers disabled their own schedules (${pokers().map((s) => `${s.Name}=${s.State}`).join(' ')})`);

  const t0 = r.clock.now();
  const afterTask = runIdOf((await cli('trigger', ['rehearsal_sensor_after_task'])).out);
  const afterEnd = await c.runEnds('rehearsal_sensor_after_task', afterTask, 120_000);
  check(afterEnd.state === 'success' && calls('Worker', 'scheduler:UpdateSchedule', t0) > 0 && calls('Worker', 'scheduler:GetSchedule', t0) > 0
    && calls('Worker', 'iam:PassRole', t0, 'Invoker') > 0,
    `a sensor after a task: the worker registers it and enables its poker, which settles it (${afterEnd.tasks.map((t) => `${t.taskId}=${t.state}`).join(' ')})`);
  await allOff('the poker to disable itself after the sensor settled');

  // A deploy that updates a poker schedule resets it to the template's DISABLED.
  const t1 = r.clock.now();
  const timeout = runIdOf((await cli('trigger', ['rehearsal_sensor_timeout'])).out);
  await r.until(() => enabled().length === 1, 'the waiting sensor\'s poker to be enabled');
  const [name] = enabled();
  const cur = await r.direct.scheduler.send(new GetScheduleCommand({ GroupName: group, Name: name }));
  await r.direct.scheduler.send(new UpdateScheduleCommand({
    Name: cur.Name!, GroupName: cur.GroupName, ScheduleExpression: cur.ScheduleExpression!, FlexibleTimeWindow: cur.FlexibleTimeWindow!,
    Target: cur.Target!, State: 'DISABLED',
  }));
  await r.until(() => enabled().includes(name!), 'the tick to enable the reset poker again', 120_000);
  check(calls('Tick', 'scheduler:GetSchedule', t1) > 0 && calls('Tick', 'scheduler:UpdateSchedule', t1) > 0 && calls('Tick', 'iam:PassRole', t1, 'Invoker') > 0,
    `a poker reset to disabled while its sensor waits is enabled again by the tick (${name})`);
  // Bounded in virtual time by what it waits for: the sensor's 3-minute timeout, then a poke cycle.
  const timeoutEnd = await c.runEnds('rehearsal_sensor_timeout', timeout, 5 * 60_000);
  check(timeoutEnd.state === 'failed', `that sensor still times out as before (${timeoutEnd.state})`);
  await allOff('the poker to disable itself after the timeout');

  // Registered without the switch: nobody enables the poker until the tick's sweep finds the sensor.
  const t2 = r.clock.now();
  const old = await triggerRun({ ...ports, pokerSchedules: undefined }, 'rehearsal_sensor_chain', { runId: `no_switch_${t2}` });
  check(enabled().length === 0, 'a sensor registered without the switch leaves the pokers off');
  // The tick sweeps `off` shards every 5 minutes (virtual), then the chain's sensors settle, one
  // after another (bounded at 20 virtual minutes: 10 was reached once under CI's load).
  const oldEnd = await c.runEnds('rehearsal_sensor_chain', old.runId, 20 * 60_000);
  check(oldEnd.state === 'success' && calls('Tick', 'dynamodb:Query', t2, 'StateTriggers') > 0 && calls('Tick', 'dynamodb:UpdateItem', t2, 'StateKv') > 0,
    `the tick finds a sensor no poker was enabled for and turns its poker on (${oldEnd.tasks.map((t) => `${t.taskId}=${t.state}`).join(' ')})`);
}
