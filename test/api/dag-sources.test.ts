/**
 * `get_dag_source`: the DAG file's text as the build of each version kept it beside the
 * bundle (`sources.json`), served by the embedded runtime's local versions folder. Two
 * versions are laid out as the build lays them out (lib/build/local-source.ts), so the
 * test needs no esbuild (test/build/version.test.ts proves the build writes the file).
 */
import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import etl from '../../examples/dags/etl_daily.js';
import { VirtualClock } from '../../lib/adapters/clock.js';
import type { ApiServer } from '../../lib/api/server.js';
import { LocalBundleSource } from '../../lib/build/local-source.js';
import { attachUi } from '../../lib/cli/ui.js';
import type { Manifest } from '../../lib/engine/index.js';
import { EmbeddedRuntime } from '../../lib/runtime/embedded.js';
import { InlineBundleSource } from '../../lib/runtime/inline-bundles.js';
import { responseProblems } from '../helpers/openapi.js';
import { T0 } from '../helpers/runtime.js';
import { holdClockDuringCalls, onDynamo, testStore } from '../helpers/stores.js';

const TOKEN = 'test-token-123456';
const V1 = 'v1-sources';
const V2 = 'v2-sources';
const V0 = 'v0-no-sources';
let api: ApiServer;
let rt: EmbeddedRuntime;
let file: string;

async function get(p: string, accept?: string) {
  const res = await fetch(`${api.url}${p}`, { headers: { authorization: `Bearer ${TOKEN}`, ...(accept ? { accept } : {}) } });
  const text = await res.text();
  const type = res.headers.get('content-type');
  const body = type?.startsWith('application/json') ? JSON.parse(text) : text;
  expect(responseProblems('GET', p, res.status, type, body)).toEqual([]);
  return { status: res.status, type, body };
}

beforeAll(async () => {
  const inline = new InlineBundleSource([etl]);
  const manifest: Manifest = await inline.manifest(inline.version);
  file = manifest.dags[0].file || 'etl_daily.ts';
  const root = mkdtempSync(path.join(tmpdir(), 'airless-sources-'));
  const lay = (version: string, builtAt: string, sources?: Record<string, string>) => {
    mkdirSync(path.join(root, version));
    writeFileSync(path.join(root, version, 'manifest.json'), JSON.stringify({ ...manifest, builtAt, dags: manifest.dags.map((d) => ({ ...d, file })) }));
    if (sources) writeFileSync(path.join(root, version, 'sources.json'), JSON.stringify(sources));
  };
  lay(V0, '2026-01-01T00:00:00Z');
  lay(V1, '2026-01-02T00:00:00Z', { [file]: 'export default 1; // first\n', 'other.ts': 'not this one' });
  lay(V2, '2026-01-03T00:00:00Z', { [file]: 'export default 2; // second\n' });
  const clock = new VirtualClock(T0);
  const fresh = await testStore();
  const store = onDynamo ? holdClockDuringCalls(fresh, clock) : fresh;
  rt = new EmbeddedRuntime({ schedules: false, store, bundles: new LocalBundleSource(root), clock });
  // Each version's run keeps it (dagVersions numbers them by build time); V2 registered last is current.
  for (const [i, v] of [V0, V1, V2].entries()) {
    await rt.register(v);
    await rt.trigger('etl_daily', { runId: `run_${v}`, logicalDate: T0 + i * 60_000 });
  }
  api = await attachUi(rt, { port: '0', token: TOKEN }, { env: { AIRLESS_SECRETS_DIR: root }, out: () => {} });
});
afterAll(async () => { await api?.close(); });

describe('get_dag_source', () => {
  it('answers the current version\'s file, or the asked version\'s, as JSON or text', async () => {
    const current = await get('/api/v2/dagSources/etl_daily');
    expect(current).toMatchObject({ status: 200, body: { dag_id: 'etl_daily', version_number: 3, content: 'export default 2; // second\n', dag_display_name: 'etl_daily' } });
    expect((await get('/api/v2/dagSources/etl_daily?version_number=2')).body).toMatchObject({ version_number: 2, content: 'export default 1; // first\n' });
    const text = await get('/api/v2/dagSources/etl_daily?version_number=2', 'text/plain');
    expect(text).toEqual({ status: 200, type: 'text/plain; charset=utf-8', body: 'export default 1; // first\n' });
    expect((await get('/api/v2/dagSources/etl_daily', 'application/json, text/plain')).body.content).toBe('export default 2; // second\n');
  });

  it('answers null content for a version kept without sources, 404 for an unknown DAG or version, 406 and 422 for bad asks', async () => {
    expect((await get('/api/v2/dagSources/etl_daily?version_number=1')).body).toMatchObject({ version_number: 1, content: null });
    const gone = await get('/api/v2/dagSources/etl_daily?version_number=9');
    expect(gone).toMatchObject({ status: 404, body: { detail: 'The source code of the DAG etl_daily, version_number 9 was not found' } });
    expect((await get('/api/v2/dagSources/nope')).status).toBe(404);
    expect(await get('/api/v2/dagSources/etl_daily', 'text/html')).toMatchObject({ status: 406, body: { detail: 'Only application/json or text/plain is supported' } });
    expect((await get('/api/v2/dagSources/etl_daily?version_number=two')).status).toBe(422);
  });
});
