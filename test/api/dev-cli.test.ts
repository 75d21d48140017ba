/**
 * `airless dev` as a user starts it: a real process that prints the UI's address and
 * token, then answers the API with that token (and refuses a bad --port/--token).
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(__dirname, '../..');
const BIN = path.join(ROOT, 'bin/airless.mjs');
const cwd = mkdtempSync(path.join(tmpdir(), 'airless-ui-'));

describe('airless dev serves the UI and API', () => {
  it('prints the URL with its token and answers the API with it', async () => {
    const child = spawn(process.execPath, [BIN, 'dev', path.join(ROOT, 'examples/dags'), '--port', '0'], {
      cwd, env: { ...process.env, AIRLESS_API_TOKEN: 'env-token-12345', NO_COLOR: '1' },
    });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let out = '';
        child.stdout.on('data', (d) => {
          out += String(d);
          const m = /open (http:\/\/127\.0\.0\.1:\d+)\/#token=env-token-12345/.exec(out);
          if (m) resolve(m[1]);
        });
        child.once('exit', (code) => reject(new Error(`airless dev exited with ${code}: ${out}`)));
      });
      const ok = await fetch(`${url}/api/v2/dags`, { headers: { authorization: 'Bearer env-token-12345' } });
      expect(ok.status).toBe(200);
      expect((await ok.json()).dags.map((d: { dag_id: string }) => d.dag_id)).toContain('etl_daily');
      expect((await fetch(`${url}/api/v2/dags`)).status).toBe(401);
    } finally {
      child.kill('SIGINT');
    }
  });

  it('refuses a bad --port or a short --token with a one-line error and exit 2', () => {
    for (const [flag, value, msg] of [['--port', 'http', /--port must be a whole number from 0 to 65535/], ['--token', 'short', /--token must be at least 8 characters/]] as const) {
      const r = spawnSync(process.execPath, [BIN, 'dev', path.join(ROOT, 'examples/dags'), flag, value], { cwd, encoding: 'utf8', timeout: 60_000 });
      expect(r.status).toBe(2);
      expect(r.stderr).toMatch(msg);
    }
  });
});
