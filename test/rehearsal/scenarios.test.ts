/**
 * The rehearsal scenarios as tests: the synthesized stack (one `cdk synth` for the file)
 * on DynamoDB Local, local-aws-sqs and s3rver, every AWS call authorized by the gateway.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { synth } from '../../lib/rehearsal/rehearsal.js';
import { runScenarios, SCENARIO_CONTEXT } from '../../lib/rehearsal/scenarios/index.js';

const dynamodbEndpoint = inject('dynamodbEndpoint');
let work = '';
let cdkOut = '';
const lines: string[] = [];
const log = (line: string) => void lines.push(line);

describe.skipIf(!dynamodbEndpoint)('airless rehearse scenarios', () => {
  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), 'airless-rehearsal-test-'));
    cdkOut = join(work, 'cdk.out');
    await synth(cdkOut, SCENARIO_CONTEXT);
  }, 180_000);
  afterAll(async () => {
    if (work) await rm(work, { recursive: true, force: true });
  });

  it('readme: the README deploy section passes with no call denied', { timeout: 300_000, retry: 1 }, async () => {
    const s = await runScenarios(['readme'], { stateDir: join(work, 'state'), cdkOut, dynamodbEndpoint }, log);
    expect(s.scenarios, lines.filter((l) => !l.startsWith('  ok')).join('\n')).toMatchObject([{ name: 'readme', ok: true }]);
    expect(s.denied).toEqual([]);
    expect(s.awsCalls).toBeGreaterThan(100);
  }); // KNOWN FLAKE: failed once under a fully loaded machine (cause not yet found); a retry is logged by vitest

  it('faults: large values, a killed worker, a poison message, a bundle that cannot be scheduled', { timeout: 400_000, retry: 1 }, async () => {
    const s = await runScenarios(['faults'], { stateDir: join(work, 'state'), cdkOut, dynamodbEndpoint }, log);
    expect(s.scenarios, lines.filter((l) => !l.startsWith('  ok')).join('\n')).toMatchObject([{ name: 'faults', ok: true }]);
    expect(s.denied).toEqual([]);
  }); // see above
});
