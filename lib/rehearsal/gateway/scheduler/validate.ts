/**
 * What CreateSchedule/UpdateSchedule validate before storing, with AWS's error classes:
 * ValidationException for every malformed field.
 */
import { invalid } from './errors.js';
import { checkTimezone, parseExpression, type Expression } from '../../../adapters/aws/eventbridge/expressions.js';
import type { Schedule, ScheduleInput, ScheduleTarget } from './types.js';

const NAME = /^[0-9a-zA-Z\-_.]{1,64}$/;
const ROLE_ARN = /^arn:aws[a-z-]*:iam::\d{12}:role\/[\w+=,.@\-/]+$/;
const ARN = /^arn:aws[a-z-]*:[a-z0-9-]+:[a-z0-9-]*:\d{12}:.+$/;

/** Throws ValidationException unless `value` is a valid schedule or group name. */
export function checkName(value: unknown, field: 'name' | 'groupName'): string {
  if (typeof value !== 'string' || !NAME.test(value)) {
    throw invalid(`1 validation error detected: Value '${String(value)}' at '${field}' failed to satisfy constraint: Member must satisfy regular expression pattern: [0-9a-zA-Z-_.]+ and have length between 1 and 64`);
  }
  return value;
}

const oneOf = <T extends string>(value: unknown, allowed: readonly T[], field: string, fallback?: T): T => {
  if (value === undefined && fallback !== undefined) return fallback;
  if (typeof value === 'string' && (allowed as readonly string[]).includes(value)) return value as T;
  throw invalid(`1 validation error detected: Value '${String(value)}' at '${field}' failed to satisfy constraint: Member must satisfy enum value set: [${allowed.join(', ')}]`);
};

const intIn = (value: unknown, min: number, max: number, field: string): number => {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw invalid(`1 validation error detected: Value '${String(value)}' at '${field}' failed to satisfy constraint: Member must have value between ${min} and ${max}`);
  }
  return value;
};

const toMs = (v: number | string | undefined, field: string): number | undefined => {
  if (v === undefined) return undefined;
  // REST-JSON sends timestamps as epoch seconds; CloudFormation as ISO strings.
  const ms = typeof v === 'number' ? v * 1000 : Date.parse(v);
  if (!Number.isFinite(ms)) throw invalid(`Invalid ${field}: ${String(v)}`);
  return ms;
};

function checkTarget(t: ScheduleTarget | undefined): ScheduleTarget {
  if (!t || typeof t !== 'object') throw invalid('1 validation error detected: Value null at \'target\' failed to satisfy constraint: Member must not be null');
  if (typeof t.Arn !== 'string' || !ARN.test(t.Arn)) throw invalid(`Invalid target arn: ${String(t.Arn)}`);
  if (typeof t.RoleArn !== 'string' || !ROLE_ARN.test(t.RoleArn)) throw invalid(`Invalid RoleArn: ${String(t.RoleArn)}`);
  if (t.Input !== undefined && (typeof t.Input !== 'string' || t.Input.length < 1 || t.Input.length > 8192)) {
    throw invalid('1 validation error detected: Value at \'target.input\' failed to satisfy constraint: Member must have length between 1 and 8192');
  }
  if (t.DeadLetterConfig !== undefined) {
    const arn = t.DeadLetterConfig.Arn;
    if (arn !== undefined && !/^arn:aws[a-z-]*:sqs:[a-z0-9-]+:\d{12}:[\w-]+(\.fifo)?$/.test(arn)) {
      throw invalid(`Invalid DeadLetterConfig arn: ${arn}. It must be the ARN of an SQS queue`);
    }
  }
  if (t.RetryPolicy !== undefined) {
    const r = t.RetryPolicy;
    if (r.MaximumEventAgeInSeconds !== undefined) intIn(r.MaximumEventAgeInSeconds, 60, 86400, 'target.retryPolicy.maximumEventAgeInSeconds');
    if (r.MaximumRetryAttempts !== undefined) intIn(r.MaximumRetryAttempts, 0, 185, 'target.retryPolicy.maximumRetryAttempts');
  }
  return t;
}

/** A validated schedule plus its parsed expression. */
export interface Checked {
  schedule: Omit<Schedule, 'CreationDate' | 'LastModificationDate' | 'Arn'>;
  expression: Expression;
}

/**
 * @example
 * checkSchedule({ Name: 'tick', ScheduleExpression: 'rate(1 minute)', FlexibleTimeWindow: { Mode: 'OFF' },
 *   Target: { Arn: 'arn:aws:lambda:us-east-1:000000000000:function:tick', RoleArn: 'arn:aws:iam::000000000000:role/s' } }, Date.now())
 */
export function checkSchedule(input: ScheduleInput, now: number): Checked {
  const Name = checkName(input.Name, 'name');
  const GroupName = checkName(input.GroupName ?? 'default', 'groupName');
  if (typeof input.ScheduleExpression !== 'string' || input.ScheduleExpression.length < 1 || input.ScheduleExpression.length > 256) {
    throw invalid('1 validation error detected: Value at \'scheduleExpression\' failed to satisfy constraint: Member must have length between 1 and 256');
  }
  const tz = input.ScheduleExpressionTimezone ?? 'UTC';
  const expression = asValidation(() => {
    checkTimezone(tz);
    return parseExpression(input.ScheduleExpression, tz);
  });

  const ftw = input.FlexibleTimeWindow;
  if (!ftw || typeof ftw !== 'object') throw invalid('1 validation error detected: Value null at \'flexibleTimeWindow\' failed to satisfy constraint: Member must not be null');
  const Mode = oneOf(ftw.Mode, ['OFF', 'FLEXIBLE'] as const, 'flexibleTimeWindow.mode');
  if (Mode === 'FLEXIBLE') intIn(ftw.MaximumWindowInMinutes, 1, 1440, 'flexibleTimeWindow.maximumWindowInMinutes');
  else if (ftw.MaximumWindowInMinutes !== undefined) throw invalid('MaximumWindowInMinutes is only allowed when Mode is FLEXIBLE');

  const StartDate = toMs(input.StartDate, 'StartDate');
  const EndDate = toMs(input.EndDate, 'EndDate');
  // StartDate and EndDate apply to recurring schedules only; AWS ignores them for at().
  if (expression.kind !== 'at') {
    if (StartDate !== undefined && EndDate !== undefined && EndDate <= StartDate) throw invalid('The EndDate must be after the StartDate');
    if (EndDate !== undefined && EndDate <= now) throw invalid('The EndDate you specify cannot be earlier than the current time.');
    if (StartDate !== undefined && StartDate < now - 5 * 60_000) throw invalid('The StartDate you specify cannot be earlier than 5 minutes before the current time.');
  }
  if (input.Description !== undefined && input.Description.length > 512) throw invalid('Description must be at most 512 characters');

  return {
    expression,
    schedule: {
      Name,
      GroupName,
      ScheduleExpression: input.ScheduleExpression,
      ...(input.ScheduleExpressionTimezone ? { ScheduleExpressionTimezone: input.ScheduleExpressionTimezone } : {}),
      ...(StartDate !== undefined ? { StartDate } : {}),
      ...(EndDate !== undefined ? { EndDate } : {}),
      ...(input.Description !== undefined ? { Description: input.Description } : {}),
      State: oneOf(input.State, ['ENABLED', 'DISABLED'] as const, 'state', 'ENABLED'),
      FlexibleTimeWindow: Mode === 'FLEXIBLE' ? { Mode, MaximumWindowInMinutes: ftw.MaximumWindowInMinutes! } : { Mode },
      Target: checkTarget(input.Target),
      ActionAfterCompletion: oneOf(input.ActionAfterCompletion, ['NONE', 'DELETE'] as const, 'actionAfterCompletion', 'NONE'),
    },
  };
}

/** The shared EventBridge reader throws InvalidInputError; Scheduler answers ValidationException with the same message. */
function asValidation<T>(read: () => T): T {
  try {
    return read();
  } catch (e) {
    throw invalid((e as Error).message);
  }
}
