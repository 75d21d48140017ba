/**
 * The EventBridge Scheduler emulator's state: schedule groups, schedules and each schedule's
 * next fire. Time comes from outside (`now` arguments), so a jumped clock fires exactly the
 * instants AWS would. FLEXIBLE windows fire at the window's start (deterministic).
 */
import { invalid, SchedulerApiError } from './errors.js';
import { nextFire, type Expression } from '../../../adapters/aws/eventbridge/expressions.js';
import { deadLetterOf, isRetryable, nextAttempt, type DeadLetter, type Exhausted, type PendingRetry } from './dead-letter.js';
import type { RunDueResult, Schedule, ScheduleFire, ScheduleInput, SchedulerEmulator } from './types.js';
import { checkName, checkSchedule } from './validate.js';

interface Entry {
  schedule: Schedule;
  clientToken?: string;
  expression: Expression;
  anchor: number;
  next: number | undefined;
}

interface Group { Arn: string; Name: string; State: 'ACTIVE'; CreationDate: number; LastModificationDate: number }

export interface EmulatorDeps {
  region: string;
  accountId: string;
  clock: () => number;
  authorizeFire: (fire: ScheduleFire) => Promise<boolean>;
  onFire?: (fire: ScheduleFire) => Promise<void>;
  /** Fires kept per schedule per dueFires call when the clock jumps far; older ones are dropped. @default 10000 */
  maxFiresPerCall?: number;
}

export interface ListInput { GroupName?: string; NamePrefix?: string; State?: string; MaxResults?: number; NextToken?: string }

/**
 * @example
 * const s = new Scheduler({ region: 'us-east-1', accountId: '000000000000', clock: () => now, authorizeFire: async () => true });
 * s.create({ Name: 'tick', ScheduleExpression: 'rate(1 minute)', FlexibleTimeWindow: { Mode: 'OFF' }, Target: { Arn, RoleArn } });
 * s.dueFires(now + 60_000);
 */
export class Scheduler implements SchedulerEmulator {
  private readonly groups = new Map<string, Group>();
  private readonly entries = new Map<string, Entry>();
  private retries: PendingRetry[] = [];
  private deadLetterSink?: (d: DeadLetter) => Promise<void>;
  /** Every dead-letter event sent, in order. */
  readonly deadLetters: DeadLetter[] = [];

  constructor(private readonly deps: EmulatorDeps) {
    this.createGroup('default');
  }

  private key = (group: string, name: string) => `${group}/${name}`;
  scheduleArn = (group: string, name: string) => `arn:aws:scheduler:${this.deps.region}:${this.deps.accountId}:schedule/${group}/${name}`;
  groupArn = (group: string) => `arn:aws:scheduler:${this.deps.region}:${this.deps.accountId}:schedule-group/${group}`;

  createGroup(name: string): void {
    checkName(name, 'name');
    if (this.groups.has(name)) throw new SchedulerApiError('ConflictException', `Schedule group ${name} already exists.`);
    const now = this.deps.clock();
    this.groups.set(name, { Arn: this.groupArn(name), Name: name, State: 'ACTIVE', CreationDate: now, LastModificationDate: now });
  }

  getGroup(name: string): Group {
    const g = this.groups.get(checkName(name, 'name'));
    if (!g) throw new SchedulerApiError('ResourceNotFoundException', `Schedule group ${name} does not exist.`);
    return g;
  }

  listGroups(input: { NamePrefix?: string; MaxResults?: number; NextToken?: string }): { items: Group[]; NextToken?: string } {
    const all = [...this.groups.values()].filter((g) => !input.NamePrefix || g.Name.startsWith(input.NamePrefix)).sort((a, b) => a.Name.localeCompare(b.Name));
    return page(all, input.MaxResults, input.NextToken);
  }

  deleteGroup(name: string): void {
    if (name === 'default') throw invalid('The default schedule group cannot be deleted.');
    this.getGroup(name);
    for (const [k, e] of this.entries) if (e.schedule.GroupName === name) this.entries.delete(k);
    this.groups.delete(name);
  }

  /** CreateSchedule: ConflictException when the name exists in the group. */
  create(input: ScheduleInput): Schedule {
    const existing = this.entries.get(this.key(input.GroupName ?? 'default', input.Name));
    if (existing && input.ClientToken !== undefined && existing.clientToken === input.ClientToken) return existing.schedule;
    if (existing) throw new SchedulerApiError('ConflictException', `Schedule ${input.Name} already exists.`);
    return this.store(input, undefined);
  }

  /** UpdateSchedule: replaces the whole definition; ResourceNotFoundException when missing. */
  update(input: ScheduleInput): Schedule {
    const existing = this.entries.get(this.key(input.GroupName ?? 'default', input.Name));
    if (!existing) throw new SchedulerApiError('ResourceNotFoundException', `Schedule ${input.Name} does not exist.`);
    return this.store(input, existing.schedule.CreationDate);
  }

  putSchedule(input: ScheduleInput): Schedule {
    const existing = this.entries.get(this.key(input.GroupName ?? 'default', input.Name));
    return this.store(input, existing?.schedule.CreationDate);
  }

  private store(input: ScheduleInput, created: number | undefined): Schedule {
    const now = this.deps.clock();
    const { schedule, expression } = checkSchedule(input, now);
    if (!this.groups.has(schedule.GroupName)) throw new SchedulerApiError('ResourceNotFoundException', `Schedule group ${schedule.GroupName} does not exist.`);
    const full: Schedule = { ...schedule, Arn: this.scheduleArn(schedule.GroupName, schedule.Name), CreationDate: created ?? now, LastModificationDate: now };
    const anchor = full.StartDate ?? now;
    const entry: Entry = { schedule: full, expression, anchor, next: undefined, ...(input.ClientToken !== undefined ? { clientToken: input.ClientToken } : {}) };
    // A rate schedule fires at once (or at StartDate); an at() in the past fires at once.
    entry.next = expression.kind === 'at' ? Math.max(expression.at, now)
      : expression.kind === 'rate' ? nextFire(expression, Math.max(now, anchor) - 1, anchor)
        : nextFire(expression, Math.max(now, anchor - 1), anchor);
    this.entries.set(this.key(full.GroupName, full.Name), entry);
    return full;
  }

  get(group: string, name: string): Schedule {
    const e = this.entries.get(this.key(checkName(group, 'groupName'), checkName(name, 'name')));
    if (!e) throw new SchedulerApiError('ResourceNotFoundException', `Schedule ${name} does not exist.`);
    return e.schedule;
  }

  getSchedule(group: string, name: string): Schedule | undefined {
    return this.entries.get(this.key(group, name))?.schedule;
  }

  delete(group: string, name: string): void {
    if (!this.deleteSchedule(checkName(group, 'groupName'), checkName(name, 'name'))) {
      throw new SchedulerApiError('ResourceNotFoundException', `Schedule ${name} does not exist.`);
    }
  }

  deleteSchedule(group: string, name: string): boolean {
    return this.entries.delete(this.key(group, name));
  }

  list(input: ListInput): { items: Schedule[]; NextToken?: string } {
    if (input.State !== undefined && input.State !== 'ENABLED' && input.State !== 'DISABLED') throw invalid(`Invalid State: ${input.State}`);
    if (input.GroupName !== undefined) this.getGroup(input.GroupName);
    const all = this.listSchedules()
      .filter((s) => (input.GroupName === undefined || s.GroupName === input.GroupName)
        && (!input.NamePrefix || s.Name.startsWith(input.NamePrefix))
        && (input.State === undefined || s.State === input.State));
    return page(all, input.MaxResults, input.NextToken);
  }

  listSchedules(): Schedule[] {
    return [...this.entries.values()].map((e) => e.schedule).sort((a, b) => a.GroupName.localeCompare(b.GroupName) || a.Name.localeCompare(b.Name));
  }

  dueFires(now: number): ScheduleFire[] {
    const cap = this.deps.maxFiresPerCall ?? 10_000;
    const fires: ScheduleFire[] = [];
    for (const [key, e] of this.entries) {
      const s = e.schedule;
      if (s.State !== 'ENABLED') continue;
      // A ring of the newest `cap` fires: a far jump costs one pass, not one shift per fire.
      const ring: ScheduleFire[] = [];
      let seen = 0;
      while (e.next !== undefined && e.next <= now && (e.expression.kind === 'at' || s.EndDate === undefined || e.next <= s.EndDate)) {
        ring[seen++ % cap] = { group: s.GroupName, name: s.Name, scheduleArn: s.Arn, fireTime: e.next, target: s.Target };
        e.next = e.expression.kind === 'at' ? undefined : nextFire(e.expression, e.next, e.anchor);
      }
      const oldest = seen > cap ? seen % cap : 0;
      fires.push(...ring.slice(oldest), ...ring.slice(0, oldest));
      const completed = e.next === undefined || (e.expression.kind !== 'at' && s.EndDate !== undefined && e.next > s.EndDate);
      if (completed && s.ActionAfterCompletion === 'DELETE') this.entries.delete(key);
      else if (completed) e.next = undefined;
    }
    return fires.sort((a, b) => a.fireTime - b.fireTime);
  }

  nextDue(): number | undefined {
    let min: number | undefined;
    for (const e of this.entries.values()) {
      const s = e.schedule;
      const ended = e.expression.kind !== 'at' && s.EndDate !== undefined && e.next !== undefined && e.next > s.EndDate;
      if (s.State === 'ENABLED' && e.next !== undefined && !ended && (min === undefined || e.next < min)) min = e.next;
    }
    return min;
  }

  authorizeFire(fire: ScheduleFire): Promise<boolean> {
    return this.deps.authorizeFire(fire);
  }

  async runDue(now: number): Promise<RunDueResult> {
    const result: RunDueResult = { delivered: [], denied: [], failed: [], retrying: [], deadLettered: [] };
    const retries = this.retries.filter((r) => r.at <= now);
    this.retries = this.retries.filter((r) => r.at > now);
    const attempts = [...retries, ...this.dueFires(now).map((fire) => ({ fire, attempt: 0, at: now }))];
    for (const { fire, attempt } of attempts) {
      if (!(await this.authorizeFire(fire))) {
        result.denied.push(fire);
        const error = Object.assign(new Error(`${fire.target.RoleArn} may not deliver to ${fire.target.Arn}`), { name: 'AccessDeniedException', retryable: false });
        await this.giveUp(fire, error, attempt, undefined, result);
        continue;
      }
      try {
        await this.deps.onFire?.(fire);
        result.delivered.push(fire);
      } catch (error) {
        result.failed.push({ fire, error });
        const next = nextAttempt(fire, attempt, this.deps.clock(), isRetryable(error));
        if ('retryAt' in next) {
          this.retries.push({ fire, attempt: attempt + 1, at: next.retryAt });
          result.retrying.push(fire);
        } else await this.giveUp(fire, error, attempt, next.exhausted, result);
      }
    }
    return result;
  }

  /** The next retry of a fire that failed, or undefined. */
  nextRetry(): number | undefined {
    return this.retries.length ? Math.min(...this.retries.map((r) => r.at)) : undefined;
  }

  /** Where dead-letter events go once authorized (the rehearsal sends them to its SQS server). */
  setDeadLetterSink(sink: (d: DeadLetter) => Promise<void>): void {
    this.deadLetterSink = sink;
  }

  /** Sends the dead-letter event, authorized as the schedule's role (sts:AssumeRole, then sqs:SendMessage on the queue). */
  private async giveUp(fire: ScheduleFire, error: unknown, retries: number, exhausted: Exhausted | undefined, result: RunDueResult): Promise<void> {
    const d = deadLetterOf(fire, error, retries, exhausted);
    if (!d) return;
    if (!(await this.deps.authorizeFire({ ...fire, target: { ...fire.target, Arn: d.queueArn } }))) return;
    try {
      await this.deadLetterSink?.(d);
      this.deadLetters.push(d);
      result.deadLettered.push(d);
    } catch (e) {
      result.failed.push({ fire, error: e });
    }
  }
}

function page<T>(all: T[], max: number | undefined, token: string | undefined): { items: T[]; NextToken?: string } {
  const size = max ?? 100;
  if (!Number.isInteger(size) || size < 1 || size > 100) throw invalid(`1 validation error detected: Value '${String(max)}' at 'maxResults' failed to satisfy constraint: Member must have value between 1 and 100`);
  const start = token === undefined ? 0 : Number(Buffer.from(token, 'base64url').toString());
  if (!Number.isInteger(start) || start < 0) throw invalid('Invalid NextToken.');
  const items = all.slice(start, start + size);
  const end = start + items.length;
  return end < all.length ? { items, NextToken: Buffer.from(String(end)).toString('base64url') } : { items };
}
