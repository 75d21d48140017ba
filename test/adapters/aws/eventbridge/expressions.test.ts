/**
 * The one reader of EventBridge Scheduler expressions (lib/adapters/aws/eventbridge/expressions.ts),
 * on AWS's documented examples ("Schedule types on EventBridge Scheduler" and the cron
 * expression reference: six fields, `?` in one of the day fields, `L`, `W`, `#`, a year),
 * and against its writer (./to-expression.ts): what the build renders reads back as
 * the engine's own schedule.
 */
import { describe, expect, it } from 'vitest';
import { lastFire, nextFire, parseExpression } from '../../../../lib/adapters/aws/eventbridge/expressions.js';
import { toEventBridgeExpression } from '../../../../lib/adapters/aws/eventbridge/to-expression.js';
import { InvalidInputError, nextTick, parseSchedule } from '../../../../lib/engine/index.js';

/** 2030-01-01 is a Tuesday. */
const T0 = Date.parse('2030-01-01T00:00:00Z');
const iso = (t: number | undefined) => (t === undefined ? undefined : new Date(t).toISOString());

/** The next `n` fires after `after`, as ISO strings. */
function fires(expr: string, n: number, after = T0, timezone = 'UTC', anchor = after): (string | undefined)[] {
  const e = parseExpression(expr, timezone);
  const out: (string | undefined)[] = [];
  let t: number | undefined = after;
  for (let i = 0; i < n && t !== undefined; i++) {
    t = nextFire(e, t, anchor);
    out.push(iso(t));
  }
  return out;
}

describe('AWS\'s documented cron examples', () => {
  it.each([
    ['cron(0 10 * * ? *)', '10:00 every day', ['2030-01-01T10:00:00.000Z', '2030-01-02T10:00:00.000Z']],
    ['cron(15 12 * * ? *)', '12:15 every day', ['2030-01-01T12:15:00.000Z', '2030-01-02T12:15:00.000Z']],
    ['cron(0 18 ? * MON-FRI *)', '18:00 Monday to Friday', ['2030-01-01T18:00:00.000Z', '2030-01-02T18:00:00.000Z', '2030-01-03T18:00:00.000Z', '2030-01-04T18:00:00.000Z', '2030-01-07T18:00:00.000Z']],
    ['cron(0 8 1 * ? *)', '08:00 on the first of the month', ['2030-01-01T08:00:00.000Z', '2030-02-01T08:00:00.000Z']],
    ['cron(0/15 * * * ? *)', 'every 15 minutes', ['2030-01-01T00:15:00.000Z', '2030-01-01T00:30:00.000Z', '2030-01-01T00:45:00.000Z']],
    ['cron(1/10 * * * ? *)', 'every tenth minute from the first', ['2030-01-01T00:01:00.000Z', '2030-01-01T00:11:00.000Z']],
    ['cron(0/5 8-17 ? * MON-FRI *)', 'every 5 minutes 08:00-17:55 on weekdays', ['2030-01-01T08:00:00.000Z', '2030-01-01T08:05:00.000Z']],
    ['cron(0 9 ? * 2#1 *)', '09:00 on the first Monday of the month', ['2030-01-07T09:00:00.000Z', '2030-02-04T09:00:00.000Z']],
    ['cron(0 9 L * ? *)', '09:00 on the last day of the month', ['2030-01-31T09:00:00.000Z', '2030-02-28T09:00:00.000Z']],
    ['cron(0 9 ? * 6L *)', '09:00 on the last Friday of the month', ['2030-01-25T09:00:00.000Z', '2030-02-22T09:00:00.000Z']],
    // 2030-03-03 is a Sunday: the closest weekday is Monday the 4th.
    ['cron(0 9 3W * ? *)', '09:00 on the weekday closest to the 3rd', ['2030-01-03T09:00:00.000Z', '2030-02-04T09:00:00.000Z', '2030-03-04T09:00:00.000Z']],
    ['cron(0 0 ? * 1 *)', 'midnight on Sundays (1 = SUN)', ['2030-01-06T00:00:00.000Z', '2030-01-13T00:00:00.000Z']],
    ['cron(0 10 * * ? 2031)', '10:00 every day of 2031 only', ['2031-01-01T10:00:00.000Z', '2031-01-02T10:00:00.000Z']],
  ])('%s fires at %s', (expr, _what, expected) => {
    expect(fires(expr, expected.length)).toEqual(expected);
  });

  it('a year that is over fires no more', () => {
    expect(fires('cron(0 10 * * ? 2029)', 1)).toEqual([undefined]);
  });

  it('refuses what Scheduler refuses, with its message', () => {
    for (const expr of [
      'cron(0 10 * * * *)', // * in both day fields
      'cron(0 10 ? * ? *)', // ? in both
      'cron(0 10 * * ?)', // five fields
      'cron(61 10 * * ? *)',
      'rate(0 minutes)',
      'rate(5 weeks)',
      'rate(5minutes)',
      'at(2030-02-30T00:00:00)',
      'at(2030-01-01 00:00:00)',
      'every 5 minutes',
    ]) {
      expect(() => parseExpression(expr, 'UTC'), expr).toThrow(InvalidInputError);
      expect(() => parseExpression(expr, 'UTC'), expr).toThrow(`Invalid Schedule Expression ${expr}.`);
    }
  });
});

describe('rate and at', () => {
  it('reads rate(value unit) in minutes, hours and days, singular or plural', () => {
    expect(parseExpression('rate(5 minutes)', 'UTC')).toEqual({ kind: 'rate', everyMs: 300_000 });
    expect(parseExpression('rate(1 hour)', 'UTC')).toEqual({ kind: 'rate', everyMs: 3_600_000 });
    expect(parseExpression('rate(7 days)', 'UTC')).toEqual({ kind: 'rate', everyMs: 7 * 86_400_000 });
  });

  it('counts a rate from its anchor (StartDate, else creation)', () => {
    const anchor = T0 + 90_000;
    expect(fires('rate(5 minutes)', 2, T0, 'UTC', anchor)).toEqual([iso(anchor), iso(anchor + 300_000)]);
  });

  it('reads at() in the schedule\'s time zone and fires it once', () => {
    expect(parseExpression('at(2022-11-20T13:00:00)', 'UTC')).toEqual({ kind: 'at', at: Date.parse('2022-11-20T13:00:00Z') });
    const ny = parseExpression('at(2022-11-20T13:00:00)', 'America/New_York');
    expect(ny).toEqual({ kind: 'at', at: Date.parse('2022-11-20T18:00:00Z') });
    expect(nextFire(ny, Date.parse('2022-11-20T17:59:59Z'), 0)).toBe(Date.parse('2022-11-20T18:00:00Z'));
    expect(nextFire(ny, Date.parse('2022-11-20T18:00:00Z'), 0)).toBeUndefined();
  });
});

describe('time zones and daylight saving', () => {
  it('a cron runs in its time zone; a run in the spring-forward gap is skipped, as Scheduler does', () => {
    // 2030-03-10: New York springs from 02:00 to 03:00, so 02:30 does not exist that day.
    const after = Date.parse('2030-03-09T00:00:00Z');
    expect(fires('cron(30 2 * * ? *)', 2, after, 'America/New_York')).toEqual(['2030-03-09T07:30:00.000Z', '2030-03-11T06:30:00.000Z']);
  });
});

describe('lastFire: the latest fire a pump that was away delivers', () => {
  it('is the last fire in (after, until]', () => {
    const every5 = parseExpression('rate(5 minutes)', 'UTC');
    expect(lastFire(every5, T0, T0 + 23 * 60_000, T0)).toBe(T0 + 20 * 60_000);
    expect(lastFire(every5, T0 + 20 * 60_000, T0 + 24 * 60_000, T0)).toBeUndefined();
    const hourly = parseExpression('cron(0 * * * ? *)', 'UTC');
    expect(lastFire(hourly, T0, T0 + 5 * 3_600_000 + 1, 0)).toBe(T0 + 5 * 3_600_000);
    expect(lastFire(hourly, T0 + 5 * 3_600_000, T0 + 5 * 3_600_000 + 59 * 60_000, 0)).toBeUndefined();
    const monthEnd = parseExpression('cron(0 9 L * ? *)', 'UTC');
    expect(iso(lastFire(monthEnd, T0, Date.parse('2030-03-15T00:00:00Z'), 0))).toBe('2030-02-28T09:00:00.000Z');
  });
});

describe('the build\'s rendering reads back as the engine\'s schedule', () => {
  it.each([
    ['0 2 * * *', 'Europe/Berlin'],
    ['*/15 9-17 * * MON-FRI', 'UTC'],
    ['30 6 1,15 * *', 'America/New_York'],
    ['0 0 * * 0', 'UTC'],
    ['0 12 * * 5L', 'UTC'],
    ['5 4 * * SUN#2', 'Asia/Tokyo'],
  ])('%s in %s', (cron, timezone) => {
    const spec = parseSchedule(cron, timezone)!;
    const rendered = toEventBridgeExpression(spec);
    const e = parseExpression(rendered.expression, rendered.timezone ?? 'UTC');
    let ours: number | undefined = T0;
    let engine: number | undefined = T0;
    for (let i = 0; i < 6; i++) {
      ours = nextFire(e, ours!, 0);
      engine = nextTick(spec, engine!);
      expect(iso(ours), `${rendered.expression} fire ${i}`).toBe(iso(engine));
    }
  });

  it('rates too', () => {
    const spec = { kind: 'rate', everyMs: 2 * 3_600_000 } as const;
    const e = parseExpression(toEventBridgeExpression(spec).expression, 'UTC');
    expect(nextFire(e, T0 + 1, T0)).toBe(nextTick(spec, T0 + 1, T0));
  });
});
