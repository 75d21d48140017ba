/**
 * Airless schedules as EventBridge Scheduler expressions: AWS knowledge, so it lives with
 * the AWS adapters, not in the engine. The build refuses a cron EventBridge cannot
 * express (lib/isolation/collect.ts), naming the DAG and the reason, so `register-bundle`
 * never meets one.
 */
import { InvalidInputError, type ScheduleSpec } from '../../../engine/index.js';

/**
 * The recurring EventBridge Scheduler expression for a schedule: `cron(m h dom mon dow *)`
 * in AWS syntax (with its timezone) or `rate(...)`.
 *
 * Note: EventBridge runs a `rate` from the schedule's creation, not from startDate, and
 * skips crons in a spring-forward gap; the engine recomputes the due tick with
 * {@link dueTicks} when a schedule fires, so these differences do not change run dates.
 *
 * @example
 * toEventBridgeExpression({ kind: 'cron', expr: '0 2 * * 1-5', timezone: 'Europe/Berlin' });
 * // { expression: 'cron(0 2 ? * 2-6 *)', timezone: 'Europe/Berlin' }
 * @throws InvalidInputError when the schedule cannot be expressed (see {@link cronToEventBridge}).
 */
export function toEventBridgeExpression(spec: Exclude<ScheduleSpec, null>): { expression: string; timezone?: string } {
  // `@once` has no recurring schedule: the reconcile tick creates its run (schedule-sync.ts).
  if (spec.kind === 'once') throw new InvalidInputError('@once has no recurring EventBridge expression');
  if (spec.kind === 'rate') {
    for (const [unit, size] of [['day', 86_400_000], ['hour', 3_600_000], ['minute', 60_000]] as const) {
      if (spec.everyMs % size === 0) {
        const n = spec.everyMs / size;
        return { expression: `rate(${n} ${unit}${n === 1 ? '' : 's'})` };
      }
    }
    throw new InvalidInputError(`rate of ${spec.everyMs} ms is not a whole number of minutes`);
  }
  return { expression: `cron(${cronToEventBridge(spec.expr)})`, timezone: spec.timezone };
}

const DOW_NAMES = ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT'];

function dowNumber(token: string, expr: string): number {
  const i = DOW_NAMES.indexOf(token.toUpperCase());
  const n = i >= 0 ? i : /^\d$/.test(token) ? Number(token) : NaN;
  if (!(n >= 0 && n <= 7)) throw new InvalidInputError(`cron "${expr}": cannot read day of week "${token}"`);
  return n % 7;
}

/** Unix day of week (0-7, SUN-SAT, ranges, lists, steps) as AWS 1-7 (SUN=1), compressed into ranges. */
function dowToAws(field: string, expr: string): string {
  const special = /^(\w+)(#\d|L)$/i.exec(field);
  if (special) return `${dowNumber(special[1], expr) + 1}${special[2].toUpperCase()}`;
  const days = new Set<number>();
  for (const item of field.split(',')) {
    const [range, stepText] = item.split('/');
    const step = stepText === undefined ? 1 : Number(stepText);
    const [a, b] = range === '*' ? ['0', '6'] : range.split('-');
    const lo = dowNumber(a, expr);
    const hi = b === undefined ? (stepText === undefined ? lo : 6) : b === '7' ? 7 : dowNumber(b, expr);
    if (!(step >= 1) || hi < lo) throw new InvalidInputError(`cron "${expr}": cannot read day of week "${item}"`);
    for (let d = lo; d <= hi; d += step) days.add(d % 7);
  }
  const sorted = [...days].sort((x, y) => x - y).map((d) => d + 1);
  const parts: string[] = [];
  for (let i = 0; i < sorted.length; ) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j] + 1) j++;
    parts.push(j - i >= 2 ? `${sorted[i]}-${sorted[j]}` : sorted.slice(i, j + 1).join(','));
    i = j + 1;
  }
  return parts.join(',');
}

/**
 * Converts a 5-field Unix cron to the 6 fields of an EventBridge `cron(...)`: `?` in the
 * unrestricted one of day-of-month/day-of-week, days of week 1-7 (SUN-SAT), a year `*`.
 *
 * @example
 * cronToEventBridge('*\/15 9-17 * * MON-FRI'); // '0/15 9-17 ? * 2-6 *'
 * @throws InvalidInputError when both day fields are restricted: Unix cron fires on either,
 *   and EventBridge cannot express that.
 */
export function cronToEventBridge(expr: string): string {
  const f = expr.trim().split(/\s+/);
  if (f.length !== 5) throw new InvalidInputError(`cron "${expr}": expected 5 fields`);
  // EventBridge documents `0/n` for increments; a leading `*` is not portable.
  const steps = (x: string, first: string) => x.replace(/^\*\//, `${first}/`);
  const [min, hour, dom, mon, dow] = [steps(f[0], '0'), steps(f[1], '0'), steps(f[2], '1'), steps(f[3], '1'), f[4]];
  const domAll = dom === '*' || dom === '?';
  const dowAll = dow === '*' || dow === '?';
  if (!domAll && !dowAll) {
    throw new InvalidInputError(
      `cron "${expr}" restricts both day-of-month and day-of-week (fires on either); EventBridge cannot express that`,
    );
  }
  return [min, hour, dowAll ? dom.replace('?', '*') : '?', mon, dowAll ? '?' : dowToAws(dow, expr), '*'].join(' ');
}
