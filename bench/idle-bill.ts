/**
 * The idle bill: what an installation costs a month when nothing runs, itemized, from the
 * synthesized template (schedules that fire at idle, alarms, dashboards, KMS keys, SQS
 * event source mappings, function memory) and from what each function measurably does in
 * one idle invocation (bench/scenarios/idle.ts: its DynamoDB and SQS requests, its log
 * bytes and the custom metrics it publishes). List prices, us-east-1, no free tier.
 * Used by `npm run bench` (the `idle` figure) and test/infra/idle-bill.test.ts (fails above $2).
 */
import { HOURS_PER_MONTH, PRICES, usd } from './prices.js';

const MINUTES_PER_MONTH = HOURS_PER_MONTH * 60;

/** Prices the idle bill needs beyond lib/engine/rules/prices.ts, each with its source. */
export const IDLE_PRICES = {
  dashboardMonth: { usd: 3.0, source: 'AWS CloudWatch pricing, https://aws.amazon.com/cloudwatch/pricing/ ($3.00 per dashboard per month; the free tier\'s 3 dashboards of up to 50 metrics not subtracted)' },
  alarmMetricMonth: { usd: PRICES.cloudwatchAlarmMonth.usd, source: 'AWS CloudWatch pricing: $0.10 per standard-resolution alarm metric per month (a metric-math alarm pays per metric it reads)' },
  compositeAlarmMonth: { usd: 0.5, source: 'AWS CloudWatch pricing: $0.50 per composite alarm per month' },
  kmsKeyMonth: { usd: 1.0, source: 'AWS KMS pricing, https://aws.amazon.com/kms/pricing/ ($1 per customer managed key per month)' },
  kmsRequest: { usd: 0.03 / 10_000, source: 'AWS KMS pricing: $0.03 per 10,000 requests (AWS managed keys included; the 20,000 free not subtracted)' },
  logIngestionGb: { usd: 0.5, source: 'AWS CloudWatch pricing: $0.50 per GB of standard log ingestion' },
} as const;

/**
 * Bytes Lambda writes per invocation besides the function's own output: the START, END
 * and REPORT lines (about 70, 50 and 150 bytes with a request id), and CloudWatch Logs'
 * 26 bytes of metadata per event, which ingestion counts.
 */
export const PLATFORM_LOG_BYTES = 270 + 3 * 26;
/** Metadata CloudWatch Logs counts per log event. */
export const LOG_EVENT_OVERHEAD_BYTES = 26;
/**
 * DynamoDB re-reads a table's key from KMS about every 5 minutes per caller that uses the
 * table ("table key caching"): with an AWS managed key, each is a billed KMS request.
 */
export const KMS_TABLE_KEY_REFRESH_MINUTES = 5;
/**
 * Lambda's pollers long-poll (20 s) an idle SQS queue: 5 of them with maximum concurrency
 * set, as few as 2 without (AWS Lambda developer guide, "Configuring scaling behavior for
 * SQS event source mappings": the optimization "is not available when you enable the
 * maximum concurrency setting").
 */
export const IDLE_SQS_POLLERS = { withMaximumConcurrency: 5, without: 2 } as const;
const LONG_POLLS_PER_POLLER_MINUTE = 3;

/** What one invocation of a function does at idle (measured by bench/scenarios/idle.ts). */
export interface IdleInvocation {
  rcu: number;
  wcu: number;
  dynamoRequests: number;
  sqsRequests: number;
  schedulerCalls: number;
  /** Handler time of a warm invocation (median), on this machine against DynamoDB Local. */
  ms: number;
  /** What the function writes to its log (its log lines and EMF documents), bytes. */
  logBytes: number;
  /** Log events (lines) it writes. */
  logEvents: number;
  /** Custom metric names it publishes (EMF), each with its dimensions: `name{dim=value}`. */
  metrics: string[];
  /** Tables it reads or writes (schema ids). */
  tables: string[];
}

/** Measured idle invocations by function: the key is a fragment of the function's logical id (`Tick`, `Poker`). */
export type IdleMeasurements = Record<string, IdleInvocation>;

export interface IdleLine {
  item: string;
  quantity: number;
  unit: string;
  usdPerMonth: number;
  how: string;
}

export interface IdleBill {
  usdPerMonth: number;
  lines: IdleLine[];
  /** Recurring schedules enabled in the template, with their invocations a month. */
  schedulesFiring: { logicalId: string; perMonth: number; target: string }[];
  /** Custom metric names published at idle (every minute: billed the whole month). */
  idleMetrics: string[];
}

type Resource = { Type: string; Properties?: Record<string, any> };
export interface TemplateJson { Resources: Record<string, Resource> }

const r4 = (x: number) => Math.round(x * 1e4) / 1e4;

/** Invocations a month of a recurring schedule expression; undefined for `at()` and cron. */
export function firesPerMonth(expression: string): number | undefined {
  const m = /^rate\((\d+)\s+(minute|minutes|hour|hours|day|days)\)$/.exec(expression.trim());
  if (!m) return undefined;
  const minutes = Number(m[1]) * (m[2]!.startsWith('minute') ? 1 : m[2]!.startsWith('hour') ? 60 : 1440);
  return MINUTES_PER_MONTH / minutes;
}

/** Logical id a `{"Fn::GetAtt": [id, "Arn"]}` or `{"Ref": id}` points at. */
function refId(v: unknown): string | undefined {
  const o = v as { 'Fn::GetAtt'?: [string, string]; Ref?: string } | undefined;
  return o?.['Fn::GetAtt']?.[0] ?? o?.Ref;
}

function ofType(t: TemplateJson, type: string): [string, Resource][] {
  return Object.entries(t.Resources).filter(([, r]) => r.Type === type);
}

/** Metrics a CloudWatch alarm reads: 1 for a single-metric alarm, each MetricStat of a math alarm. */
function alarmMetrics(r: Resource): number {
  const metrics = r.Properties?.Metrics as { MetricStat?: unknown }[] | undefined;
  return metrics ? metrics.filter((m) => m.MetricStat !== undefined).length : 1;
}

/**
 * The idle bill of a template, given what each function it schedules does per idle invocation.
 *
 * @example
 * const bill = idleBill(Template.fromStack(stack).toJSON(), await measureIdle(...));
 * bill.usdPerMonth; // e.g. 1.42
 */
export function idleBill(t: TemplateJson, measured: IdleMeasurements): IdleBill {
  const lines: IdleLine[] = [];
  const line = (item: string, quantity: number, unit: string, usdPerMonth: number, how: string) =>
    lines.push({ item, quantity: r4(quantity), unit, usdPerMonth: r4(usdPerMonth), how });

  const functions = new Map(ofType(t, 'AWS::Lambda::Function'));
  const measuredFor = (fnId: string): [string, IdleInvocation] => {
    const hit = Object.entries(measured).find(([k]) => fnId.includes(k));
    if (!hit) throw new Error(`idle bill: ${fnId} is invoked by a schedule at idle, but nothing measured what it does (measure it in bench/scenarios/idle.ts)`);
    return hit;
  };

  // Recurring schedules that fire at idle: each a Scheduler invocation, a Lambda request,
  // its compute, and what the function does once.
  const schedulesFiring: IdleBill['schedulesFiring'] = [];
  const perFunction = new Map<string, { fires: number; inv: IdleInvocation; memoryMb: number; arm: boolean }>();
  for (const [id, r] of ofType(t, 'AWS::Scheduler::Schedule')) {
    const p = r.Properties ?? {};
    if ((p.State ?? 'ENABLED') !== 'ENABLED') continue;
    const perMonth = firesPerMonth(String(p.ScheduleExpression));
    if (perMonth === undefined) continue;
    const fnId = refId(p.Target?.Arn);
    const fn = fnId ? functions.get(fnId) : undefined;
    if (!fnId || !fn) throw new Error(`idle bill: schedule ${id} fires at idle and targets ${JSON.stringify(p.Target?.Arn)}, not a function of this template`);
    const [key, inv] = measuredFor(fnId);
    schedulesFiring.push({ logicalId: id, perMonth, target: key });
    const f = perFunction.get(fnId) ?? { fires: 0, inv, memoryMb: Number(fn.Properties?.MemorySize ?? 128), arm: (fn.Properties?.Architectures ?? []).includes('arm64') };
    f.fires += perMonth;
    perFunction.set(fnId, f);
  }
  const fires = schedulesFiring.reduce((a, s) => a + s.perMonth, 0);
  const sum = (f: (x: { fires: number; inv: IdleInvocation; memoryMb: number; arm: boolean }) => number) => [...perFunction.values()].reduce((a, x) => a + f(x), 0);
  const byTarget = [...new Set(schedulesFiring.map((s) => s.target))].map((k) => `${k} ×${schedulesFiring.filter((s) => s.target === k).length}`).join(', ');
  line('EventBridge Scheduler invocations', fires, 'invocations', usd('schedulerInvocation', fires), `recurring schedules enabled at idle (${byTarget || 'none'}); $1.00 per million, the 14 million free not subtracted`);
  line('Lambda requests', fires, 'requests', usd('lambdaRequest', fires), '$0.20 per million');
  const gbSeconds = sum((x) => x.fires * (x.memoryMb / 1024) * (Math.ceil(x.inv.ms) / 1000));
  const gbSecondUsd = sum((x) => x.fires * (x.memoryMb / 1024) * (Math.ceil(x.inv.ms) / 1000) * (x.arm ? PRICES.lambdaGbSecondArm.usd : 0.0000166667));
  line('Lambda compute', gbSeconds, 'GB-s', gbSecondUsd, 'configured memory × measured warm handler time (this machine, DynamoDB Local), rounded up to 1 ms; arm64 $0.0000133334 per GB-s');
  const rcu = sum((x) => x.fires * x.inv.rcu);
  const wcu = sum((x) => x.fires * x.inv.wcu);
  line('DynamoDB reads', rcu, 'RRU', usd('dynamoRead', rcu), 'read request units of one idle invocation (measured on DynamoDB Local) × invocations');
  line('DynamoDB writes', wcu, 'WRU', usd('dynamoWrite', wcu), 'write request units, as above');
  const sqsSent = sum((x) => x.fires * x.inv.sqsRequests);
  const schedulerCalls = sum((x) => x.fires * x.inv.schedulerCalls);
  line('SQS requests by the functions', sqsSent, 'requests', usd('sqsRequest', sqsSent), 'as above');
  line('EventBridge Scheduler API calls by the functions', schedulerCalls, 'calls', 0, 'control-plane calls are not billed');

  // SQS event source mappings long-poll their queue whether or not it has messages.
  let polls = 0;
  for (const [, r] of ofType(t, 'AWS::Lambda::EventSourceMapping')) {
    const p = r.Properties ?? {};
    if (p.Enabled === false || !JSON.stringify(p.EventSourceArn ?? '').includes('Queue')) continue;
    const pollers = p.ScalingConfig?.MaximumConcurrency !== undefined ? IDLE_SQS_POLLERS.withMaximumConcurrency : IDLE_SQS_POLLERS.without;
    polls += pollers * LONG_POLLS_PER_POLLER_MINUTE * MINUTES_PER_MONTH;
  }
  line('SQS polling by Lambda event source mappings', polls, 'requests', usd('sqsRequest', polls), 'empty 20 s long polls: 5 pollers per mapping with maximum concurrency set (2 without), 3 polls a minute each');

  const logBytes = sum((x) => x.fires * (x.inv.logBytes + x.inv.logEvents * LOG_EVENT_OVERHEAD_BYTES + PLATFORM_LOG_BYTES));
  line('CloudWatch Logs ingestion', logBytes / 1e9, 'GB', (logBytes / 1e9) * IDLE_PRICES.logIngestionGb.usd, 'the functions\' own lines and EMF documents (measured) plus Lambda\'s START/END/REPORT lines; $0.50 per GB');

  // A custom metric with a data point every minute is billed the whole month.
  const idleMetrics = [...new Set([...perFunction.values()].flatMap((x) => x.inv.metrics))].sort();
  line('Custom metrics published at idle', idleMetrics.length, 'metrics', idleMetrics.length * PRICES.cloudwatchMetricMonth.usd, `names the functions publish in an idle invocation (EMF)${idleMetrics.length ? `: ${idleMetrics.join(', ')}` : ''}; $0.30 per metric-month`);

  const alarmMetricCount = ofType(t, 'AWS::CloudWatch::Alarm').reduce((a, [, r]) => a + alarmMetrics(r), 0);
  const composite = ofType(t, 'AWS::CloudWatch::CompositeAlarm').length;
  line('CloudWatch alarms', alarmMetricCount, 'alarm metrics', alarmMetricCount * IDLE_PRICES.alarmMetricMonth.usd + composite * IDLE_PRICES.compositeAlarmMonth.usd,
    `${ofType(t, 'AWS::CloudWatch::Alarm').length} alarms on AWS service metrics${composite ? ` and ${composite} composite` : ''}; $0.10 per alarm metric (the free tier's 10 not subtracted)`);
  const dashboards = ofType(t, 'AWS::CloudWatch::Dashboard').length;
  line('CloudWatch dashboards', dashboards, 'dashboards', dashboards * IDLE_PRICES.dashboardMonth.usd, '$3.00 per dashboard-month (the free tier\'s 3 not subtracted)');
  const keys = ofType(t, 'AWS::KMS::Key').length;
  line('KMS customer managed keys', keys, 'keys', keys * IDLE_PRICES.kmsKeyMonth.usd, '$1.00 per key-month');

  // Tables under a KMS key (AWS managed or customer managed): DynamoDB asks KMS for the
  // table key every few minutes per caller that uses it. Callers at idle: the scheduled functions.
  const kmsTables = new Set(ofType(t, 'AWS::DynamoDB::Table').filter(([, r]) => r.Properties?.SSESpecification?.SSEEnabled === true
    && (r.Properties.SSESpecification.SSEType ?? 'KMS') === 'KMS').map(([id]) => id.toLowerCase()));
  let kmsRequests = 0;
  for (const x of perFunction.values()) {
    const touched = x.inv.tables.filter((tableId) => [...kmsTables].some((id) => id.includes(tableId.toLowerCase()))).length;
    if (touched > 0 && x.fires > 0) kmsRequests += touched * (MINUTES_PER_MONTH / KMS_TABLE_KEY_REFRESH_MINUTES);
  }
  line('KMS requests for table keys', kmsRequests, 'requests', kmsRequests * IDLE_PRICES.kmsRequest.usd,
    `${kmsTables.size} tables under a KMS key; one Decrypt per table every ${KMS_TABLE_KEY_REFRESH_MINUTES} min per function role that uses it at idle; $0.03 per 10,000`);

  const usdPerMonth = Math.round(lines.reduce((a, l) => a + l.usdPerMonth, 0) * 100) / 100;
  return { usdPerMonth, lines, schedulesFiring, idleMetrics };
}

/**
 * The bill as a table for a person.
 * @example
 * console.log(formatIdleBill(bill));
 */
export function formatIdleBill(b: IdleBill): string {
  const rows = b.lines.map((l) => `   ${l.item.padEnd(48)} ${String(l.quantity).padStart(12)} ${l.unit.padEnd(14)} $${l.usdPerMonth.toFixed(4).padStart(8)}`);
  return [...rows, `   ${'total'.padEnd(48)} ${''.padStart(12)} ${''.padEnd(14)} $${b.usdPerMonth.toFixed(2).padStart(8)}`].join('\n');
}
