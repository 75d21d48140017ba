import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { MalformedMessageError } from '../../../lib/engine/index.js';
import { encodeQueueMessage, parseQueueMessage, validateQueueMessage } from '../../../lib/engine/index.js';
import type { QueueMessage } from '../../../lib/engine/index.js';

const task: QueueMessage = { kind: 'task', dagId: 'etl', runId: 'scheduled__2024-01-01T00:00:00+00:00', taskId: 'extract', tryNumber: 1 };
const fire: QueueMessage = { kind: 'fire', dagId: 'etl', runId: 'r1', taskId: 'wait', tryNumber: 2, reason: 'trigger', token: 'w-1', payload: { ok: true } };
const schedule: QueueMessage = { kind: 'schedule', dagId: 'etl', tickAt: 0 };

function malformed(body: string): string {
  try {
    parseQueueMessage(body);
  } catch (e) {
    expect(e).toBeInstanceOf(MalformedMessageError);
    return (e as Error).message;
  }
  throw new Error(`accepted ${body}`);
}

describe('queue messages', () => {
  it('round-trips the three kinds', () => {
    for (const m of [task, fire, schedule]) expect(parseQueueMessage(encodeQueueMessage(m))).toEqual(m);
  });

  it('encodes with a fixed field order', () => {
    expect(encodeQueueMessage({ tickAt: 0, dagId: 'd', kind: 'schedule' } as QueueMessage)).toBe(
      '{"kind":"schedule","dagId":"d","tickAt":0}',
    );
  });

  it('rejects what is not a message, naming the problem', () => {
    expect(malformed('not json')).toMatch(/not JSON/);
    expect(malformed('[1]')).toMatch(/JSON object, got an array/);
    expect(malformed('{"kind":"nope"}')).toMatch(/"kind" must be one of task, fire, schedule/);
    expect(malformed('{"kind":"task","dagId":"etl","runId":"r","taskId":"t"}')).toMatch(/"tryNumber".*missing/);
    expect(malformed('{"kind":"task","dagId":"etl","runId":"r","taskId":"t","tryNumber":"1"}')).toMatch(
      /"tryNumber" must be a non-negative integer, got string/,
    );
    expect(malformed('{"kind":"task","dagId":"etl","runId":"r","taskId":"t","tryNumber":1.5}')).toMatch(/tryNumber/);
    expect(malformed('{"kind":"task","dagId":"a/b","runId":"r","taskId":"t","tryNumber":1}')).toMatch(/"dagId" must be a string matching/);
    expect(malformed('{"kind":"task","dagId":"a","runId":"r:1+2","taskId":"t:x","tryNumber":1}')).toMatch(/"taskId"/);
    expect(malformed('{"kind":"task","dagId":"a","runId":"r","taskId":"t","tryNumber":1,"x":1}')).toMatch(/unknown field\(s\): x/);
    expect(malformed('{"kind":"fire","dagId":"a","runId":"r","taskId":"t","tryNumber":1,"reason":"why"}')).toMatch(/"reason" must be one of/);
    expect(malformed('{"kind":"schedule","dagId":"a","tickAt":-1}')).toMatch(/"tickAt"/);
    expect(malformed(JSON.stringify({ kind: 'schedule', dagId: 'x'.repeat(251), tickAt: 0 }))).toMatch(/dagId/);
  });

  it('round-trips a message that creates its task (upstream outcomes, sent at a sub-millisecond time), and names a bad one', () => {
    // A clock with sub-millisecond resolution (the bench's PerfClock) stamps `at` with a fraction.
    const creating: QueueMessage = { ...task, up: { extract: 'success', 'size#failed': 'failed' }, at: 1767225600000.125 };
    expect(parseQueueMessage(encodeQueueMessage(creating))).toEqual(creating);
    const body = (o: object) => JSON.stringify({ kind: 'task', dagId: 'a', runId: 'r', taskId: 't', tryNumber: 1, ...o });
    expect(malformed(body({ at: -1 }))).toMatch(/"at" must be a non-negative number of epoch milliseconds, got number -1/);
    expect(malformed(body({ at: '1' }))).toMatch(/"at"/);
    expect(malformed(body({ up: [] }))).toMatch(/"up" must be an object/);
    expect(malformed(body({ up: { u: 'done' } }))).toMatch(/"up.u" must be one of/);
  });

  it('accepts runIds with ":" and "+" up to 250 characters', () => {
    expect(validateQueueMessage({ ...task, runId: 'manual__2024-01-01T00:00:00+00:00' })).toMatchObject({ kind: 'task' });
    expect(() => validateQueueMessage({ ...task, runId: 'r'.repeat(251) })).toThrow(MalformedMessageError);
  });

  it('refuses to encode an invalid message', () => {
    expect(() => encodeQueueMessage({ ...task, dagId: '' } as QueueMessage)).toThrow(MalformedMessageError);
  });

  it('either parses to a valid message or throws MalformedMessageError, for any input', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.json()), (body) => {
        try {
          const m = parseQueueMessage(body);
          expect(parseQueueMessage(encodeQueueMessage(m))).toEqual(m);
        } catch (e) {
          expect(e).toBeInstanceOf(MalformedMessageError);
        }
      }),
    );
  });
});
