/**
 * Reading a built DAG in SDK tests: its edges as `a>b` strings, and the InvalidDagError a
 * definition throws.
 */
import { expect } from 'vitest';
import type { dag } from 'airless';
import { InvalidDagError } from '../../lib/engine/index.js';

/** Every edge of the DAG as `upstream>downstream`, sorted. */
export const edges = (d: ReturnType<typeof dag>): string[] =>
  d.spec.tasks.flatMap((t) => t.downstream.map((x) => `${t.taskId}>${x}`)).sort();

/** The InvalidDagError `f` throws; fails the test if it throws anything else or nothing. */
export function dagError(f: () => unknown): InvalidDagError {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(InvalidDagError);
    return e as InvalidDagError;
  }
  throw new Error('expected an InvalidDagError');
}
