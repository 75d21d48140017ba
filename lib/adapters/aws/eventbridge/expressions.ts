/**
 * Schedule expressions as EventBridge Scheduler reads them: `at(yyyy-mm-ddThh:mm:ss)`,
 * `cron(min hour day-of-month month day-of-week year)` and `rate(N minute|minutes|hour|hours|day|days)`,
 * each in ScheduleExpressionTimezone (UTC by default). Crons are computed with croner in
 * AWS's 6-field form (1 = Sunday; `?`, `L`, `W`, `#` and the year included); a run that
 * falls in a spring-forward gap is skipped, as EventBridge Scheduler does (croner would
 * move it later). The one reader of these expressions: the timer pump (LocalStack) and
 * the rehearsal's Scheduler use it; ./to-expression.ts writes them.
 */
import { Cron } from 'croner';
import { InvalidInputError } from '../../../engine/index.js';

export type Expression =
  | { kind: 'at'; at: number }
  | { kind: 'rate'; everyMs: number }
  | { kind: 'cron'; cron: Cron };

const UNITS: Record<string, number> = { minute: 60_000, minutes: 60_000, hour: 3_600_000, hours: 3_600_000, day: 86_400_000, days: 86_400_000 };

/**
 * Throws for a time zone the runtime's tz database does not know, in Scheduler's words.
 *
 * @example
 * checkTimezone('Europe/Berlin'); // fine
 * @throws InvalidInputError `Invalid timezone: <tz>`.
 */
export function checkTimezone(tz: string): void {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
  } catch {
    throw new InvalidInputError(`Invalid timezone: ${tz}`);
  }
}

/**
 * Reads an expression as Scheduler's CreateSchedule does (same accepted forms, same message).
 *
 * @example
 * parseExpression('rate(5 minutes)', 'UTC') // { kind: 'rate', everyMs: 300000 }
 * parseExpression('cron(0 2 * * ? *)', 'Europe/Berlin') // { kind: 'cron', cron }
 * @throws InvalidInputError `Invalid Schedule Expression <expr>.` for anything Scheduler refuses.
 */
export function parseExpression(expr: string, timezone: string): Expression {
  const bad = () => new InvalidInputError(`Invalid Schedule Expression ${expr}.`);
  const at = /^at\((\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})\)$/.exec(expr);
  if (at) {
    const [, y, mo, d, h, mi, s] = at.map(Number) as number[];
    const check = new Date(Date.UTC(y!, mo! - 1, d!, h!, mi!, s!));
    if (check.getUTCMonth() !== mo! - 1 || check.getUTCDate() !== d! || h! > 23 || mi! > 59 || s! > 59) throw bad();
    return { kind: 'at', at: zonedToEpoch(expr.slice(3, -1), timezone) };
  }
  const rate = /^rate\((\d+) (minutes?|hours?|days?)\)$/.exec(expr);
  if (rate) {
    const n = Number(rate[1]);
    if (n < 1) throw bad();
    return { kind: 'rate', everyMs: n * UNITS[rate[2]!]! };
  }
  const cron = /^cron\((.+)\)$/.exec(expr);
  if (cron) {
    const fields = cron[1]!.trim().split(/\s+/);
    // AWS: six fields; one of day-of-month and day-of-week must be '?', not both.
    if (fields.length !== 6 || (fields[2] === '?') === (fields[4] === '?')) throw bad();
    try {
      return { kind: 'cron', cron: new Cron(`0 ${fields.join(' ')}`, { timezone, mode: '7-part', alternativeWeekdays: true, sloppyRanges: true, paused: true }) };
    } catch {
      throw bad();
    }
  }
  throw bad();
}

/**
 * The first fire strictly after `after` (ms), or undefined when there is none.
 * `anchor` is where a rate schedule starts counting (StartDate, else creation time).
 *
 * @example
 * nextFire(parseExpression('rate(5 minutes)', 'UTC'), t0 + 1, t0); // t0 + 300_000
 */
export function nextFire(e: Expression, after: number, anchor: number): number | undefined {
  switch (e.kind) {
    case 'at':
      return e.at > after ? e.at : undefined;
    case 'rate': {
      if (after < anchor) return anchor;
      return anchor + (Math.floor((after - anchor) / e.everyMs) + 1) * e.everyMs;
    }
    case 'cron': {
      let from = new Date(after);
      for (let i = 0; i < 8; i++) {
        const next = e.cron.nextRun(from);
        if (!next) return undefined;
        // croner moves a time in a spring-forward gap to after the gap; AWS skips that run.
        if (e.cron.match(next)) return next.getTime();
        from = next;
      }
      return undefined;
    }
  }
}

/**
 * The latest fire in (`after`, `until`], or undefined when there is none: what a pump
 * that was away delivers once for all the fires it missed.
 *
 * @example
 * lastFire(parseExpression('rate(5 minutes)', 'UTC'), t0, t0 + 23 * 60_000, t0); // t0 + 20 * 60_000
 */
export function lastFire(e: Expression, after: number, until: number, anchor: number): number | undefined {
  if (until <= after) return undefined;
  switch (e.kind) {
    case 'at':
      return e.at > after && e.at <= until ? e.at : undefined;
    case 'rate': {
      if (until < anchor) return undefined;
      const last = anchor + Math.floor((until - anchor) / e.everyMs) * e.everyMs;
      return last > after ? last : undefined;
    }
    case 'cron': {
      // croner walks back from `until` (exclusive, hence +1); a time in a spring-forward gap is no fire.
      for (const run of e.cron.previousRuns(8, new Date(until + 1))) {
        const t = run.getTime();
        if (t <= after) return undefined;
        if (e.cron.match(run)) return t;
      }
      return undefined;
    }
  }
}

/** Epoch ms of a wall-clock time 'yyyy-mm-ddThh:mm:ss' in `timezone`. */
function zonedToEpoch(local: string, timezone: string): number {
  const asUtc = Date.parse(`${local}Z`);
  const offset = (t: number) => {
    const parts = new Intl.DateTimeFormat('en-US', { timeZone: timezone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit' })
      .formatToParts(new Date(t))
      .reduce<Record<string, string>>((acc, p) => ({ ...acc, [p.type]: p.value }), {});
    return Date.parse(`${parts.year}-${parts.month}-${parts.day}T${parts.hour}:${parts.minute}:${parts.second}Z`) - t;
  };
  // Two passes settle the offset on either side of a DST change.
  const first = asUtc - offset(asUtc);
  return asUtc - offset(first);
}
