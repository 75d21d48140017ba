/**
 * The asset sources of the stack (lib/infra/asset-sources.ts): rules for S3 buckets and
 * EventBridge patterns and event source mappings for SQS queues, all to one asset-events
 * function whose grants are scoped to the named queues and the tables it uses; nothing
 * with a standing charge (no alarm, no queue, no schedule added); cdk-nag clean.
 */
import { App, Stack, Validations } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as events from 'aws-cdk-lib/aws-events';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { AwsSolutionsChecks } from 'cdk-nag';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AirlessStack } from '../../lib/infra/stack.js';
import { actionsOf, logicalId, NO_BUNDLING, resourcesOf, statementsOfRole, synthAirless } from './synth.js';

function withSources(app: App) {
  const user = new Stack(app, 'Data');
  const bucket = new s3.Bucket(user, 'Lake', { eventBridgeEnabled: true, enforceSSL: true, serverAccessLogsPrefix: 'logs/' });
  const queue = new sqs.Queue(user, 'Orders', { enforceSSL: true });
  const bus = new events.EventBus(user, 'Billing');
  const stack = new AirlessStack(app, 'Airless', {
    airless: {
      assetSources: {
        buckets: [{ bucket: 'lake', prefix: 'raw/' }, bucket],
        eventPatterns: [{ pattern: { source: ['billing'], detailType: ['Invoice Closed'] } }, { pattern: { source: ['shop'] }, bus }, { pattern: { source: ['crm'] }, bus: 'airless' }],
        queues: [queue],
        batchSize: 5,
      },
    },
  });
  return { stack, queue, bucket };
}

describe('asset sources', () => {
  const app = new App({ context: NO_BUNDLING });
  const { stack, queue } = withSources(app);
  const t = Template.fromStack(stack);
  const base = synthAirless().template;
  const fn = logicalId(stack, stack.airless.assetSources!.function);
  const role = logicalId(stack, stack.airless.assetSources!.function.role as never);

  it('routes each bucket and pattern with a rule to the asset-events function, retried, then dead-lettered', () => {
    const rules = Object.values(resourcesOf(t, 'AWS::Events::Rule')).filter((r) => r.Properties.Description?.startsWith('Airless assets'));
    const patterns = rules.map((r) => r.Properties.EventPattern);
    expect(patterns[0]).toEqual({ source: ['aws.s3'], 'detail-type': ['Object Created'], detail: { bucket: { name: ['lake'] }, object: { key: [{ prefix: 'raw/' }] } } });
    expect(patterns[1]).toMatchObject({ source: ['aws.s3'], 'detail-type': ['Object Created'], detail: { bucket: { name: [expect.anything()] } } });
    expect(patterns.slice(2)).toEqual([{ source: ['billing'], 'detail-type': ['Invoice Closed'] }, { source: ['shop'] }, { source: ['crm'] }]);
    for (const r of rules) {
      expect(r.Properties.Targets).toEqual([expect.objectContaining({
        Arn: { 'Fn::GetAtt': [fn, 'Arn'] }, RetryPolicy: { MaximumRetryAttempts: 185, MaximumEventAgeInSeconds: 86400 },
        DeadLetterConfig: { Arn: { 'Fn::GetAtt': [logicalId(stack, stack.airless.readyQueue.schedulerDeadLetterQueue), 'Arn'] } },
      })]);
    }
    expect(rules[2]!.Properties.EventBusName).toBeUndefined();
    expect(rules[3]!.Properties.EventBusName).toBeDefined();
    // bus: 'airless' is the Airless construct's own bus.
    expect(rules[4]!.Properties.EventBusName).toEqual({ Ref: logicalId(stack, stack.airless.events.bus as never) });
    t.resourceCountIs('AWS::Lambda::Permission', Object.keys(resourcesOf(base, 'AWS::Lambda::Permission')).length + 5);
    t.hasResourceProperties('AWS::Lambda::EventInvokeConfig', {
      FunctionName: { Ref: fn }, MaximumRetryAttempts: 2,
      DestinationConfig: { OnFailure: { Destination: { 'Fn::GetAtt': [logicalId(stack, stack.airless.readyQueue.schedulerDeadLetterQueue), 'Arn'] } } },
    });
  });

  it('maps each queue to the function with partial batch failures, and grants exactly what the function sends', () => {
    t.hasResourceProperties('AWS::Lambda::EventSourceMapping', { FunctionName: { Ref: fn }, BatchSize: 5, FunctionResponseTypes: ['ReportBatchItemFailures'] });
    const statements = statementsOfRole(t, role);
    const granted = statements.flatMap((s) => actionsOf(s).map((a) => `${a} ${JSON.stringify(s.Resource)}`));
    const qArn = JSON.stringify(stack.resolve(queue.queueArn));
    expect(granted).toContain(`sqs:ReceiveMessage ${qArn}`);
    expect(granted.filter((g) => g.startsWith('dynamodb:')).map((g) => g.split(' ')[0]).sort()).toEqual(
      ['dynamodb:GetItem', 'dynamodb:GetItem', 'dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:Query', 'dynamodb:UpdateItem'].sort(),
    );
    expect(statements.some((s) => JSON.stringify(s.Resource) === '"*"')).toBe(false);
  });

  it('adds nothing with a standing charge: no alarm, queue, schedule or table', () => {
    for (const type of ['AWS::CloudWatch::Alarm', 'AWS::SQS::Queue', 'AWS::Scheduler::Schedule', 'AWS::DynamoDB::Table', 'AWS::KMS::Key']) {
      expect([type, Object.keys(resourcesOf(t, type)).length]).toEqual([type, Object.keys(resourcesOf(base, type)).length]);
    }
    expect(Object.keys(resourcesOf(base, 'AWS::Events::Rule')).some((id) => id.includes('AssetSources'))).toBe(false);
  });

  it('has no unacknowledged cdk-nag finding', { timeout: 120_000 }, () => {
    const outdir = mkdtempSync(join(tmpdir(), 'airless-nag-assets-'));
    const nagged = new App({ outdir, context: NO_BUNDLING });
    Validations.of(nagged).addPlugins(new AwsSolutionsChecks(nagged));
    withSources(nagged);
    try { nagged.synth(); } catch (err) { if (!existsSync(join(outdir, 'validation-report.json'))) throw err; }
    const report = join(outdir, 'validation-report.json');
    const findings = existsSync(report)
      ? JSON.parse(readFileSync(report, 'utf8')).pluginReports.flatMap((p: any) => p.violations.flatMap((v: any) => v.violatingConstructs.map((c: any) => `${v.ruleName} ${c.constructPath}`)))
      : [];
    // Only the stand-in user stack (its bucket-notification handler, a queue without a DLQ) has findings.
    expect(findings.filter((f: string) => !f.split(' ').pop()!.startsWith('Data/'))).toEqual([]);
  });
});
