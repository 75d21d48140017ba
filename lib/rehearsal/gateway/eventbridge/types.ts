/** Types of the in-process EventBridge emulator (field names as EventBridge and CloudFormation spell them). */
import type { EventPattern } from '../../../engine/index.js';

/** An event as EventBridge delivers it to a rule's targets. */
export interface BusEvent {
  version: '0';
  id: string;
  'detail-type': string;
  source: string;
  account: string;
  /** ISO 8601 without milliseconds, as EventBridge writes it. */
  time: string;
  region: string;
  resources: string[];
  detail: unknown;
}

/** A target of a rule (AWS::Events::Rule Targets, resolved). */
export interface RuleTarget {
  Id: string;
  Arn: string;
  RoleArn?: string;
  Input?: string;
  InputPath?: string;
  InputTransformer?: { InputPathsMap?: Record<string, string>; InputTemplate: string };
  RetryPolicy?: { MaximumRetryAttempts?: number; MaximumEventAgeInSeconds?: number };
  DeadLetterConfig?: { Arn?: string };
  SqsParameters?: { MessageGroupId?: string };
}

/** A rule on a bus (AWS::Events::Rule with an EventPattern; schedule rules are not modelled). */
export interface BusRule {
  Name: string;
  Arn: string;
  EventBusName: string;
  EventPattern: EventPattern;
  State: 'ENABLED' | 'DISABLED';
  Targets: RuleTarget[];
}

/** One event on its way to one target: what the rehearsal's sink receives. */
export interface Delivery {
  rule: BusRule;
  target: RuleTarget;
  event: BusEvent;
  /** The target's input: the event, or what Input / InputPath / InputTransformer make of it (a JSON text, or plain text). */
  payload: string;
  /** Retries before this attempt. */
  attempt: number;
  /** When the event was accepted (clock ms): MaximumEventAgeInSeconds counts from here. */
  ingested: number;
}

/** A failed delivery's dead-letter message: the event, with AWS's attributes. */
export interface EventDeadLetter {
  queueArn: string;
  body: string;
  attributes: Record<string, string>;
  delivery: Delivery;
}

/**
 * Where the rehearsal carries deliveries: a thrown error with `retryable: true` is retried per
 * the RetryPolicy. `done` (optional) settles when the target has handled it (an asynchronous
 * Lambda invocation ending), for hooks that wait for that.
 */
export interface EventSink {
  deliver(d: Delivery): Promise<void | { done?: Promise<unknown> }>;
  deadLetter(d: EventDeadLetter): Promise<void>;
}

/** An entry of PutEvents, as the API takes it. */
export interface PutEventsEntry {
  Source?: string;
  DetailType?: string;
  Detail?: string;
  EventBusName?: string;
  Resources?: string[];
  Time?: number | string;
  TraceHeader?: string;
}

export interface PutEventsResultEntry {
  EventId?: string;
  ErrorCode?: string;
  ErrorMessage?: string;
}
