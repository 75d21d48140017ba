/**
 * `airless dev`'s reload records a failed build as an import error (file, one line, time)
 * that the API lists, and clears it when the folder builds again (lib/cli/dev.ts
 * `recordBuild`, fed by real builds of a DAG folder; the store's own behaviour on both
 * stores is test/engine/model/import-error-store.test.ts).
 */
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import etl from '../../examples/dags/etl_daily.js';
import { buildToLocalVersion } from '../../lib/build/index.js';
import { recordBuild } from '../../lib/cli/dev.js';
import { apiOverRuntime } from '../api/support.js';

const GOOD = `import { dag } from 'airless';
export default dag('hello', { schedule: '@daily', startDate: '2026-01-01' }, ({ task }) => { task('say', async () => 'hi'); });
`;
let work: string;
let h: Awaited<ReturnType<typeof apiOverRuntime>>;

/** One reload: build the folder as dev does, then record its outcome. */
async function reload(dags: string): Promise<void> {
  const error = await buildToLocalVersion(dags, join(work, 'bundles'), { typecheck: false }).then(() => undefined, (e: unknown) => e);
  await recordBuild(h.rt.ports.store, error, h.clock.now());
}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'airless-import-errors-'));
  h = await apiOverRuntime([etl]);
});
afterAll(async () => {
  await h?.api.close();
  await rm(work, { recursive: true, force: true });
});

describe('import errors from airless dev\'s reload', () => {
  it('lists the file a reload failed on, with its message and time, until the folder builds again', async () => {
    const dags = join(work, 'dags');
    await mkdir(dags);
    await writeFile(join(dags, 'hello.ts'), GOOD);
    await reload(dags);
    expect((await h.call('GET', '/api/v2/importErrors')).json).toEqual({ import_errors: [], total_entries: 0 });

    await writeFile(join(dags, 'hello.ts'), `${GOOD}export const broken = ;\n`);
    await reload(dags);
    const listed = await h.call('GET', '/api/v2/importErrors');
    expect(listed.json.total_entries).toBe(1);
    const [e] = listed.json.import_errors;
    expect(e).toMatchObject({ filename: 'hello.ts', bundle_name: 'airless', timestamp: new Date(h.clock.now()).toISOString() });
    expect(e.stack_trace).toMatch(/^hello\.ts: .*line 3/);
    expect(e.stack_trace).not.toContain('\n');
    expect((await h.call('GET', `/api/v2/importErrors/${e.import_error_id}`)).json).toEqual(e);
    expect((await h.call('GET', '/api/v2/importErrors?filename_pattern=other')).json.total_entries).toBe(0);

    await writeFile(join(dags, 'hello.ts'), GOOD);
    await reload(dags);
    expect((await h.call('GET', '/api/v2/importErrors')).json.total_entries).toBe(0);
    const gone = await h.call('GET', `/api/v2/importErrors/${e.import_error_id}`);
    expect(gone).toMatchObject({ status: 404, json: { detail: `The ImportError with import_error_id: \`${e.import_error_id}\` was not found` } });
  });
});
