import { it } from 'vitest';
import { readFileSync } from 'node:fs';
import { buildToLocalVersion } from '../../lib/build/index.js';
import { IsolationPool } from '../../lib/isolation/pool.js';
it('x', async () => {
const { version } = await buildToLocalVersion('/work/wt/isolation/test/fixtures/isolation-dags', '/tmp/isotest/root');
const m = JSON.parse(readFileSync(`/tmp/isotest/root/${version}/manifest.json`, 'utf8'));
const pool = new IsolationPool({ bundlePath: `/tmp/isotest/root/${version}/bundle.mjs`, sha: m.bundleSha256, memoryMb: 64 });
const host = { taskId: 'healthy', xcom: { pull: async () => 1, push: async () => {} }, log: console, render: (s: string) => s };
const t0 = performance.now();
try { console.log(await pool.run({ t: 'run', dagId: 'misbehaving', taskId: 'healthy', method: 'execute', ctx: { taskId: 'healthy' } }, host)); } catch (e) { console.log('ERR', e); }
console.log(performance.now() - t0);
await pool.close();
}, 20000);
