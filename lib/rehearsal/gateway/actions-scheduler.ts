/**
 * EventBridge Scheduler (REST-JSON) → IAM checks. Creating or updating a schedule also
 * passes its target role to the service: AWS checks iam:PassRole on Target.RoleArn with
 * iam:PassedToService = scheduler.amazonaws.com.
 */
import type { Check, Scope } from './checks.js';
import type { SchedulerRoute } from './scheduler/http.js';

/**
 * @example
 * schedulerChecks({ op: 'DeleteSchedule', name: 'n', group: 'g', query, body: {} }, scope)
 * // [{ action: 'scheduler:DeleteSchedule', resource: 'arn:aws:scheduler:us-east-1:000000000000:schedule/g/n' }]
 */
export function schedulerChecks(r: SchedulerRoute, scope: Scope): Check[] {
  const base = `arn:aws:scheduler:${scope.region}:${scope.accountId}`;
  switch (r.op) {
    case 'ListSchedules':
    case 'ListScheduleGroups':
      return [{ action: `scheduler:${r.op}`, resource: '*' }];
    case 'CreateScheduleGroup':
    case 'GetScheduleGroup':
    case 'DeleteScheduleGroup':
      return [{ action: `scheduler:${r.op}`, resource: `${base}:schedule-group/${r.name}` }];
    default: {
      const checks: Check[] = [{ action: `scheduler:${r.op}`, resource: `${base}:schedule/${r.group}/${r.name}` }];
      const role = (r.body.Target as { RoleArn?: unknown } | undefined)?.RoleArn;
      if ((r.op === 'CreateSchedule' || r.op === 'UpdateSchedule') && typeof role === 'string') {
        checks.push({ action: 'iam:PassRole', resource: role, context: { 'iam:PassedToService': 'scheduler.amazonaws.com' } });
      }
      return checks;
    }
  }
}
