import { App, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { AwsSolutionsChecks } from 'cdk-nag';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { AirlessStack } from '../../lib/infra/stack.js';
import { NO_BUNDLING } from './synth.js';

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

/** Synthesizes the app with AwsSolutions checks; returns every finding as `rule path`. */
function nagFindings(build: (app: App) => void): string[] {
  const outdir = mkdtempSync(join(tmpdir(), 'airless-nag-'));
  dirs.push(outdir);
  const app = new App({ outdir, context: NO_BUNDLING });
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  build(app);
  try {
    app.synth();
  } catch (err) {
    const report = join(outdir, 'validation-report.json');
    if (!existsSync(report)) throw err;
  }
  const report = join(outdir, 'validation-report.json');
  if (!existsSync(report)) return [];
  const parsed = JSON.parse(readFileSync(report, 'utf8'));
  return parsed.pluginReports.flatMap((p: any) =>
    p.violations.flatMap((v: any) => v.violatingConstructs.map((c: any) => `${v.ruleName} ${c.constructPath}`)),
  );
}

describe('cdk-nag AwsSolutions gate', () => {
  // nag walks every resource: about 8 s per stack on a busy 2-core machine
  it('has no unacknowledged finding on the default stack', { timeout: 120_000 }, () => {
    expect(nagFindings((app) => new AirlessStack(app, 'Airless'))).toEqual([]);
  });

  it('has no unacknowledged finding with removalPolicy DESTROY (auto-delete custom resources)', { timeout: 120_000 }, () => {
    const findings = nagFindings(
      (app) => new AirlessStack(app, 'AirlessDev', { airless: { removalPolicy: RemovalPolicy.DESTROY, shards: 1 } }),
    );
    expect(findings).toEqual([]);
  });

  it('has no unacknowledged finding with every kind of job named (the operators\' grants)', { timeout: 120_000 }, () => {
    const jobs = {
      ecs: { clusters: ['ml'], taskDefinitions: ['train'], passRoles: ['train-task'] }, batch: { jobQueues: ['cpu'], jobDefinitions: ['score'] },
      glue: { jobs: ['orders'] }, stepFunctions: { stateMachines: ['publish'] },
      athena: { workGroups: ['reports'], resultBuckets: ['results'], dataBuckets: ['lake'], databases: ['sales'] },
      emrServerless: { applications: ['00abc'], executionRoles: ['spark'] }, lambda: { functions: ['resize'] },
    };
    expect(nagFindings((app) => new AirlessStack(app, 'AirlessJobs', { airless: { jobs, shards: 1 } }))).toEqual([]);
  });

  it('reports findings when there are some (the gate is live)', () => {
    const findings = nagFindings((app) => {
      new sqs.Queue(new Stack(app, 'Bare'), 'Plain');
    });
    expect(findings).toEqual(
      expect.arrayContaining([expect.stringMatching(/^AwsSolutions-SQS3 /), expect.stringMatching(/^AwsSolutions-SQS4 /)]),
    );
  });
});
