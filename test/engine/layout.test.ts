/**
 * The engine's shape (docs/adr/0009): one writer of task state. A change violates this
 * when engine code other than lib/engine/write/transition.ts writes a task instance, so a
 * transition could skip the table, the field resets or the slot counter.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ENGINE = path.resolve(__dirname, '../../lib/engine');
const WRITES = /\.(updateTask|putTask|clearTask)\(/;

function engineFiles(dir = ENGINE): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? engineFiles(path.join(dir, e.name)) : e.name.endsWith('.ts') ? [path.join(dir, e.name)] : []);
}

describe('the engine in layers (docs/adr/0026)', () => {
  it('holds only its two entries at the top; every module sits in a layer folder', () => {
    const top = readdirSync(ENGINE, { withFileTypes: true }).filter((e) => e.isFile()).map((e) => e.name).sort();
    expect(top).toEqual(['index.ts', 'ports-index.ts']);
    const folders = readdirSync(ENGINE, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name).sort();
    expect(folders).toEqual(['flow', 'handlers', 'model', 'rules', 'write']);
  });
});

describe('one writer of task state', () => {
  it('only transition.ts writes task instances', () => {
    const writers = engineFiles()
      .filter((f) => WRITES.test(readFileSync(f, 'utf8').replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/.*$/gm, '')))
      .map((f) => path.relative(ENGINE, f));
    expect(writers).toEqual(['write/transition.ts']);
  });
});
