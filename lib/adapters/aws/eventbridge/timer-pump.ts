/**
 * The timer pump for LocalStack (`airless timer-pump`). LocalStack's EventBridge
 * Scheduler stores schedules but never fires them, so this lists the schedules of the
 * timer and DAG groups every few seconds and delivers what is due itself: one-time
 * `at()` schedules (then deleted when ActionAfterCompletion is DELETE) and recurring
 * `cron()`/`rate()` ones, sending each target's Input to its SQS queue.
 * On real AWS it is never needed.
 */
import {
  DeleteScheduleCommand,
  GetScheduleCommand,
  type GetScheduleCommandOutput,
  ListSchedulesCommand,
  type SchedulerClient,
} from '@aws-sdk/client-scheduler';
import { GetQueueUrlCommand, SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { InvalidInputError } from '../../../engine/index.js';
import type { ScheduleSpec } from '../../../engine/index.js';
import type { Clock } from '../../../engine/index.js';
import { nextTick, normalizeDate, prevTick } from '../../../engine/index.js';

export interface TimerPumpOptions {
  scheduler: SchedulerClient;
  sqs: SQSClient;
  /** Schedule groups to pump: the stack's timer and DAG groups. */
  groups: readonly string[];
  /** Where a line about each delivery goes. @default nowhere */
  log?: (line: string) => void;
}

export interface PumpDelivery {
  group: string;
  name: string;
  /** The tick (or `at()` instant) delivered. */
  at: number;
  kind: 'once' | 'recurring';
}

export interface PumpReport {
  delivered: PumpDelivery[];
  deleted: string[];
  /** Schedules left alone, with the reason (disabled, not an SQS target, unsupported expression). */
  skipped: { name: string; reason: string }[];
}

const RATE_UNITS: Readonly<Record<string, number>> = { minute: 60_000, hour: 3_600_000, day: 86_400_000 };

/**
 * @example
 * const pump = new TimerPump({ scheduler, sqs, groups: ['Airless-timers', 'Airless-dags'] });
 * await pump.run({ clock: new SystemClock(), intervalMs: 5_000, signal });
 */
export class TimerPump {
  private readonly o: TimerPumpOptions;
  /** Last tick delivered per recurring schedule (or where counting started). */
  private readonly lastFire = new Map<string, number>();
  /** One-time schedules delivered that stay (ActionAfterCompletion NONE). */
  private readonly firedOnce = new Set<string>();
  private readonly queueUrls = new Map<string, string>();
  private readonly details = new Map<string, { stamp: string; schedule: GetScheduleCommandOutput }>();

  constructor(opts: TimerPumpOptions) {
    this.o = opts;
  }

  /** One pass over every group at time `now`. */
  async pumpOnce(now: number): Promise<PumpReport> {
    const report: PumpReport = { delivered: [], deleted: [], skipped: [] };
    for (const group of this.o.groups) {
      for (const summary of await this.list(group)) {
        const s = await this.detail(group, summary.Name, summary.LastModificationDate);
        if (s) await this.consider(group, summary.Name, s, now, report);
      }
    }
    return report;
  }

  /** Pumps every `intervalMs` of `clock` until `signal` aborts (or `maxCycles` passes). */
  async run(opts: { clock: Clock; intervalMs: number; signal?: AbortSignal; maxCycles?: number }): Promise<void> {
    for (let i = 0; !opts.signal?.aborted && (opts.maxCycles === undefined || i < opts.maxCycles); i++) {
      try {
        await this.pumpOnce(opts.clock.now());
      } catch (e) {
        // A transient LocalStack hiccup must not stop the pump: the next cycle retries.
        this.o.log?.(`timer pump: ${(e as Error).message}`);
      }
      await opts.clock.sleep(opts.intervalMs, opts.signal);
    }
  }

  private async consider(group: string, name: string, s: GetScheduleCommandOutput, now: number, report: PumpReport): Promise<void> {
    const key = `${group}/${name}`;
    const expr = s.ScheduleExpression ?? '';
    const tz = s.ScheduleExpressionTimezone ?? 'UTC';
    const start = s.StartDate?.getTime();
    const end = s.EndDate?.getTime();
    if (s.State === 'DISABLED') {
      // EventBridge does not fire while disabled, and does not catch up when enabled.
      this.lastFire.set(key, now);
      report.skipped.push({ name: key, reason: 'disabled' });
      return;
    }
    if (expr.startsWith('at(')) {
      if (this.firedOnce.has(key)) return;
      const at = parseAt(expr, tz);
      if (at > now) return;
      await this.deliver(group, name, s, at, 'once', report);
      if (s.ActionAfterCompletion === 'DELETE') {
        await this.deleteSchedule(group, name);
        report.deleted.push(key);
      } else {
        this.firedOnce.add(key);
      }
      return;
    }
    let spec: Exclude<ScheduleSpec, null>;
    try {
      spec = recurringSpec(expr, tz);
    } catch (e) {
      report.skipped.push({ name: key, reason: (e as Error).message });
      return;
    }
    const anchor = start ?? s.CreationDate?.getTime() ?? now;
    const from = this.lastFire.get(key) ?? Math.max(s.CreationDate?.getTime() ?? now, start === undefined ? -Infinity : start - 1);
    const next = nextTick(spec, from, spec.kind === 'rate' ? anchor : 0);
    const limit = end === undefined ? now : Math.min(now, end);
    if (next === undefined || next > limit) {
      if (!this.lastFire.has(key)) this.lastFire.set(key, from);
      return;
    }
    // Ticks missed while the pump was down are coalesced into one message: a DAG
    // schedule's message carries tickAt 0 and the engine computes every due tick itself.
    const last = prevTick(spec, limit, spec.kind === 'rate' ? anchor : 0) ?? next;
    await this.deliver(group, name, s, last, 'recurring', report);
    this.lastFire.set(key, last);
  }

  private async deliver(group: string, name: string, s: GetScheduleCommandOutput, at: number, kind: PumpDelivery['kind'], report: PumpReport): Promise<void> {
    const arn = s.Target?.Arn ?? '';
    const m = /^arn:[\w-]+:sqs:[\w-]+:(\d{12}):(.+)$/.exec(arn);
    if (!m) {
      report.skipped.push({ name: `${group}/${name}`, reason: `target ${arn || '(none)'} is not an SQS queue` });
      return;
    }
    const queueUrl = await this.queueUrl(m[2], m[1]);
    await this.o.sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: s.Target?.Input ?? '{}' }));
    report.delivered.push({ group, name, at, kind });
    this.o.log?.(`delivered ${group}/${name} (${new Date(at).toISOString()}) to ${m[2]}`);
  }

  private async queueUrl(queueName: string, account: string): Promise<string> {
    const key = `${account}:${queueName}`;
    let url = this.queueUrls.get(key);
    if (!url) {
      url = (await this.o.sqs.send(new GetQueueUrlCommand({ QueueName: queueName, QueueOwnerAWSAccountId: account }))).QueueUrl!;
      this.queueUrls.set(key, url);
    }
    return url;
  }

  private async list(group: string): Promise<{ Name: string; LastModificationDate?: Date }[]> {
    const out: { Name: string; LastModificationDate?: Date }[] = [];
    let token: string | undefined;
    do {
      const page = await this.o.scheduler.send(new ListSchedulesCommand({ GroupName: group, NextToken: token, MaxResults: 100 }));
      for (const s of page.Schedules ?? []) if (s.Name) out.push({ Name: s.Name, LastModificationDate: s.LastModificationDate });
      token = page.NextToken;
    } while (token);
    return out;
  }

  /** GetSchedule, cached while the schedule's modification date stays the same. */
  private async detail(group: string, name: string, modified?: Date): Promise<GetScheduleCommandOutput | undefined> {
    const key = `${group}/${name}`;
    const stamp = modified?.toISOString() ?? '';
    const hit = this.details.get(key);
    if (hit && stamp && hit.stamp === stamp) return hit.schedule;
    try {
      const schedule = await this.o.scheduler.send(new GetScheduleCommand({ GroupName: group, Name: name }));
      this.details.set(key, { stamp, schedule });
      return schedule;
    } catch (e) {
      if ((e as Error).name === 'ResourceNotFoundException') return undefined; // deleted since the listing
      throw e;
    }
  }

  private async deleteSchedule(group: string, name: string): Promise<void> {
    try {
      await this.o.scheduler.send(new DeleteScheduleCommand({ GroupName: group, Name: name }));
    } catch (e) {
      if ((e as Error).name !== 'ResourceNotFoundException') throw e;
    }
    this.details.delete(`${group}/${name}`);
  }
}

/**
 * The instant of an `at(yyyy-mm-ddThh:mm:ss)` expression, read in `timezone`.
 *
 * @example
 * parseAt('at(2030-01-02T03:04:05)', 'UTC'); // Date.UTC(2030, 0, 2, 3, 4, 5)
 */
export function parseAt(expr: string, timezone: string): number {
  const m = /^at\((\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})\)$/.exec(expr.trim());
  if (!m) throw new InvalidInputError(`not an at() expression: ${expr}`);
  return Date.parse(normalizeDate(m[1], timezone));
}

/**
 * The engine's schedule for a `rate()` or 6-field EventBridge `cron()` expression.
 *
 * @example
 * recurringSpec('cron(0 2 * * ? *)', 'Europe/Berlin'); // { kind: 'cron', expr: '0 2 * * *', timezone: 'Europe/Berlin' }
 * recurringSpec('rate(5 minutes)', 'UTC');           // { kind: 'rate', everyMs: 300000 }
 */
export function recurringSpec(expr: string, timezone: string): Exclude<ScheduleSpec, null> {
  const rate = /^rate\((\d+)\s+(minute|hour|day)s?\)$/.exec(expr.trim());
  if (rate) return { kind: 'rate', everyMs: Number(rate[1]) * RATE_UNITS[rate[2]] };
  const cron = /^cron\((.+)\)$/.exec(expr.trim());
  if (!cron) throw new InvalidInputError(`unsupported schedule expression ${expr}`);
  return { kind: 'cron', expr: awsCronToUnix(cron[1]), timezone };
}

/**
 * 6-field EventBridge cron to 5-field Unix cron: `?` becomes `*`, days of week 1-7
 * (SUN-SAT) become 0-6, the year is dropped (only `*` is accepted).
 *
 * @example
 * awsCronToUnix('0/15 9-17 ? * 2-6 *'); // '0-59/15 9-17 * * 1-5'
 */
export function awsCronToUnix(fields: string): string {
  const f = fields.trim().split(/\s+/);
  if (f.length !== 6) throw new InvalidInputError(`cron(${fields}): expected 6 fields`);
  const [min, hour, dom, mon, dow, year] = f;
  if (year !== '*') throw new InvalidInputError(`cron(${fields}): only year * is supported by the pump`);
  if (/[LW#]/.test(`${dom} ${dow}`)) throw new InvalidInputError(`cron(${fields}): L, W and # are not supported by the pump`);
  const unixDow = dow === '?' ? '*' : dow.replace(/\d+/g, (n, offset: number, all: string) => (all[offset - 1] === '/' ? n : String(Number(n) - 1)));
  return [steps(min, 59), steps(hour, 23), dom === '?' ? '*' : steps(dom, 31), steps(mon, 12), steps(unixDow, 6)].join(' ');
}

/** `a/n` (EventBridge: from a, every n) as `a-max/n`, the form the engine's cron parser takes. */
function steps(field: string, max: number): string {
  return field.split(',').map((part) => part.replace(/^(\d+)\/(\d+)$/, `$1-${max}/$2`)).join(',');
}
