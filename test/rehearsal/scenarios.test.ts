/**
 * The rehearsal scenarios as tests: the synthesized stack (one `cdk synth` for the file)
 * on DynamoDB Local, local-aws-sqs and s3rver, every AWS call authorized by the gateway;
 * then least privilege over every call the scenarios made.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Decision } from '../../lib/rehearsal/gateway/index.js';
import { PROJECT_ROOT, synth } from '../../lib/rehearsal/rehearsal.js';
import { LEAST_PRIVILEGE_INPUTS, leastPrivilege, runScenarios, SCENARIO_APP, SCENARIO_CONTEXT, type Summary } from '../../lib/rehearsal/scenarios/index.js';
import type { StackTemplate } from '../../lib/rehearsal/template.js';
import { runCli } from '../../lib/cli/main.js';

const dynamodbEndpoint = inject('dynamodbEndpoint');
let work = '';
let cdkOut = '';
const lines: string[] = [];
const log = (line: string) => void lines.push(line);
const decisions: Decision[] = [];
const passed = new Set<string>();
let template: StackTemplate | undefined;

async function scenario(name: string): Promise<Summary> {
  const s = await runScenarios([name], { stateDir: join(work, 'state'), cdkOut, dynamodbEndpoint }, log, { cli: runCli });
  decisions.push(...s.decisions);
  template = s.template ?? template;
  expect(s.scenarios, lines.filter((l) => !l.startsWith('  ok')).join('\n')).toMatchObject([{ name, ok: true }]);
  expect(s.denied).toEqual([]);
  passed.add(name);
  return s;
}

// No retries: a scenario waits on the rehearsal's virtual clock (waitOnClock), so a loaded
// machine makes it slower, not red, and no check depends on which function wins a race.
// A failure here is a finding (earlier flakes had causes: DynamoDB Local's TTL sweep on
// the real clock, see createResources; waits in real time; checks on who got there first).
describe.skipIf(!dynamodbEndpoint)('airless rehearse scenarios', () => {
  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), 'airless-rehearsal-test-'));
    cdkOut = join(work, 'cdk.out');
    await synth(cdkOut, SCENARIO_CONTEXT, { app: SCENARIO_APP, projectDir: PROJECT_ROOT });
  }, 180_000);
  afterAll(async () => {
    if (work) await rm(work, { recursive: true, force: true });
  });

  it('readme: the README deploy section passes with no call denied', { timeout: 600_000 }, async () => {
    const s = await scenario('readme');
    expect(s.awsCalls).toBeGreaterThan(100);
  });

  it('faults: large values, a killed worker, a poison message, a bundle that cannot be scheduled', { timeout: 600_000 }, async () => {
    await scenario('faults');
  });

  it('paths: lease expiry, sensors the poker and the tick settle, removed DAGs, a deleted bundle', { timeout: 600_000 }, async () => {
    await scenario('paths');
  });

  it('recovery: a refused tick dead-lettered, a run whose bundle is gone, a sensor without its code, duplicate notifications', { timeout: 600_000 }, async () => {
    await scenario('recovery');
  });

  it('settings: variables and connections set with the CLI, read by the worker, the poker and the tick, masked in logs', { timeout: 600_000 }, async () => {
    await scenario('settings');
  });

  it('data: an S3 object (its notification delivered twice) triggers its DAG once; allOf waits for both assets, anyOf runs on either; EventBridge and SQS sources deduplicated', { timeout: 300_000, retry: 1 }, async () => {
    await scenario('data');
  });

  it('jobs: AWS jobs resumed by their end events, a retry, a lost and an early event, six jobs stopped by their timeouts', { timeout: 300_000, retry: 1 }, async () => {
    await scenario('jobs');
  });

  it('least privilege: every grant a call used is needed, every unused one is allow-listed with its reason', async (ctx) => {
    // Unused grants are judged on every scenario's calls: after a failure they would be wrong.
    if (passed.size < LEAST_PRIVILEGE_INPUTS.length) ctx.skip();
    const { ok, grants } = await leastPrivilege(template!, decisions, log);
    expect(grants.unused, 'unused grants: cut them, reach them in a scenario, or allow-list them (lib/rehearsal/grant-allowlist.ts)').toEqual([]);
    expect(grants.statements.filter((s) => s.used && !s.provenBy)).toEqual([]);
    expect(grants.allowed).toEqual([]);
    expect(ok).toBe(true);
  }, 60_000);
});
