/**
 * The LocalStack tier cannot run here (no Docker), so this checks what can break it
 * without Docker: the pinned image runs nodejs24.x and enforces IAM, and deploy.sh hands
 * cdklocal an environment it accepts (run with stub docker, curl and npx on PATH).
 */
import { spawnSync } from 'node:child_process';
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../lib/infra/functions.js';

const HERE = join(PROJECT_ROOT, 'local/localstack');
const semver = (v: string) => v.split('.').map(Number).reduce((acc, n) => acc * 1000 + n, 0);

let compose: string;
let script: string;
let stubs: string;

beforeAll(async () => {
  compose = await readFile(join(HERE, 'docker-compose.yml'), 'utf8');
  script = await readFile(join(HERE, 'deploy.sh'), 'utf8');
  stubs = await mkdtemp(join(tmpdir(), 'airless-localstack-'));
  const stub = async (name: string, body: string) => {
    await writeFile(join(stubs, name), `#!/usr/bin/env bash\n${body}\n`);
    await chmod(join(stubs, name), 0o755);
  };
  await stub('docker', 'exit 0');
  await stub('curl', 'exit 0');
  // Records how cdklocal would be started, then stops the script.
  await stub('npx', `{ echo "args=$*"; env | grep -E '^(AWS_|NODE_PATH=)' | sort; } > "${stubs}/npx.log"; exit 3`);
});

afterAll(async () => {
  await rm(stubs, { recursive: true, force: true });
});

function deploy(env: Record<string, string> = {}) {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('AWS_') && k !== 'AIRLESS_AWS_ENDPOINT'));
  return spawnSync('bash', [join(HERE, 'deploy.sh')], {
    cwd: PROJECT_ROOT,
    env: { ...clean, PATH: `${stubs}:${process.env.PATH}`, LOCALSTACK_AUTH_TOKEN: 'test-token', ...env },
    encoding: 'utf8',
    timeout: 20_000,
  });
}

describe('LocalStack tier', () => {
  it('pins a LocalStack release that runs nodejs24.x (4.11.0 or later)', () => {
    const tag = /image: "\$\{LOCALSTACK_IMAGE:-localstack\/localstack-pro:(\d+\.\d+\.\d+)\}"/.exec(compose)?.[1];
    expect(tag).toBeDefined();
    expect(semver(tag!)).toBeGreaterThanOrEqual(semver('4.11.0'));
  });

  it('enforces IAM by default', () => {
    expect(compose).toMatch(/^\s+- ENFORCE_IAM=\$\{ENFORCE_IAM:-1\}$/m);
  });

  it('documents the pinned image in docs/localstack.md', async () => {
    const tag = /localstack-pro:(\d+\.\d+\.\d+)/.exec(compose)![1];
    expect(await readFile(join(PROJECT_ROOT, 'docs/localstack.md'), 'utf8')).toContain(`localstack-pro:${tag}`);
  });

  it('pins an aws-cdk-local that supports this aws-cdk CLI (3.0.2+ for releases after 2026-03-01)', async () => {
    const cdklocal = /CDKLOCAL="aws-cdk-local@(\d+\.\d+\.\d+)"/.exec(script)?.[1];
    expect(semver(cdklocal!)).toBeGreaterThanOrEqual(semver('3.0.2'));
    const pkg = JSON.parse(await readFile(join(PROJECT_ROOT, 'package.json'), 'utf8'));
    expect(semver(pkg.devDependencies['aws-cdk'])).toBeGreaterThanOrEqual(semver('2.177.0'));
  });

  it('starts cdklocal without AWS_ENDPOINT_URL (refused without AWS_ENDPOINT_URL_S3) and with this checkout\'s aws-cdk', async () => {
    const r = deploy();
    expect(r.status, r.stderr).toBe(3);
    const log = await readFile(join(stubs, 'npx.log'), 'utf8');
    expect(log).toMatch(/^args=--yes aws-cdk-local@\d+\.\d+\.\d+ bootstrap$/m);
    expect(log).not.toMatch(/^AWS_ENDPOINT_URL=/m);
    expect(log).toMatch(/^AWS_ENVAR_ALLOWLIST=AWS_REGION,AWS_DEFAULT_REGION$/m);
    expect(log).toContain(`NODE_PATH=${join(PROJECT_ROOT, 'node_modules')}`);
  });

  it('asks for AWS_ENDPOINT_URL_S3 with a LocalStack elsewhere, in one line', () => {
    const r = deploy({ AIRLESS_AWS_ENDPOINT: 'http://ls.example:4566' });
    expect(r.status).toBe(2);
    expect(r.stderr.trim()).toBe('deploy.sh: AIRLESS_AWS_ENDPOINT is http://ls.example:4566: set AWS_ENDPOINT_URL_S3 too (its host must have an .s3. label) for cdklocal');
  });
});
