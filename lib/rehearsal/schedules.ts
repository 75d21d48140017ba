/**
 * Schedules from the template for the gateway's Scheduler emulator, and the next moment
 * any schedule fires (where `--time-warp` may jump to).
 */
import { nextFire, parseExpression } from '../adapters/aws/eventbridge/expressions.js';
import type { ScheduleInput } from './gateway/scheduler/types.js';
import type { StackTemplate } from './template.js';

type ScheduleLike = { ScheduleExpression: string; ScheduleExpressionTimezone?: string; State: string; StartDate?: number; CreationDate: number };

/**
 * An `AWS::Scheduler::Schedule` as CreateSchedule input.
 * @example
 * gateway.scheduler.putSchedule(scheduleFromTemplate(template, 'AirlessSchedulesTick1ECA2314'));
 */
export function scheduleFromTemplate(t: StackTemplate, logicalId: string): ScheduleInput {
  const p = t.props(logicalId) as Record<string, any>;
  return {
    Name: t.physicalName(logicalId),
    GroupName: p.GroupName,
    ScheduleExpression: p.ScheduleExpression,
    ScheduleExpressionTimezone: p.ScheduleExpressionTimezone,
    StartDate: p.StartDate,
    EndDate: p.EndDate,
    Description: p.Description,
    State: p.State ?? 'ENABLED',
    FlexibleTimeWindow: p.FlexibleTimeWindow,
    Target: p.Target,
  };
}

/**
 * The earliest fire strictly after `now` over enabled schedules; null when none.
 * A rate counts from the schedule's start (or creation).
 */
export function nextScheduleFire(schedules: readonly ScheduleLike[], now: number): number | null {
  let next: number | null = null;
  for (const s of schedules) {
    if (s.State !== 'ENABLED') continue;
    const tz = s.ScheduleExpressionTimezone ?? 'UTC';
    let at: number | undefined;
    try {
      const e = parseExpression(s.ScheduleExpression, tz);
      // An at() due and not yet delivered is delivered now.
      at = e.kind === 'at' ? Math.max(e.at, now + 1) : nextFire(e, now, s.StartDate ?? s.CreationDate);
    } catch {
      continue;
    }
    if (at !== undefined && (next === null || at < next)) next = at;
  }
  return next;
}
