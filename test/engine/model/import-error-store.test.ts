/**
 * The import-error store (lib/engine/model/import-error-store.ts) on the store of this
 * project: the memory store, or DynamoDB Local (vitest.config.ts runs test/engine/** on both).
 */
import { describe, expect, it } from 'vitest';
import { testStore } from '../../helpers/stores.js';

describe('import errors in the store', () => {
  it('keeps one record per file, its id across failures, and forgets all but the files kept', async () => {
    const store = await testStore();
    expect(await store.listImportErrors()).toEqual([]);
    const a = await store.putImportError('etl.ts', 'Expected ";" but found "}"', 1_000);
    const b = await store.putImportError('team/report.ts', 'dag report: task load: unknown pool', 2_000);
    expect([a.id, b.id]).toEqual([1, 2]);
    const again = await store.putImportError('etl.ts', 'Unexpected end of file', 3_000);
    expect(again).toEqual({ id: 1, file: 'etl.ts', message: 'Unexpected end of file', at: 3_000 });
    expect(await store.listImportErrors()).toEqual([again, b]);
    await store.clearImportErrors(['team/report.ts']);
    expect(await store.listImportErrors()).toEqual([b]);
    await store.clearImportErrors();
    expect(await store.listImportErrors()).toEqual([]);
    // Ids are never reused: a client holding id 1 never sees another file under it.
    expect((await store.putImportError('etl.ts', 'again', 4_000)).id).toBe(3);
  });

  it('loses no record and reuses no id when writers race', async () => {
    const store = await testStore();
    const files = Array.from({ length: 6 }, (_, i) => `dag_${i}.ts`);
    const recs = await Promise.all(files.map((f, i) => store.putImportError(f, `broken ${i}`, i)));
    expect(new Set(recs.map((r) => r.id)).size).toBe(files.length);
    expect((await store.listImportErrors()).map((r) => r.file).sort()).toEqual(files);
  });
});
