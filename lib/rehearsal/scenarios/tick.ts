/**
 * The tick's (or the pokers') schedules turned off or on as an operator would with the AWS
 * CLI: for the steps that check what only another function may do (the tick and the poker
 * fire at the same virtual minute, and either could decide a task both see ready), and for
 * long waits that need neither (hours of virtual time cost one invocation per minute each).
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
  await setFunctionSchedules(c, 'Tick', state);
}

/**
 * Turns off or on every schedule that invokes a function whose logical id contains `fn`
 * (`'Tick'`, or `'Poker'`: one schedule per shard), as {@link setTickSchedule} does.
 *
 * @example
 * await setFunctionSchedules(c, 'Poker', 'DISABLED');
 */
export async function setFunctionSchedules(c: ScenarioContext, fn: string, state: 'ENABLED' | 'DISABLED'): Promise<void> {
  const arns = new Set([...c.r.functions.values()].filter((f) => f.spec.logicalId.includes(fn)).map((f) => f.spec.arn));
  const schedules = c.r.gateway.scheduler.listSchedules().filter((x) => arns.has(x.Target.Arn));
  if (schedules.length === 0) throw new ScenarioError(`the template has no schedule for the ${fn.toLowerCase()}`);
  for (const s of schedules) {
    const cur = await c.r.direct.scheduler.send(new GetScheduleCommand({ GroupName: s.GroupName, Name: s.Name }));
    await c.r.direct.scheduler.send(new UpdateScheduleCommand({
      Name: cur.Name!, GroupName: cur.GroupName, ScheduleExpression: cur.ScheduleExpression!, ScheduleExpressionTimezone: cur.ScheduleExpressionTimezone,
      FlexibleTimeWindow: cur.FlexibleTimeWindow!, Target: cur.Target!, Description: cur.Description, ActionAfterCompletion: cur.ActionAfterCompletion, State: state,
    }));
  }
  c.check(schedules.every((s) => c.r.gateway.scheduler.getSchedule(s.GroupName, s.Name)?.State === state),
    `the ${fn.toLowerCase()}'s schedule${schedules.length > 1 ? 's are' : ' is'} ${state} (UpdateSchedule)`);
  // A fire taken before the schedule was disabled may still be in flight or about to start:
  // the step after this must not race it, so wait until nothing runs or waits to run.
  if (state === 'DISABLED') await c.until(() => c.r.idle(), `no ${fn.toLowerCase()} in flight or about to start`);
}
