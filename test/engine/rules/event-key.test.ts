/**
 * Index keys: a wait's key (from its pattern) and an event's keys (from the event) agree,
 * so the events path finds a wait in one lookup per key; a pattern without a usable key
 * is refused in one line.
 */
import { describe, expect, it } from 'vitest';
import { checkEventWait, eventKeys, eventProblem, matchesPattern, MAX_CANDIDATES, patternKey, waitPattern, type AwsEvent } from '../../../lib/engine/index.js';

const ev = (source: string, detailType: string, detail: Record<string, unknown>): AwsEvent => ({ source, 'detail-type': detailType, detail });
const keyOf = (w: Parameters<typeof checkEventWait>[0]) => {
  const c = checkEventWait(w);
  if (typeof c === 'string') throw new Error(c);
  return c;
};

describe('event keys', () => {
  it('a job event is keyed on its documented id field alone (one lookup), whatever else its detail holds', () => {
    const e = ev('aws.batch', 'Batch Job State Change', { jobId: 'j-1', status: 'SUCCEEDED', jobName: 'n', attempts: [] });
    expect(eventKeys(e)).toHaveLength(1);
    expect(eventKeys(e)).toEqual([keyOf({ source: 'aws.batch', detailType: 'Batch Job State Change', detail: { jobId: 'j-1', status: ['SUCCEEDED', 'FAILED'] } }).key]);
  });

  it('Lambda\'s two destination results share one key: a wait may name both detail-types', () => {
    const w = keyOf({ source: 'lambda', detailType: ['Lambda Function Invocation Result - Success', 'Lambda Function Invocation Result - Failure'], detail: { requestContext: { requestId: 'r-1' } } });
    for (const dt of ['Lambda Function Invocation Result - Success', 'Lambda Function Invocation Result - Failure']) {
      const e = ev('lambda', dt, { requestContext: { requestId: 'r-1' }, responsePayload: null });
      expect(eventKeys(e)).toEqual([w.key]);
      expect(matchesPattern(w.pattern, e)).toBe(true);
    }
  });

  it('another event is looked up under each top-level scalar field; a wait is keyed on its first pinned one by name', () => {
    const w = keyOf({ source: 'com.acme', detailType: 'Order Shipped', detail: { zone: 'eu', orderId: 'o-1', weight: [{ numeric: ['>', 2] }] } });
    expect(w.pattern).toEqual({ source: ['com.acme'], 'detail-type': ['Order Shipped'], detail: { zone: ['eu'], orderId: ['o-1'], weight: [{ numeric: ['>', 2] }] } });
    expect(w.key).toBe(patternKey(w.pattern));
    expect(w.key).toContain('orderId="o-1"');
    const e = ev('com.acme', 'Order Shipped', { zone: 'eu', orderId: 'o-1', weight: 3, tags: ['a', 'b'], nested: { orderId: 'x' } });
    const keys = eventKeys(e);
    expect(keys).toContain(w.key);
    expect(keys).toHaveLength(5); // orderId, tags a, tags b, weight, zone: not the nested object
    expect(matchesPattern(w.pattern, e)).toBe(true);
    // Strings and numbers are different keys, as EventBridge matches them.
    expect(eventKeys(ev('com.acme', 'T', { n: 5 }))).not.toEqual(eventKeys(ev('com.acme', 'T', { n: '5' })));
  });

  it('at most MAX_CANDIDATES keys per event; long values are hashed (DynamoDB keys hold 2 KB)', () => {
    const detail = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`f${String(i).padStart(2, '0')}`, i]));
    expect(eventKeys(ev('s', 'd', detail))).toHaveLength(MAX_CANDIDATES);
    const long = 'x'.repeat(5000);
    const [k] = eventKeys(ev('s', 'd', { id: long }));
    expect(k.length).toBeLessThan(200);
    expect(k).toBe(keyOf({ source: 's', detailType: 'd', detail: { id: long } }).key);
  });

  it('refuses a wait no event could find, or a pattern EventBridge would refuse, in one line', () => {
    expect(checkEventWait({ source: 'com.acme', detailType: 'Tick' })).toBe('event wait com.acme/Tick has no usable key: it needs one top-level detail field pinned to one exact value (e.g. detail: { orderId: "o-1" }), or no event could find it');
    expect(checkEventWait({ source: 'com.acme', detailType: 'Tick', detail: { id: ['a', 'b'] } })).toMatch(/has no usable key/);
    expect(checkEventWait({ source: 'com.acme', detailType: ['A', 'B'], detail: { id: 'a' } })).toMatch(/needs one detail-type/);
    expect(checkEventWait({ source: 'aws.ecs', detailType: 'ECS Task State Change', detail: { lastStatus: 'STOPPED' } })).toBe('event wait aws.ecs/ECS Task State Change has no usable key: it needs detail.taskArn pinned to one value, or no event could find it');
    expect(checkEventWait({ source: '', detailType: 'x' })).toMatch(/needs a source/);
    expect(checkEventWait({ source: 's', detailType: 'd', detail: { id: 'a', n: [{ numeric: ['>', 5, '<', 1] }] } })).toBe('event pattern of s/d: detail.n: numeric range [">",5,"<",1] matches no number');
    expect(checkEventWait('nope')).toMatch(/^an event wait must be an object/);
  });

  it('a bare value or condition stands for a one-condition list', () => {
    expect(waitPattern({ source: 's', detailType: 'd', detail: { a: 1, b: { prefix: 'x' }, c: { d: true }, e: null } }).detail)
      .toEqual({ a: [1], b: [{ prefix: 'x' }], c: { d: [true] }, e: [null] });
  });

  it('says what is wrong with what is not an EventBridge event', () => {
    expect(eventProblem({ source: 's', 'detail-type': 'd', detail: {} })).toBeUndefined();
    expect(eventProblem([])).toBe('not an EventBridge event: expected an object, got an array');
    expect(eventProblem({ source: 's', detail: {} })).toBe('not an EventBridge event: "detail-type" must be a non-empty string');
  });
});
