/**
 * What a rule hands its target (EventBridge's "Transforming target input"): Input, InputPath
 * and InputTransformer, placeholders inside and outside JSON strings, the predefined variables.
 */
import { describe, expect, it } from 'vitest';
import { jsonPath, targetInput } from '../../lib/rehearsal/gateway/eventbridge/input.js';
import type { BusEvent, BusRule } from '../../lib/rehearsal/gateway/eventbridge/types.js';

const event: BusEvent = {
  version: '0', id: 'e1', 'detail-type': 'Object Created', source: 'aws.s3', account: '000000000000', time: '2026-01-01T00:00:00Z', region: 'us-east-1',
  resources: ['arn:aws:s3:::data'], detail: { bucket: { name: 'data' }, object: { key: 'in/a "quoted" key.csv', size: 12 }, tags: ['x', 'y'] },
};
const rule = { Name: 'r', Arn: 'arn:aws:events:us-east-1:000000000000:rule/r' } as BusRule;
const at = Date.parse('2026-01-01T00:00:01Z');

describe('target input', () => {
  it('is the event itself, a constant Input, or what InputPath selects', () => {
    expect(JSON.parse(targetInput({ Id: 't', Arn: 'a' }, event, rule, at))).toEqual(event);
    expect(targetInput({ Id: 't', Arn: 'a', Input: '{"fixed":true}' }, event, rule, at)).toBe('{"fixed":true}');
    expect(JSON.parse(targetInput({ Id: 't', Arn: 'a', InputPath: '$.detail.object' }, event, rule, at))).toEqual({ key: 'in/a "quoted" key.csv', size: 12 });
    expect(targetInput({ Id: 't', Arn: 'a', InputPath: '$.detail.nothing' }, event, rule, at)).toBe('null');
  });

  it('fills an InputTransformer template: text inside strings, JSON outside, null for a missing path, the aws.events variables', () => {
    const t = { InputPathsMap: { key: '$.detail.object.key', size: '$.detail.object.size', tags: '$.detail.tags', gone: '$.detail.gone', first: '$.resources[0]' },
      InputTemplate: '{"msg":"got <key> (<size> bytes)","size":<size>,"tags":<tags>,"gone":<gone>,"from":"<first>","rule":"<aws.events.rule-name>","at":"<aws.events.event.ingestion-time>","raw":<aws.events.event.json>}' };
    const out = JSON.parse(targetInput({ Id: 't', Arn: 'a', InputTransformer: t }, event, rule, at));
    expect(out).toEqual({ msg: 'got in/a "quoted" key.csv (12 bytes)', size: 12, tags: ['x', 'y'], gone: null, from: 'arn:aws:s3:::data', rule: 'r', at: '2026-01-01T00:00:01.000Z', raw: event });
    expect(targetInput({ Id: 't', Arn: 'a', InputTransformer: { InputPathsMap: { k: '$.detail.object.key' }, InputTemplate: 'plain <k> and <unknown>' } }, event, rule, at)).toBe('plain "in/a \\"quoted\\" key.csv" and <unknown>');
  });

  it('reads JSON paths with dots, indexes and quoted names', () => {
    expect(jsonPath(event, '$')).toBe(event);
    expect(jsonPath(event, '$.detail.tags[1]')).toBe('y');
    expect(jsonPath(event, "$['detail-type']")).toBe('Object Created');
    expect(jsonPath(event, 'detail')).toBeUndefined();
  });
});
