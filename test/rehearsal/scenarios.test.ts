/**
 * The rehearsal scenarios as tests: the synthesized stack (one `cdk synth` for the file)
 * on DynamoDB Local, local-aws-sqs and s3rver, every AWS call authorized by the gateway.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { PROJECT_ROOT } from '../../lib/rehearsal/rehearsal.js';
import { runScenarios } from '../../lib/rehearsal/scenarios/index.js';

const dynamodbEndpoint = inject('dynamodbEndpoint');
let work = '';
let cdkOut = '';
const lines: string[] = [];
const log = (line: string) => void lines.push(line);

describe.skipIf(!dynamodbEndpoint)('airless rehearse scenarios', () => {
  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), 'airless-rehearsal-test-'));
    cdkOut = join(work, 'cdk.out');
    await promisify(execFile)(join(PROJECT_ROOT, 'node_modules', '.bin', 'cdk'), ['synth', '--quiet', '--output', cdkOut], {
      cwd: PROJECT_ROOT, env: { ...process.env, CDK_DISABLE_CLI_TELEMETRY: '1' }, maxBuffer: 64 * 1024 * 1024,
    });
  }, 180_000);
  afterAll(async () => {
    if (work) await rm(work, { recursive: true, force: true });
  });

  it('readme: the README deploy section passes with no call denied', async () => {
    const s = await runScenarios(['readme'], { stateDir: join(work, 'state'), cdkOut, dynamodbEndpoint }, log);
    expect(s.scenarios, lines.filter((l) => !l.startsWith('  ok')).join('\n')).toMatchObject([{ name: 'readme', ok: true }]);
    expect(s.denied).toEqual([]);
    expect(s.awsCalls).toBeGreaterThan(100);
  }, 300_000);
});
