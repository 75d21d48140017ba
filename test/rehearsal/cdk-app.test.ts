/**
 * What the rehearsal needs from the user's CDK app: `cdk` found in their project (or
 * beside Airless), their cdk.json's app synthesized from their project (or `--app`),
 * and the Airless stack found in the cloud assembly by its outputs, whatever it is
 * called, nested assemblies included. The synth test runs the real CDK CLI on a small
 * app (about 5 s).
 */
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { airlessStack, cdkEntry, synth } from '../../lib/rehearsal/cdk-app.js';

const ROOT = path.resolve(__dirname, '../..');
const OUTPUTS = { BucketName: { Value: 'b' }, QueueUrl: { Value: 'q' }, SchedulerGroup: { Value: 'g' }, DagScheduleGroup: { Value: 'd' } };
const stack = (outputs: object | undefined) => ({ Resources: { Topic: { Type: 'AWS::SNS::Topic' } }, ...(outputs ? { Outputs: outputs } : {}) });

/** A cloud assembly: `stacks` by artifact id, each [stackName, template]; `nested` as a stage. */
function assembly(stacks: Record<string, [string | undefined, object]>, nested?: Record<string, [string | undefined, object]>): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'airless-cdkout-'));
  const artifacts: Record<string, object> = {};
  for (const [id, [stackName, template]] of Object.entries(stacks)) {
    writeFileSync(path.join(dir, `${id}.template.json`), JSON.stringify(template));
    artifacts[id] = { type: 'aws:cloudformation:stack', properties: { templateFile: `${id}.template.json`, ...(stackName ? { stackName } : {}) } };
  }
  if (nested) {
    const inner = assembly(nested);
    const name = 'assembly-Prod';
    symlinkSync(inner, path.join(dir, name), 'dir');
    artifacts['assembly-Prod'] = { type: 'cdk:cloud-assembly', properties: { directoryName: name } };
  }
  writeFileSync(path.join(dir, 'manifest.json'), JSON.stringify({ version: '48.0.0', artifacts }));
  return dir;
}

describe('the Airless stack of a cloud assembly', () => {
  it('is the one stack with the Airless outputs, whatever the app calls it', () => {
    const dir = assembly({ Network: [undefined, stack(undefined)], Flows: ['team-flows-prod', stack(OUTPUTS)] });
    const t = airlessStack(dir);
    expect(t.stackName).toBe('team-flows-prod');
    expect(t.assetDir).toBe(dir);
  });

  it('is chosen by --stack (stack name or construct id) among several, and an ambiguous app is refused', () => {
    const dir = assembly({ Blue: [undefined, stack(OUTPUTS)], Green: ['green-flows', stack(OUTPUTS)] });
    expect(() => airlessStack(dir)).toThrow('the app has 2 Airless stacks (Blue, green-flows): choose one with --stack NAME');
    expect(airlessStack(dir, 'green-flows').stackName).toBe('green-flows');
    expect(airlessStack(dir, 'Blue').stackName).toBe('Blue');
    expect(() => airlessStack(dir, 'Red')).toThrow('the app has no stack Red (stacks: Blue, green-flows)');
  });

  it('names what it found when no stack fits', () => {
    const dir = assembly({ Network: [undefined, stack(undefined)] });
    expect(() => airlessStack(dir)).toThrow('the app has no Airless stack (stacks: Network)');
    expect(() => airlessStack(dir, 'Network')).toThrow(/stack Network has no BucketName, QueueUrl, SchedulerGroup, DagScheduleGroup outputs/);
  });

  it('is found in a nested assembly (a Stage), with its assets beside it', () => {
    const dir = assembly({}, { ProdFlows: ['Prod-Flows', stack(OUTPUTS)] });
    const t = airlessStack(dir);
    expect(t.stackName).toBe('Prod-Flows');
    expect(t.assetDir).toBe(path.join(dir, 'assembly-Prod'));
  });
});

describe('cdk and the user app', () => {
  it("finds the project's own aws-cdk first, then the one beside Airless", () => {
    const proj = mkdtempSync(path.join(tmpdir(), 'airless-proj-'));
    expect(cdkEntry(proj)).toBe(path.join(ROOT, 'node_modules', 'aws-cdk', 'bin', 'cdk'));
    mkdirSync(path.join(proj, 'node_modules', 'aws-cdk', 'bin'), { recursive: true });
    writeFileSync(path.join(proj, 'node_modules', 'aws-cdk', 'package.json'), JSON.stringify({ name: 'aws-cdk', version: '2.0.0', bin: { cdk: 'bin/cdk' } }));
    expect(cdkEntry(proj)).toBe(path.join(proj, 'node_modules', 'aws-cdk', 'bin', 'cdk'));
  });

  it('refuses a folder with no cdk.json and no --app, saying what to do', async () => {
    const proj = mkdtempSync(path.join(tmpdir(), 'airless-proj-'));
    await expect(synth(path.join(proj, 'out'), {}, { projectDir: proj })).rejects.toThrow(/no cdk\.json in .*airless init writes one\), or pass --app/);
  });

  // One synth (about 5 s idle): cdk.json names an app that cannot run, so the stack proves
  // --app replaced it; the cdk.json path itself is the package test's and the scenarios'.
  it('synthesizes from the project (its relative paths, its cdk.json settings) with the context given, --app replacing the app', async () => {
    const proj = mkdtempSync(path.join(tmpdir(), 'airless-proj-'));
    symlinkSync(path.join(ROOT, 'node_modules'), path.join(proj, 'node_modules'), 'dir');
    writeFileSync(path.join(proj, 'name.txt'), 'flows-from-project');
    writeFileSync(path.join(proj, 'app.mjs'), `import { readFileSync } from 'node:fs';
import { App, CfnOutput, Stack } from 'aws-cdk-lib';
const app = new App();
const s = new Stack(app, 'Flows', { stackName: readFileSync('name.txt', 'utf8') });
for (const k of ['BucketName', 'QueueUrl', 'SchedulerGroup', 'DagScheduleGroup']) new CfnOutput(s, k, { value: k });
new CfnOutput(s, 'Shards', { value: String(app.node.tryGetContext('shards')) });
new CfnOutput(s, 'FromCdkJson', { value: String(app.node.tryGetContext('team')) });
app.synth();
`);
    writeFileSync(path.join(proj, 'cdk.json'), JSON.stringify({ app: 'node no-such-app.mjs', context: { 'cli-telemetry': false, team: 'data' } }));
    const out = await synth(path.join(proj, '.airless', 'cdk.out'), { shards: '2' }, { projectDir: proj, app: 'node app.mjs' });
    const t = airlessStack(out);
    expect(t.stackName).toBe('flows-from-project');
    expect(t.template.Outputs).toMatchObject({ Shards: { Value: '2' }, FromCdkJson: { Value: 'data' } });
  }, 90_000);
});
