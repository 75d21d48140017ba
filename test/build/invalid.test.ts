import { cp, mkdir, mkdtemp, readdir, readFile, rename, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { buildBundle } from '../../lib/build/index.js';
import { InvalidDagError } from '../../lib/engine/index.js';

const CORPUS = fileURLToPath(new URL('../fixtures/invalid-dags/', import.meta.url));
const cases = await readdir(CORPUS);
const work = await mkdtemp(path.join(tmpdir(), 'airless-invalid-'));
afterAll(() => rm(work, { recursive: true, force: true }));

/** Copies one case into its own folder; `.ts.txt` files (kept away from tsc) become `.ts`. */
async function stage(name: string): Promise<{ dir: string; expected: string }> {
  const dir = path.join(work, name.replace(/\..*$/, ''), 'dags');
  await mkdir(dir, { recursive: true });
  const src = path.join(CORPUS, name);
  let expected: string;
  if ((await stat(src)).isDirectory()) {
    await cp(src, dir, { recursive: true });
    expected = (await readFile(path.join(dir, 'expect.txt'), 'utf8')).trim();
    await rm(path.join(dir, 'expect.txt'));
  } else {
    const target = path.join(dir, name.replace(/\.txt$/, ''));
    await cp(src, target);
    const first = (await readFile(target, 'utf8')).split('\n')[0];
    expected = first.replace(/^\/\/ expect: /, '');
    expect(first).toMatch(/^\/\/ expect: /);
  }
  for (const f of await readdir(dir)) if (f.endsWith('.ts.txt')) await rename(path.join(dir, f), path.join(dir, f.slice(0, -4)));
  return { dir, expected };
}

describe('the invalid-DAG corpus', () => {
  it('has a case for every rule', () => {
    expect(cases.length).toBeGreaterThanOrEqual(20);
  });

  it.each(cases)('%s fails the build with its message', async (name) => {
    const { dir, expected } = await stage(name);
    const error = await buildBundle({ dir, outDir: path.join(dir, '..', 'out') }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(InvalidDagError);
    expect((error as Error).message).toContain(expected);
  });
});
