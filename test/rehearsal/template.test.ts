import { describe, expect, it } from 'vitest';
import { StackTemplate } from '../../lib/rehearsal/template.js';
import { nextScheduleFire } from '../../lib/rehearsal/schedules.js';

const template = new StackTemplate('S', {
  Resources: {
    Q: { Type: 'AWS::SQS::Queue', Properties: {} },
    T: { Type: 'AWS::DynamoDB::Table', Properties: { TableName: 'S-t' } },
    B: { Type: 'AWS::S3::Bucket', Properties: {} },
    F: { Type: 'AWS::Lambda::Function', Properties: {} },
  },
  Outputs: { Url: { Value: { Ref: 'Q' } } },
}, '/nowhere');
template.setContext({ queueEndpoint: 'http://127.0.0.1:9' });

describe('StackTemplate', () => {
  it('resolves Ref, GetAtt, Join, Sub, Select and Split to local names in account 000000000000', () => {
    expect(template.resolve({ Ref: 'Q' })).toBe('http://127.0.0.1:9/000000000000/S-Q');
    expect(template.resolve({ 'Fn::GetAtt': ['T', 'Arn'] })).toBe('arn:aws:dynamodb:us-east-1:000000000000:table/S-t');
    expect(template.resolve({ 'Fn::Join': ['', [{ 'Fn::GetAtt': ['B', 'Arn'] }, '/*']] })).toBe('arn:aws:s3:::s-b/*');
    expect(template.resolve({ 'Fn::Sub': 'arn:${AWS::Partition}:x:${AWS::Region}:${AWS::AccountId}:${F.Arn}' }))
      .toBe('arn:aws:x:us-east-1:000000000000:arn:aws:lambda:us-east-1:000000000000:function:S-F');
    expect(template.resolve({ 'Fn::Select': [1, { 'Fn::Split': [',', 'a,b,c'] }] })).toBe('b');
    expect(template.resolve({ A: { Ref: 'AWS::NoValue' }, B: 1 })).toEqual({ B: 1 });
    expect(template.outputs()).toEqual({ Url: 'http://127.0.0.1:9/000000000000/S-Q' });
  });

  it('says which intrinsic or attribute it cannot resolve', () => {
    expect(() => template.resolve({ 'Fn::ImportValue': 'x' })).toThrow('the rehearsal cannot resolve Fn::ImportValue');
    expect(() => template.resolve({ 'Fn::GetAtt': ['Q', 'Nope'] })).toThrow('cannot resolve Fn::GetAtt Q.Nope (AWS::SQS::Queue)');
    expect(() => template.resolve({ Ref: 'Missing' })).toThrow('template has no resource Missing');
  });
});

describe('nextScheduleFire', () => {
  const base = { State: 'ENABLED', CreationDate: Date.parse('2026-01-01T00:00:30Z') };
  it('finds the earliest fire of rate, cron and at() schedules, skipping disabled ones', () => {
    const now = Date.parse('2026-01-01T00:10:00Z');
    expect(nextScheduleFire([{ ...base, ScheduleExpression: 'rate(1 minute)' }], now)).toBe(Date.parse('2026-01-01T00:10:30Z'));
    expect(nextScheduleFire([{ ...base, ScheduleExpression: 'cron(0 2 * * ? *)' }, { ...base, ScheduleExpression: 'at(2026-01-01T01:00:00)' }], now))
      .toBe(Date.parse('2026-01-01T01:00:00Z'));
    expect(nextScheduleFire([{ ...base, State: 'DISABLED', ScheduleExpression: 'rate(1 minute)' }], now)).toBeNull();
  });
});
