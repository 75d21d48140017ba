/**
 * EventBridge event patterns: the examples of AWS's "Comparison operators for use in event
 * patterns" and "Arrays in event patterns" pages and of aws/event-ruler's README, the refusals
 * EventBridge gives, and properties that tie the operators to each other.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { matchesPattern, validatePattern, type EventPattern } from '../../../lib/engine/rules/event-pattern.js';

const ec2 = {
  version: '0',
  id: 'ddddd4-aaaa-7777-4444-345dd43cc333',
  'detail-type': 'EC2 Instance State-change Notification',
  source: 'aws.ec2',
  account: '012345679012',
  time: '2017-10-02T16:24:49Z',
  region: 'us-east-1',
  resources: ['arn:aws:ec2:us-east-1:123456789012:instance/i-000000aaaaaa00000'],
  detail: { 'c-count': 5, 'd-count': 3, 'x-limit': 301.8, 'source-ip': '10.0.0.33', 'instance-id': 'i-000000aaaaaa00000', state: 'running', gone: null },
};

function match(pattern: EventPattern, event: unknown = ec2): boolean {
  expect(validatePattern(pattern)).toBeUndefined();
  return matchesPattern(pattern, event);
}

describe('matchesPattern', () => {
  it('ANDs fields and ORs the values of a field, ignoring fields the pattern does not name', () => {
    expect(match({ 'detail-type': ['EC2 Instance State-change Notification'], detail: { state: ['initializing', 'running'] } })).toBe(true);
    expect(match({ source: ['aws.ec2'], detail: { state: ['stopped'] } })).toBe(false);
    expect(match({ source: ['aws.ec2'], detail: { missing: ['x'] } })).toBe(false);
  });

  it('compares exact values by type: numbers as numbers, strings, booleans and null', () => {
    expect(match({ detail: { 'x-limit': [301.8] } })).toBe(true);
    expect(match({ detail: { 'x-limit': [3.018e2] } })).toBe(true);
    expect(match({ detail: { 'c-count': ['5'] } })).toBe(false);
    expect(match({ detail: { gone: [null] } })).toBe(true);
    expect(match({ detail: { state: [null] } })).toBe(false);
    expect(match({ ok: [true] }, { ok: true })).toBe(true);
    expect(match({ ok: ['true'] }, { ok: true })).toBe(false);
    expect(match({ name: [''] }, { name: '' })).toBe(true);
  });

  it('matches an event array when the intersection with the pattern values is non-empty', () => {
    const pattern = { resources: ['arn:aws:ec2:us-east-1:111122223333:instance/i-b188560f', 'arn:aws:ec2:us-east-1:123456789012:instance/i-000000aaaaaa00000'] };
    expect(match(pattern)).toBe(true);
    expect(match({ resources: ['arn:other'] })).toBe(false);
    expect(match({ resources: ['a'] }, { resources: [] })).toBe(false);
    expect(match({ n: [2] }, { n: [[1], [2, 3]] })).toBe(true);
  });

  it('matches objects inside arrays one element at a time (array consistency)', () => {
    const event = { employees: [{ firstName: 'John', lastName: 'Doe' }, { firstName: 'Anna', lastName: 'Smith' }, { firstName: 'Peter', lastName: 'Jones' }] };
    expect(match({ employees: { firstName: ['Anna'] } }, event)).toBe(true);
    expect(match({ employees: { firstName: ['Anna'], lastName: ['Smith'] } }, event)).toBe(true);
    expect(match({ employees: { firstName: ['Anna'], lastName: ['Jones'] } }, event)).toBe(false);
    expect(match({ employees: { firstName: ['Peter'] } }, { employees: [[event.employees[0]], [event.employees[2]]] })).toBe(true);
  });

  it('prefix, suffix and equals-ignore-case work on strings only, with ignore-case variants', () => {
    expect(match({ time: [{ prefix: '2017-10-02' }] })).toBe(true);
    expect(match({ source: [{ suffix: 'ec2' }] })).toBe(true);
    expect(match({ source: [{ 'equals-ignore-case': 'AWS.EC2' }] })).toBe(true);
    expect(match({ source: [{ prefix: { 'equals-ignore-case': 'AWS.' } }] })).toBe(true);
    expect(match({ source: [{ suffix: { 'equals-ignore-case': 'EC2' } }] })).toBe(true);
    expect(match({ source: [{ prefix: 'AWS.' }] })).toBe(false);
    expect(match({ detail: { 'c-count': [{ prefix: '5' }] } })).toBe(false);
    expect(match({ detail: { 'c-count': [{ 'equals-ignore-case': '5' }] } })).toBe(false);
  });

  it('wildcard: * is any run, \\* a star, \\\\ a backslash, anchored at both ends', () => {
    expect(match({ source: [{ wildcard: 'Simple*Service' }] }, { source: 'SimpleQueueService' })).toBe(true);
    expect(match({ source: [{ wildcard: 'Simple*Service' }] }, { source: 'SimpleService' })).toBe(true);
    expect(match({ source: [{ wildcard: 'Simple*Service' }] }, { source: 'ASimpleQueueService' })).toBe(false);
    expect(match({ key: [{ wildcard: 'dir/*.png' }] }, { key: 'dir/a/b.png' })).toBe(true);
    expect(match({ key: [{ wildcard: 'a\\*b' }] }, { key: 'a*b' })).toBe(true);
    expect(match({ key: [{ wildcard: 'a\\*b' }] }, { key: 'axxb' })).toBe(false);
    expect(match({ key: [{ wildcard: 'a\\\\b' }] }, { key: 'a\\b' })).toBe(true);
    expect(match({ key: [{ wildcard: 'a.c(d)' }] }, { key: 'abc(d)' })).toBe(false);
    expect(match({ key: [{ wildcard: '*' }] }, { key: 7 })).toBe(false);
  });

  it('anything-but: values, lists, prefix, suffix, equals-ignore-case and wildcard; the field must be present', () => {
    expect(match({ detail: { state: [{ 'anything-but': 'initializing' }] } })).toBe(true);
    expect(match({ detail: { state: [{ 'anything-but': 'running' }] } })).toBe(false);
    expect(match({ detail: { state: [{ 'anything-but': ['stopped', 'running'] }] } })).toBe(false);
    expect(match({ detail: { 'x-limit': [{ 'anything-but': [100, 200, 300] }] } })).toBe(true);
    expect(match({ detail: { 'x-limit': [{ 'anything-but': 301.8 }] } })).toBe(false);
    expect(match({ detail: { state: [{ 'anything-but': { prefix: 'run' } }] } })).toBe(false);
    expect(match({ detail: { state: [{ 'anything-but': { prefix: 'init' } }] } })).toBe(true);
    expect(match({ detail: { state: [{ 'anything-but': { suffix: 'ing' } }] } })).toBe(false);
    expect(match({ detail: { state: [{ 'anything-but': { 'equals-ignore-case': 'RUNNING' } }] } })).toBe(false);
    expect(match({ detail: { state: [{ 'anything-but': { 'equals-ignore-case': ['STOPPED', 'PENDING'] } }] } })).toBe(true);
    expect(match({ detail: { state: [{ 'anything-but': { wildcard: 'r*g' } }] } })).toBe(false);
    expect(match({ detail: { absent: [{ 'anything-but': 'x' }] } })).toBe(false);
    expect(match({ tags: [{ 'anything-but': 'a' }] }, { tags: ['a', 'b'] })).toBe(true);
  });

  it('numeric ranges compare JSON numbers only, to six decimal places', () => {
    expect(match({ detail: { 'c-count': [{ numeric: ['>', 0, '<=', 5] }], 'd-count': [{ numeric: ['<', 10] }], 'x-limit': [{ numeric: ['=', 3.018e2] }] } })).toBe(true);
    expect(match({ detail: { 'c-count': [{ numeric: ['>', 5] }] } })).toBe(false);
    expect(match({ detail: { 'c-count': [{ numeric: ['>=', 5] }] } })).toBe(true);
    expect(match({ n: [{ numeric: ['>', 0] }] }, { n: '5' })).toBe(false);
    expect(match({ n: [{ numeric: ['=', 0.1] }] }, { n: 0.1000001 })).toBe(true);
    expect(match({ n: [{ numeric: ['=', 0.1] }] }, { n: 0.100001 })).toBe(false);
    expect(match({ n: [{ numeric: ['>', 0] }] }, { n: 6e9 })).toBe(false);
  });

  it('exists works on leaves: null is present; absent, objects and empty arrays are not', () => {
    expect(match({ detail: { 'c-count': [{ exists: true }] } })).toBe(true);
    expect(match({ detail: { 'c-count': [{ exists: false }] } })).toBe(false);
    expect(match({ detail: { 'e-count': [{ exists: false }] } })).toBe(true);
    expect(match({ detail: { gone: [{ exists: true }] } })).toBe(true);
    expect(match({ detail: { 'c-count': [{ exists: false }] } }, { detail: { 'c-count': { c1: 100 } } })).toBe(true);
    expect(match({ detail: { 'c-count': [{ exists: true }] } }, { detail: { 'c-count': { c1: 100 } } })).toBe(false);
    expect(match({ a: { b: [{ exists: false }] } }, {})).toBe(true);
    expect(match({ a: [{ exists: false }] }, { a: [] })).toBe(true);
    expect(match({ a: [{ exists: false }, 'x'] }, { a: 'x' })).toBe(true);
  });

  it('$or at any level ORs its branches and ANDs them with their siblings', () => {
    const metric = { source: 'aws.cloudwatch', namespace: 'AWS/EC2', detail: { 'detail-type': 'CloudWatch Alarm State Change' } };
    const pattern = {
      source: ['aws.cloudwatch'],
      $or: [{ metricName: ['CPUUtilization', 'ReadLatency'] }, { namespace: ['AWS/EC2', 'AWS/ES'] }],
      detail: { $or: [{ source: ['aws.cloudwatch'] }, { 'detail-type': ['CloudWatch Alarm State Change'] }] },
    };
    expect(match(pattern, metric)).toBe(true);
    expect(match(pattern, { ...metric, namespace: 'AWS/Lambda' })).toBe(false);
    expect(match(pattern, { ...metric, detail: {} })).toBe(false);
    const nested = { source: ['a'], $or: [{ x: [1] }, { y: [2], $or: [{ id: [3] }, { space: [4] }] }] };
    expect(match(nested, { source: 'a', y: 2, space: 4 })).toBe(true);
    expect(match(nested, { source: 'a', y: 2 })).toBe(false);
  });

  it('matches the state-change events the job operators wait for', () => {
    const stopped = { source: 'aws.ecs', 'detail-type': 'ECS Task State Change', detail: { taskArn: 'arn:aws:ecs:us-east-1:1:task/c/abc', lastStatus: 'STOPPED', containers: [{ name: 'app', exitCode: 1 }] } };
    const pattern = { source: ['aws.ecs'], 'detail-type': ['ECS Task State Change'], detail: { taskArn: ['arn:aws:ecs:us-east-1:1:task/c/abc'], lastStatus: ['STOPPED'] } };
    expect(match(pattern, stopped)).toBe(true);
    expect(match({ ...pattern, detail: { ...pattern.detail, containers: { exitCode: [{ numeric: ['>', 0] }] } } }, stopped)).toBe(true);
    expect(match(pattern, { ...stopped, detail: { ...stopped.detail, lastStatus: 'RUNNING' } })).toBe(false);
  });
});

describe('validatePattern', () => {
  const refusals: [unknown, RegExp][] = [
    ['aws.ecs', /must be a JSON object/],
    [[{ source: ['x'] }], /must be a JSON object/],
    [{}, /empty objects/],
    [{ detail: {} }, /^detail: empty objects/],
    [{ source: 'aws.ecs' }, /^source: must be an object or a non-empty array/],
    [{ source: [] }, /^source: empty arrays/],
    [{ source: [['x']] }, /^source: a match value must be/],
    [{ source: [{ prefix: 1 }] }, /"prefix" takes a string/],
    [{ source: [{ prefix: 'a', suffix: 'b' }] }, /exactly one key/],
    [{ source: [{ contains: 'a' }] }, /unknown operator "contains"/],
    [{ ip: [{ cidr: '10.0.0.0/24' }] }, /"cidr" is not supported/],
    [{ n: [{ numeric: ['>', 5, '<', 1] }] }, /^n: numeric range .* matches no number/],
    [{ n: [{ numeric: ['>', 1, '<', 1] }] }, /matches no number/],
    [{ n: [{ numeric: ['<', 1, '>', 0] }] }, /"numeric" takes/],
    [{ n: [{ numeric: ['=', 1, '<', 2] }] }, /"numeric" takes/],
    [{ n: [{ numeric: ['>', '1'] }] }, /"numeric" takes/],
    [{ n: [{ numeric: ['!=', 1] }] }, /"numeric" takes/],
    [{ n: [{ numeric: ['>', 6e9] }] }, /between -5e9 and 5e9/],
    [{ n: [{ exists: 'yes' }] }, /"exists" takes true or false/],
    [{ n: [{ 'anything-but': ['a', 1] }] }, /only strings or only numbers/],
    [{ n: [{ 'anything-but': [] }] }, /only strings or only numbers/],
    [{ n: [{ 'anything-but': { prefix: '' } }] }, /empty "anything-but" prefix/],
    [{ n: [{ 'anything-but': { exists: true } }] }, /"anything-but" takes/],
    [{ n: [{ 'anything-but': null }] }, /"anything-but" takes/],
    [{ n: [{ wildcard: 'a**b' }] }, /consecutive wildcard/],
    [{ n: [{ wildcard: 'a\\b' }] }, /only "\*" and "\\" may be escaped/],
    [{ $or: [{ a: ['x'] }] }, /"\$or" must be an array of two or more/],
    [{ $or: { a: ['x'] } }, /"\$or" must be an array/],
    [{ $or: [{ a: ['x'] }, { prefix: ['y'] }] }, /"prefix" is an operator name/],
    [{ detail: { $or: [{ a: ['x'] }, {}] } }, /^detail: empty objects/],
  ];
  it.each(refusals)('refuses %j in one line naming the field', (pattern, problem) => {
    const message = validatePattern(pattern);
    expect(message).toMatch(problem);
    expect(message).not.toContain('\n');
  });

  it('accepts every operator form EventBridge documents', () => {
    const pattern = {
      source: ['a', 1, true, null, { prefix: 'x' }, { prefix: { 'equals-ignore-case': 'X' } }, { suffix: { 'equals-ignore-case': 'X' } }],
      detail: {
        a: [{ 'anything-but': 'x' }, { 'anything-but': 5 }, { 'anything-but': ['x', 'y'] }, { 'anything-but': [1, 2] }],
        b: [{ 'anything-but': { suffix: '.png' } }, { 'anything-but': { 'equals-ignore-case': ['A'] } }, { 'anything-but': { wildcard: '*/lib/*' } }],
        c: [{ numeric: ['>=', -5e9, '<', 5e9] }, { numeric: ['=', 0] }, { exists: false }, { wildcard: 'a\\*\\\\*' }],
        $or: [{ d: ['1'] }, { e: { f: ['2'] } }],
      },
    };
    expect(validatePattern(pattern)).toBeUndefined();
  });
});

describe('properties', () => {
  const scalar = fc.oneof(fc.string({ maxLength: 6 }), fc.integer({ min: -1000, max: 1000 }), fc.boolean(), fc.constant(null));
  const key = fc.constantFrom('a', 'b', 'c', 'detail', 'x-y');
  const event = fc.dictionary(key, fc.oneof(scalar, fc.array(scalar, { maxLength: 3 }), fc.dictionary(key, scalar, { maxKeys: 3 })), { maxKeys: 4 });

  /** The exact-value pattern an event's scalar leaves make: every event matches its own. */
  function exactPatternOf(e: Record<string, unknown>): EventPattern | undefined {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(e)) {
      if (Array.isArray(v)) {
        if (v.length) out[k] = v;
      } else if (v !== null && typeof v === 'object') {
        const inner = exactPatternOf(v as Record<string, unknown>);
        if (inner) out[k] = inner;
      } else out[k] = [v];
    }
    return Object.keys(out).length ? out : undefined;
  }

  it('an event matches the exact pattern of its own leaves', () => {
    fc.assert(fc.property(event, (e) => {
      const pattern = exactPatternOf(e);
      fc.pre(pattern !== undefined);
      expect(validatePattern(pattern)).toBeUndefined();
      expect(matchesPattern(pattern!, e)).toBe(true);
    }));
  });

  it('on a present scalar, anything-but v matches exactly when [v] does not', () => {
    const value = fc.oneof(fc.string({ maxLength: 4 }), fc.integer({ min: -50, max: 50 }));
    fc.assert(fc.property(value, scalar, (v, leaf) => {
      expect(matchesPattern({ a: [{ 'anything-but': v }] }, { a: leaf })).toBe(!matchesPattern({ a: [v] }, { a: leaf }));
    }));
  });

  it('exists true and exists false are complements wherever the field is', () => {
    fc.assert(fc.property(event, key, (e, k) => {
      expect(matchesPattern({ [k]: [{ exists: true }] }, e)).toBe(!matchesPattern({ [k]: [{ exists: false }] }, e));
    }));
  });

  it('$or of two patterns matches exactly when either does, and a list value when any element does', () => {
    const leafPattern = fc.tuple(key, fc.array(scalar, { minLength: 1, maxLength: 3 })).map(([k, vs]) => ({ [k]: vs }));
    fc.assert(fc.property(leafPattern, leafPattern, event, (p, q, e) => {
      const either = matchesPattern(p, e) || matchesPattern(q, e);
      expect(matchesPattern({ $or: [p, q] }, e)).toBe(either);
      const [[k, vs]] = Object.entries(p) as [[string, unknown[]]];
      expect(matchesPattern(p, e)).toBe(vs.some((v) => matchesPattern({ [k]: [v] }, e)));
    }));
  });

  it('numeric bounds agree with plain comparison, and wildcards *s* with includes', () => {
    fc.assert(fc.property(fc.integer({ min: -100, max: 100 }), fc.integer({ min: -100, max: 100 }), fc.integer({ min: 0, max: 100 }), (n, lo, width) => {
      const hi = lo + width;
      expect(matchesPattern({ n: [{ numeric: ['>=', lo, '<', hi + 1] }] }, { n })).toBe(n >= lo && n < hi + 1);
    }));
    fc.assert(fc.property(fc.string({ maxLength: 8 }), fc.string({ minLength: 1, maxLength: 3 }).filter((s) => !/[*\\]/.test(s)), (text, part) => {
      expect(matchesPattern({ k: [{ wildcard: `*${part}*` }] }, { k: text })).toBe(text.includes(part));
    }));
  });
});
