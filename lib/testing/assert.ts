/**
 * Assertions on a `testDag` result that work in any test runner: they throw an Error
 * with a message listing what differed and every task's state (no runner's `expect`).
 */
import type { TestDagResult } from './index.js';

export class TestDagAssertionError extends Error {
  override name = 'TestDagAssertionError';
}

function summary(r: TestDagResult): string {
  return Object.values(r.tasks).map((t) => `  ${t.taskId}: ${t.state} (tries ${t.tries})${t.error ? ` ${t.error}` : ''}`).join('\n');
}

/**
 * @example
 * assertRunState(r, 'success');
 */
export function assertRunState(r: TestDagResult, state: TestDagResult['state']): void {
  if (r.state !== state) {
    throw new TestDagAssertionError(`run ${r.dagId}/${r.runId} is ${r.state}${r.outcome === 'stalled' ? ' (stalled)' : ''}, expected ${state}\n${summary(r)}`);
  }
}

/**
 * @example
 * assertTaskState(r, 'extract', 'success', { tries: 2 });
 */
export function assertTaskState(r: TestDagResult, taskId: string, state: string, opts: { tries?: number } = {}): void {
  const t = r.tasks[taskId];
  if (!t) throw new TestDagAssertionError(`dag ${r.dagId} has no task "${taskId}" (tasks: ${Object.keys(r.tasks).join(', ')})`);
  if (t.state !== state) throw new TestDagAssertionError(`task ${taskId} is ${t.state}, expected ${state}\n${summary(r)}`);
  if (opts.tries !== undefined && t.tries !== opts.tries) throw new TestDagAssertionError(`task ${taskId} made ${t.tries} tries, expected ${opts.tries}`);
}

/**
 * Checks several task states at once and reports every mismatch together.
 *
 * @example
 * assertTaskStates(r, { extract: 'success', full: 'skipped' });
 */
export function assertTaskStates(r: TestDagResult, expected: Record<string, string>): void {
  const wrong = Object.entries(expected).filter(([id, s]) => r.tasks[id]?.state !== s);
  if (wrong.length) {
    const lines = wrong.map(([id, s]) => `  ${id}: ${r.tasks[id]?.state ?? 'no such task'}, expected ${s}`);
    throw new TestDagAssertionError(`task states differ:\n${lines.join('\n')}\nall tasks:\n${summary(r)}`);
  }
}
