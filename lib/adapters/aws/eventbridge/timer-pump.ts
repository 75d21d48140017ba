/**
 * The timer pump for LocalStack (`airless timer-pump`). LocalStack's EventBridge
 * Scheduler stores schedules but never fires them, so this lists the schedules of the
 * timer and DAG groups every few seconds and delivers what is due itself: one-time
 * `at()` schedules (then deleted when ActionAfterCompletion is DELETE) and recurring
 * `cron()`/`rate()` ones, sending each target's Input to its SQS queue. Expressions are
 * read as Scheduler reads them (./expressions.ts, shared with the rehearsal's Scheduler).
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
import type { Clock } from '../../../engine/index.js';
import { lastFire, nextFire, parseExpression, type Expression } from './expressions.js';

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
    let e: Expression;
    try {
      e = parseExpression(expr, tz);
    } catch (err) {
      report.skipped.push({ name: key, reason: (err as Error).message });
      return;
    }
    if (e.kind === 'at') {
      if (this.firedOnce.has(key)) return;
      const at = e.at;
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
    const anchor = start ?? s.CreationDate?.getTime() ?? now;
    const from = this.lastFire.get(key) ?? Math.max(s.CreationDate?.getTime() ?? now, start === undefined ? -Infinity : start - 1);
    const next = nextFire(e, from, anchor);
    const limit = end === undefined ? now : Math.min(now, end);
    if (next === undefined || next > limit) {
      if (!this.lastFire.has(key)) this.lastFire.set(key, from);
      return;
    }
    // Ticks missed while the pump was down are coalesced into one message: a DAG
    // schedule's message carries tickAt 0 and the engine computes every due tick itself.
    const last = lastFire(e, from, limit, anchor) ?? next;
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
