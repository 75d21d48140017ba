/**
 * `airless tasks test --map-index N` runs one instance of a mapped task with its element and
 * `ctx.mapIndex`, in process (as `airflow tasks test --map-index`); a mapped task without it,
 * a plain task with it, an index out of range and a source that is mapped itself are refused
 * with one line (exit 2).
 */
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cmdTasksTest } from '../../lib/cli/tasks-test.js';
import { exitCodeFor } from '../../lib/cli/output.js';

const DIR = path.resolve('test/fixtures/mapped-dags');
let printed: string[] = [];
const write = process.stdout.write;
beforeEach(() => {
  printed = [];
  process.stdout.write = ((s: string) => { printed.push(String(s)); return true; }) as typeof process.stdout.write;
});
afterEach(() => { process.stdout.write = write; });

const test = (task: string, mapIndex?: number) => cmdTasksTest(DIR, 'maps', task, { typecheck: false, mapIndex });
async function refusal(p: Promise<unknown>): Promise<{ code: number; message: string }> {
  const e = await p.then(() => undefined, (err: Error) => err);
  if (!e) throw new Error('expected a refusal');
  return { code: exitCodeFor(e), message: e.message };
}

describe('tasks test --map-index', () => {
  it('runs instance N over an upstream XCom (running that upstream first) and over literal lists', async () => {
    expect(await test('size', 2)).toBe(0);
    expect(printed.join('')).toContain('ran list in process for the list to map over: 3 element(s)');
    expect(printed.join('')).toContain('maps.size[2] succeeded, returned "2:ccc:3"');
    printed = [];
    expect(await test('pair', 1)).toBe(0);
    expect(printed.join('')).toContain('maps.pair[1] succeeded, returned "1:1q"');
    printed = [];
    expect(await test('plain')).toBe(0);
    expect(printed.join('')).toContain('maps.plain succeeded, returned -1');
  });

  it('refuses what cannot be run, with one line and exit 2', async () => {
    const none = await refusal(test('size'));
    expect(none).toEqual({ code: 2, message: 'task size of dag maps is mapped: pass --map-index N to run its instance N' });
    expect(await refusal(test('plain', 0))).toEqual({ code: 2, message: '--map-index: task plain of dag maps is not mapped' });
    expect(await refusal(test('size', 3))).toEqual({ code: 2, message: '--map-index 3 is out of range: task size maps over 3 element(s) (0..2)' });
    const nested = await refusal(test('twice', 0));
    expect(nested.code).toBe(2);
    expect(nested.message).toMatch(/^task twice maps over the XCom of task size, which is mapped itself/);
  });
});
