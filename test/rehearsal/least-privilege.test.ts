/**
 * The least-privilege analysis: a statement that alone allowed a recorded call is proven
 * by replaying that call without it (real evaluator: AccessDenied); unused statements and
 * actions are reported.
 */
import { describe, expect, it } from 'vitest';
import type { Decision } from '../../lib/rehearsal/gateway/index.js';
import { ALLOWED_UNUSED, type AllowedGrant } from '../../lib/rehearsal/grant-allowlist.js';
import { analyzeGrants } from '../../lib/rehearsal/least-privilege.js';
import { StackTemplate } from '../../lib/rehearsal/template.js';

const template = new StackTemplate('S', {
  Resources: {
    Role: { Type: 'AWS::IAM::Role', Properties: {} },
    Fn: { Type: 'AWS::Lambda::Function', Metadata: { 'aws:asset:path': 'asset.x' }, Properties: { Role: { 'Fn::GetAtt': ['Role', 'Arn'] } } },
    T: { Type: 'AWS::DynamoDB::Table', Properties: { TableName: 't' } },
    Policy: {
      Type: 'AWS::IAM::Policy',
      Properties: {
        PolicyName: 'P', Roles: [{ Ref: 'Role' }],
        PolicyDocument: {
          Version: '2012-10-17',
          Statement: [
            { Effect: 'Allow', Action: ['dynamodb:GetItem', 'dynamodb:Scan'], Resource: { 'Fn::GetAtt': ['T', 'Arn'] } },
            { Effect: 'Allow', Action: 'sqs:SendMessage', Resource: 'arn:aws:sqs:us-east-1:000000000000:q' },
          ],
        },
      },
    },
  },
}, '/nowhere');

const used: Decision = {
  at: 0, principal: 'Fn', action: 'dynamodb:GetItem', resource: 'arn:aws:dynamodb:us-east-1:000000000000:table/t',
  allowed: true, matchedStatements: ['P/#1'], context: { 'aws:SecureTransport': 'true' },
};

describe('analyzeGrants', () => {
  it('proves a used statement by a denied replay and reports unused statements and actions', async () => {
    const report = await analyzeGrants(template, [used]);
    expect(report.statements).toEqual([
      { principal: 'Fn', statement: 'P/#1', actions: ['dynamodb:GetItem', 'dynamodb:Scan'], used: true, provenBy: `dynamodb:GetItem on ${used.resource}` },
      { principal: 'Fn', statement: 'P/#2', actions: ['sqs:SendMessage'], used: false },
    ]);
    const tableArn = 'arn:aws:dynamodb:us-east-1:000000000000:table/t';
    expect(report.unused).toEqual([`Fn P/#1 dynamodb:Scan on ${tableArn}`, 'Fn P/#2 sqs:SendMessage on arn:aws:sqs:us-east-1:000000000000:q']);
    expect(report.allowed).toEqual([]);
  }, 20_000);

  it('lets an unused grant pass only through the allow-list, with its reason', async () => {
    // An allow-list naming the tick's read of Airflow variables (the stack's own list is empty).
    const allowList: AllowedGrant[] = [{ principal: 'Tick', action: 'ssm:GetParameter', resource: 'parameter/airless/variables/', reason: 'read by a path no scenario reaches' }];
    const tick = new StackTemplate('S', {
      Resources: {
        TickRole: { Type: 'AWS::IAM::Role', Properties: {} },
        Policy: {
          Type: 'AWS::IAM::Policy',
          Properties: {
            PolicyName: 'TickPolicy', Roles: [{ Ref: 'TickRole' }],
            PolicyDocument: { Version: '2012-10-17', Statement: [
              { Effect: 'Allow', Action: 'ssm:GetParameter', Resource: 'arn:aws:ssm:us-east-1:000000000000:parameter/airless/variables/*' },
              { Effect: 'Allow', Action: 'sqs:SendMessage', Resource: 'arn:aws:sqs:us-east-1:000000000000:S-SchedulerDeadLetterQueue1' },
            ] },
          },
        },
      },
    }, '/nowhere');
    const report = await analyzeGrants(tick, [], allowList);
    expect(report.allowed).toEqual([{ grant: expect.stringContaining('parameter/airless/variables/'), reason: 'read by a path no scenario reaches' }]);
    // Not on the list: unused, it is reported.
    expect(report.unused).toEqual(['TickRole TickPolicy/#2 sqs:SendMessage on arn:aws:sqs:us-east-1:000000000000:S-SchedulerDeadLetterQueue1']);
    // With the stack's list (empty: every grant is reached by a scenario) both are reported.
    expect(ALLOWED_UNUSED).toEqual([]);
    expect((await analyzeGrants(tick, [])).unused).toHaveLength(2);
  }, 20_000);
});
