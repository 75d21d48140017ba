/**
 * The tick's schedule turned off or on as an operator would with the AWS CLI, for the steps
 * that check what only another function may do: the tick and the poker fire at the same
 * virtual minute, and either could decide a task both see ready.
 */
import { GetScheduleCommand, UpdateScheduleCommand } from '@aws-sdk/client-scheduler';
import { ScenarioError, type ScenarioContext } from './context.js';

/**
 * Turns the tick's schedule off or on: GetSchedule, then UpdateSchedule with the whole
 * definition and the new State (the Scheduler emulator skips a disabled schedule).
 *
 * @example
 * await setTickSchedule(c, 'DISABLED');
 */
export async function setTickSchedule(c: ScenarioContext, state: 'ENABLED' | 'DISABLED'): Promise<void> {
  const tickArn = [...c.r.functions.values()].find((f) => f.spec.logicalId.includes('Tick'))!.spec.arn;
  const s = c.r.gateway.scheduler.listSchedules().find((x) => x.Target.Arn === tickArn);
  if (!s) throw new ScenarioError('the template has no schedule for the tick');
  const cur = await c.r.direct.scheduler.send(new GetScheduleCommand({ GroupName: s.GroupName, Name: s.Name }));
  await c.r.direct.scheduler.send(new UpdateScheduleCommand({
    Name: cur.Name!, GroupName: cur.GroupName, ScheduleExpression: cur.ScheduleExpression!, ScheduleExpressionTimezone: cur.ScheduleExpressionTimezone,
    FlexibleTimeWindow: cur.FlexibleTimeWindow!, Target: cur.Target!, Description: cur.Description, ActionAfterCompletion: cur.ActionAfterCompletion, State: state,
  }));
  c.check(c.r.gateway.scheduler.getSchedule(s.GroupName, s.Name)?.State === state, `the tick's schedule is ${state} (UpdateSchedule)`);
  // A fire taken before the schedule was disabled may still be in flight or about to start:
  // the step after this must not race it, so wait until nothing runs or waits to run.
  if (state === 'DISABLED') await c.until(() => c.r.idle(), 'no tick in flight or about to start');
}
