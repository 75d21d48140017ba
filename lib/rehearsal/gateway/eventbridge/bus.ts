/**
 * The EventBridge emulator: event buses (the default bus and the template's), rules with
 * event patterns (matched by lib/engine/rules/event-pattern.ts, EventBridge's semantics), and
 * delivery to each matching rule's targets as EventBridge does it: authorized as the service
 * (`events.amazonaws.com` against the Lambda permission or the queue policy, with the rule's
 * ARN as `aws:SourceArn`) or as the target's role (a bus target), the input transformed, a
 * failed delivery retried with back-off per the target's RetryPolicy (AWS defaults: 185
 * attempts, 24 hours) and then, or at once when retrying cannot help (denied, no such
 * target), sent to its DeadLetterConfig queue with AWS's attributes. At least once: a hook
 * delivers chosen events twice (`duplicate`), another loses them (`drop`).
 *
 * AWS adds jitter to an exponential back-off it does not publish; the emulator waits 1 s,
 * 2 s, 4 s ... (capped at 3 minutes) so a rehearsal is repeatable.
 */
import { randomUUID } from 'node:crypto';
import { matchesPattern, validatePattern, type EventPattern } from '../../../engine/index.js';
import { targetInput } from './input.js';
import type { BusEvent, BusRule, Delivery, EventDeadLetter, EventSink, PutEventsEntry, PutEventsResultEntry, RuleTarget } from './types.js';

export const EVENT_RETRY_BASE_MS = 1_000;
export const EVENT_RETRY_CAP_MS = 3 * 60_000;
const DEFAULT_ATTEMPTS = 185;
const DEFAULT_AGE_S = 86_400;
/** PutEvents takes at most 10 entries of at most 256 KB each. */
const MAX_ENTRIES = 10;
const MAX_ENTRY_BYTES = 256 * 1024;

/** How the emulator asks IAM; recorded like every other decision. */
export interface EventAuth {
  /** An AWS service acting on a resource: judged by the resource's policy. */
  service(principal: string, action: string, resource: string, context: Record<string, string>): Promise<boolean>;
  /** The target's role: trusted by events.amazonaws.com, and allowed the action. */
  role(roleArn: string, action: string, resource: string, context: Record<string, string>): Promise<boolean>;
}

export interface EventBridgeDeps {
  region: string;
  accountId: string;
  clock: () => number;
  auth: EventAuth;
}

/** A delivery error: `retryable` decides between a retry and the dead-letter queue. */
export class DeliveryError extends Error {
  constructor(readonly code: string, message: string, readonly retryable: boolean) {
    super(message);
    this.name = code;
  }
}

type Hook = { match: (e: BusEvent, bus: string) => boolean; times: number };
interface Pending { delivery: Delivery; at: number }

/**
 * @example
 * const eb = new EventBridge({ region: 'us-east-1', accountId: '000000000000', clock: () => Date.now(), auth });
 * eb.putRule({ Name: 'jobs', EventPattern: { source: ['aws.ecs'] }, Targets: [{ Id: 'q', Arn: queueArn }] });
 * eb.publish({ source: 'aws.ecs', detailType: 'ECS Task State Change', detail: { lastStatus: 'STOPPED' } });
 * await eb.runDue(Date.now());
 */
export class EventBridge {
  private readonly buses = new Map<string, { Name: string; Arn: string }>();
  private readonly ruleList: BusRule[] = [];
  private queue: Pending[] = [];
  private inFlight = 0;
  private sink?: EventSink;
  private readonly drops: Hook[] = [];
  private readonly duplicates: Hook[] = [];
  private readonly outstanding = new Map<string, { count: number; waiters: (() => void)[] }>();
  /** Every event accepted on a bus, in order. */
  readonly events: { bus: string; event: BusEvent }[] = [];
  /** Events a `drop` hook lost. */
  readonly dropped: { bus: string; event: BusEvent }[] = [];
  /** Deliveries the sink accepted. */
  readonly delivered: Delivery[] = [];
  readonly deadLetters: EventDeadLetter[] = [];
  /** Deliveries given up (no dead-letter queue, or it refused them). */
  readonly failures: { delivery: Delivery; error: string }[] = [];
  /** Targets the emulator cannot deliver to (a type it does not model). */
  readonly unsupported = new Set<string>();

  constructor(private readonly deps: EventBridgeDeps) {
    this.createBus('default');
  }

  busArn = (name: string) => `arn:aws:events:${this.deps.region}:${this.deps.accountId}:event-bus/${name}`;
  ruleArn = (bus: string, rule: string) => `arn:aws:events:${this.deps.region}:${this.deps.accountId}:rule/${bus === 'default' ? '' : `${bus}/`}${rule}`;

  /** As AWS::Events::EventBus does. */
  createBus(name: string): void {
    this.buses.set(name, { Name: name, Arn: this.busArn(name) });
  }

  /** A bus by name or ARN, or undefined. */
  bus(nameOrArn: string | undefined): string | undefined {
    const name = nameOrArn === undefined || nameOrArn === '' ? 'default' : nameOrArn.startsWith('arn:') ? nameOrArn.split('event-bus/')[1] ?? '' : nameOrArn;
    return this.buses.has(name) ? name : undefined;
  }

  /** As AWS::Events::Rule with an EventPattern does; a pattern EventBridge would refuse throws. */
  putRule(r: { Name: string; EventBusName?: string; EventPattern: unknown; State?: string; Targets?: RuleTarget[] }): BusRule {
    const bus = this.bus(r.EventBusName);
    if (!bus) throw new DeliveryError('ResourceNotFoundException', `Event bus ${r.EventBusName} does not exist.`, false);
    const problem = validatePattern(r.EventPattern);
    if (problem) throw new DeliveryError('InvalidEventPatternException', `Event pattern of rule ${r.Name} is not valid. Reason: ${problem}`, false);
    const rule: BusRule = {
      Name: r.Name, Arn: this.ruleArn(bus, r.Name), EventBusName: bus, EventPattern: r.EventPattern as EventPattern,
      State: r.State === 'DISABLED' ? 'DISABLED' : 'ENABLED', Targets: r.Targets ?? [],
    };
    const i = this.ruleList.findIndex((x) => x.Arn === rule.Arn);
    if (i >= 0) this.ruleList[i] = rule;
    else this.ruleList.push(rule);
    return rule;
  }

  rules(): readonly BusRule[] {
    return this.ruleList;
  }

  setSink(sink: EventSink): void {
    this.sink = sink;
  }

  /** The next `times` events matching lose every delivery (a lost event). */
  drop(match: (e: BusEvent, bus: string) => boolean, times = 1): void {
    this.drops.push({ match, times });
  }

  /** The next `times` events matching are delivered twice to each target (at-least-once). */
  duplicate(match: (e: BusEvent, bus: string) => boolean, times = 1): void {
    this.duplicates.push({ match, times });
  }

  /**
   * PutEvents after IAM: each entry checked as EventBridge checks it, accepted ones routed.
   * Entry errors are per entry, as the API answers them; `aws.` sources are AWS's own.
   */
  putEvents(entries: PutEventsEntry[]): { FailedEntryCount: number; Entries: PutEventsResultEntry[] } {
    if (!Array.isArray(entries) || entries.length === 0 || entries.length > MAX_ENTRIES) {
      throw new DeliveryError('ValidationException', `1 validation error detected: Value at 'entries' failed to satisfy constraint: Member must have length less than or equal to ${MAX_ENTRIES} and greater than or equal to 1`, false);
    }
    const results = entries.map((e) => this.entry(e));
    return { FailedEntryCount: results.filter((r) => r.ErrorCode).length, Entries: results };
  }

  private entry(e: PutEventsEntry): PutEventsResultEntry {
    const fail = (code: string, message: string): PutEventsResultEntry => ({ ErrorCode: code, ErrorMessage: message });
    for (const [key, value] of [['Source', e.Source], ['DetailType', e.DetailType], ['Detail', e.Detail]] as const) {
      if (typeof value !== 'string' || value === '') return fail('InvalidArgument', `Parameter ${key} is not valid. Reason: ${key} is a required argument.`);
    }
    let detail: unknown;
    try {
      detail = JSON.parse(e.Detail!);
    } catch {
      return fail('MalformedDetail', 'Detail is malformed.');
    }
    if (detail === null || typeof detail !== 'object' || Array.isArray(detail)) return fail('MalformedDetail', 'Detail is malformed.');
    if (Buffer.byteLength(JSON.stringify(e)) > MAX_ENTRY_BYTES) return fail('InvalidArgument', 'Total size of the entries in the request is over the limit.');
    if (e.Source!.startsWith('aws.')) return fail('NotAuthorizedForSourceException', 'Not authorized for the source.');
    const bus = this.bus(e.EventBusName);
    if (!bus) return fail('ResourceNotFoundException', `Event bus ${e.EventBusName} does not exist.`);
    const time = e.Time === undefined ? this.deps.clock() : typeof e.Time === 'number' ? e.Time * 1000 : Date.parse(e.Time);
    const event = this.accept(bus, { source: e.Source!, detailType: e.DetailType!, detail, resources: e.Resources ?? [], time });
    return { EventId: event.id };
  }

  /**
   * An AWS service's own event (a job's state change, S3's Object Created): onto a bus
   * (the default one unless named), with no IAM check, as AWS services publish.
   */
  publish(e: { source: string; detailType: string; detail: unknown; resources?: string[]; bus?: string; time?: number }): BusEvent {
    const bus = this.bus(e.bus);
    if (!bus) throw new DeliveryError('ResourceNotFoundException', `Event bus ${e.bus} does not exist.`, false);
    return this.accept(bus, { ...e, resources: e.resources ?? [], time: e.time ?? this.deps.clock() });
  }

  private accept(bus: string, e: { source: string; detailType: string; detail: unknown; resources: string[]; time: number }): BusEvent {
    const event: BusEvent = {
      version: '0', id: randomUUID(), 'detail-type': e.detailType, source: e.source, account: this.deps.accountId,
      time: new Date(e.time).toISOString().replace(/\.\d{3}Z$/, 'Z'), region: this.deps.region, resources: e.resources, detail: e.detail,
    };
    this.events.push({ bus, event });
    if (take(this.drops, event, bus)) {
      this.dropped.push({ bus, event });
      return event;
    }
    const copies = take(this.duplicates, event, bus) ? 2 : 1;
    this.route(bus, event, copies);
    return event;
  }

  private route(bus: string, event: BusEvent, copies: number): void {
    const now = this.deps.clock();
    for (const rule of this.ruleList) {
      if (rule.EventBusName !== bus || rule.State !== 'ENABLED' || !matchesPattern(rule.EventPattern, event)) continue;
      for (const target of rule.Targets) {
        const payload = targetInput(target, event, rule, now);
        for (let i = 0; i < copies; i++) this.enqueue({ delivery: { rule, target, event, payload, attempt: 0, ingested: now }, at: now });
      }
    }
  }

  private enqueue(p: Pending): void {
    this.queue.push(p);
    const o = this.outstanding.get(p.delivery.event.id) ?? { count: 0, waiters: [] };
    o.count++;
    this.outstanding.set(p.delivery.event.id, o);
  }

  private settle(eventId: string): void {
    const o = this.outstanding.get(eventId);
    if (!o || --o.count > 0) return;
    this.outstanding.delete(eventId);
    for (const w of o.waiters) w();
  }

  /** Resolves once every delivery of an event is done (delivered, dead-lettered or given up); the sink's own `done` included. */
  whenDelivered(eventId: string): Promise<void> {
    const o = this.outstanding.get(eventId);
    if (!o) return Promise.resolve();
    return new Promise((resolve) => o.waiters.push(resolve));
  }

  /** Deliveries due now or running. */
  get pending(): number {
    const now = this.deps.clock();
    return this.queue.filter((p) => p.at <= now).length + this.inFlight;
  }

  /** The earliest retry still to come, or undefined. */
  nextDue(): number | undefined {
    const now = this.deps.clock();
    const later = this.queue.filter((p) => p.at > now).map((p) => p.at);
    return later.length ? Math.min(...later) : undefined;
  }

  /** Attempts every due delivery. */
  async runDue(now: number): Promise<void> {
    const due = this.queue.filter((p) => p.at <= now);
    this.queue = this.queue.filter((p) => p.at > now);
    this.inFlight += due.length;
    await Promise.all(due.map((p) => this.attempt(p.delivery).finally(() => this.inFlight--)));
  }

  private async attempt(d: Delivery): Promise<void> {
    let settled = true;
    try {
      await this.authorize(d);
      if (isBus(d.target.Arn)) {
        const bus = this.bus(d.target.Arn);
        if (!bus) throw new DeliveryError('ResourceNotFoundException', `Event bus ${d.target.Arn} does not exist.`, false);
        this.route(bus, d.event, 1);
      } else {
        if (!this.sink) throw new DeliveryError('InternalException', 'the rehearsal has no event sink', true);
        const accepted = await this.sink.deliver(d);
        const done = (accepted as { done?: Promise<unknown> } | undefined)?.done;
        if (done) {
          settled = false;
          void done.finally(() => this.settle(d.event.id));
        }
      }
      this.delivered.push(d);
    } catch (err) {
      const e = err instanceof DeliveryError ? err : new DeliveryError((err as Error).name ?? 'Error', (err as Error).message ?? String(err), (err as { retryable?: boolean }).retryable ?? true);
      const retry = this.retryAt(d, e);
      if (retry !== undefined) {
        this.queue.push({ delivery: { ...d, attempt: d.attempt + 1 }, at: retry });
        settled = false;
      } else {
        await this.giveUp(d, e);
      }
    } finally {
      if (settled) this.settle(d.event.id);
    }
  }

  private async authorize(d: Delivery): Promise<void> {
    const { target, rule } = d;
    const source = { 'aws:SourceArn': rule.Arn, 'aws:SourceAccount': this.deps.accountId };
    const service = target.Arn.split(':')[2];
    let allowed: boolean;
    if (isBus(target.Arn)) {
      if (!target.RoleArn) throw new DeliveryError('InvalidParameterException', `target ${target.Id} of ${rule.Arn} sends to an event bus without a RoleArn`, false);
      allowed = await this.deps.auth.role(target.RoleArn, 'events:PutEvents', target.Arn, source);
    } else if (service === 'lambda') {
      allowed = await this.deps.auth.service('events.amazonaws.com', 'lambda:InvokeFunction', target.Arn, source);
    } else if (service === 'sqs') {
      allowed = await this.deps.auth.service('events.amazonaws.com', 'sqs:SendMessage', target.Arn, source);
    } else {
      this.unsupported.add(`${rule.Name} → ${target.Arn}`);
      throw new DeliveryError('UnsupportedTarget', `the rehearsal does not deliver to ${service} targets (${target.Arn})`, false);
    }
    if (!allowed) throw new DeliveryError('AccessDeniedException', `events.amazonaws.com may not deliver ${rule.Arn} to ${target.Arn}`, false);
  }

  private retryAt(d: Delivery, e: DeliveryError): number | undefined {
    if (!e.retryable) return undefined;
    const policy = d.target.RetryPolicy ?? {};
    const at = this.deps.clock() + Math.min(EVENT_RETRY_BASE_MS * 2 ** d.attempt, EVENT_RETRY_CAP_MS);
    if (d.attempt >= (policy.MaximumRetryAttempts ?? DEFAULT_ATTEMPTS)) return undefined;
    if (at - d.ingested > (policy.MaximumEventAgeInSeconds ?? DEFAULT_AGE_S) * 1000) return undefined;
    return at;
  }

  /** The event to the target's dead-letter queue, if it has one and its policy lets EventBridge send. */
  private async giveUp(d: Delivery, e: DeliveryError): Promise<void> {
    const queueArn = d.target.DeadLetterConfig?.Arn;
    if (!queueArn) return void this.failures.push({ delivery: d, error: `${e.code}: ${e.message}` });
    const policy = d.target.RetryPolicy ?? {};
    const exhausted = !e.retryable ? undefined : d.attempt >= (policy.MaximumRetryAttempts ?? DEFAULT_ATTEMPTS) ? 'MaximumRetryAttempts' : 'MaximumEventAgeInSeconds';
    const letter: EventDeadLetter = {
      queueArn, delivery: d, body: JSON.stringify(d.event),
      attributes: {
        RULE_ARN: d.rule.Arn, TARGET_ARN: d.target.Arn, ERROR_CODE: e.code, ERROR_MESSAGE: e.message, RETRY_ATTEMPTS: String(d.attempt),
        ...(exhausted ? { EXHAUSTED_RETRY_CONDITION: exhausted } : {}),
      },
    };
    const allowed = await this.deps.auth.service('events.amazonaws.com', 'sqs:SendMessage', queueArn, { 'aws:SourceArn': d.rule.Arn, 'aws:SourceAccount': this.deps.accountId });
    if (!allowed || !this.sink) return void this.failures.push({ delivery: d, error: `${e.code}: ${e.message} (dead-letter queue ${queueArn} refused)` });
    await this.sink.deadLetter(letter);
    this.deadLetters.push(letter);
  }
}

function isBus(arn: string): boolean {
  return /^arn:aws:events:[^:]*:\d*:event-bus\//.test(arn);
}

/** Consumes one use of the first hook that matches. */
function take(hooks: Hook[], e: BusEvent, bus: string): boolean {
  const i = hooks.findIndex((h) => h.times > 0 && h.match(e, bus));
  if (i < 0) return false;
  if (--hooks[i]!.times <= 0) hooks.splice(i, 1);
  return true;
}
