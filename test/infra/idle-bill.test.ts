/**
 * Nothing at idle (issue 22 §4): the month's bill of the default stack when nothing runs,
 * computed from the synthesized template (schedules enabled at idle, alarms, dashboards,
 * KMS keys, event source mappings, function memory) and from the real tick and poker
 * handlers invoked against DynamoDB Local (their DynamoDB and SQS requests, log bytes and
 * the custom metrics they publish), must stay at or under $2 at list prices
 * (bench/idle-bill.ts; `npm run bench -- --only idle` prints the same bill).
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { idleBill, type IdleMeasurements, type TemplateJson } from '../../bench/idle-bill.js';
import { measureIdle, synthTemplate } from '../../bench/scenarios/idle.js';
import { LOCAL_AWS } from '../../lib/runtime/dynamodb-local.js';

const endpoint = inject('dynamodbEndpoint');
const client = new DynamoDBClient({ endpoint: endpoint || 'http://127.0.0.1:1', ...LOCAL_AWS });
afterAll(() => client.destroy());

let template: TemplateJson;
let measured: IdleMeasurements;
const line = (bill: ReturnType<typeof idleBill>, item: string) => bill.lines.find((l) => l.item === item)!;

describe.skipIf(!endpoint)('the idle bill', () => {
  beforeAll(async () => {
    template = synthTemplate();
    measured = await measureIdle({ dynamodb: client, endpoint, shards: 8 });
  }, 120_000);

  it('is at most $2 a month for the default stack, monitoring on', () => {
    const bill = idleBill(template, measured);
    expect(bill.usdPerMonth, JSON.stringify(bill.lines.map((l) => [l.item, l.usdPerMonth]))).toBeLessThanOrEqual(2);
    expect(bill.usdPerMonth).toBeGreaterThan(0.5); // the alarms and the tick are real costs: a bill of 0 would mean the test measures nothing
  });

  it('fires only the tick at idle, publishes no custom metric, and keeps no dashboard and no KMS key', () => {
    const bill = idleBill(template, measured);
    expect(bill.schedulesFiring.map((s) => s.target)).toEqual(['Tick']);
    expect(measured.Tick!.metrics).toEqual([]);
    expect(bill.idleMetrics).toEqual([]);
    expect(measured.Tick!.schedulerCalls).toBe(0);
    expect(measured.Tick!.sqsRequests).toBe(0);
    expect(measured.Tick!.wcu).toBe(0);
    for (const item of ['Custom metrics published at idle', 'CloudWatch dashboards', 'KMS customer managed keys', 'KMS requests for table keys']) {
      expect(line(bill, item).usdPerMonth, item).toBe(0);
    }
    expect(line(bill, 'CloudWatch alarms').quantity).toBe(11); // the three DLQs (ready, Scheduler, events), the oldest message, 4 Errors, 3 Throttles
  });

  it('would fail with the pokers of before: enabled schedules, each invocation priced as measured', () => {
    const before = structuredClone(template);
    for (const r of Object.values(before.Resources)) if (r.Type === 'AWS::Scheduler::Schedule') r.Properties!.State = 'ENABLED';
    const bill = idleBill(before, measured);
    expect(bill.schedulesFiring.filter((s) => s.target === 'Poker')).toHaveLength(8);
    expect(bill.usdPerMonth).toBeGreaterThan(idleBill(template, measured).usdPerMonth + 0.4);
  });

  it('prices the opt-ins: a dashboard $3, a customer managed key $1', () => {
    const base = idleBill(template, measured).usdPerMonth;
    expect(idleBill(synthTemplate({ dashboard: true }), measured).usdPerMonth).toBeCloseTo(base + 3, 2);
    expect(idleBill(synthTemplate({ customerManagedKey: true }), measured).usdPerMonth).toBeCloseTo(base + 1, 2);
  }, 60_000);
});
