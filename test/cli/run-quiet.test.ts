/**
 * `airless run --quiet` on a failure prints one line per failed task (stderr) and exits 1
 * (test/e2e/cli.test.ts runs a quiet success). In process, on the virtual clock.
 */
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cmdRun, failureLines } from '../../lib/cli/run.js';
import type { RunResult } from '../../lib/cli/output.js';

const out: string[] = [];
const err: string[] = [];
const writes = { out: process.stdout.write, err: process.stderr.write };
beforeEach(() => {
  out.length = 0;
  err.length = 0;
  process.stdout.write = ((s: string) => { out.push(String(s)); return true; }) as typeof process.stdout.write;
  process.stderr.write = ((s: string) => { err.push(String(s)); return true; }) as typeof process.stderr.write;
});
afterEach(() => { process.stdout.write = writes.out; process.stderr.write = writes.err; });

describe('airless run --quiet', () => {
  it('a failed run prints its failed task in one line and exits 1', async () => {
    const code = await cmdRun(path.resolve('test/fixtures/cli-dags'), { dag: 'always_fails', timeWarp: true, quiet: true, typecheck: false });
    expect(code).toBe(1);
    expect(out.join('')).toBe('');
    const lines = err.join('').trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^airless: run always_fails manual__\S+ failed: task a \(try 2\): Error: broken on purpose \(at always_fails\.ts:4:\d+\)$/);
  });

  it('names a mapped task with its failed instances, a run that failed with no failed task, and caps the lines', () => {
    const run = (runId: string, state: string, error?: string) => ({ dagId: 'd', runId, state, ...(error ? { error } : {}) });
    const ti = (taskId: string, state: string, error?: string, tryNumber = 1) => ({ taskId, state, tryNumber, ...(error ? { error } : {}) });
    const results = [
      { run: run('r1', 'failed'), outcome: 'done', tasks: [ti('size', 'failed'), ti('size#0', 'success'), ti('size#1', 'failed', 'bad row', 2), ti('size#2', 'failed', 'x')] },
      { run: run('r2', 'failed', 'run timed out after 1h'), outcome: 'done', tasks: [ti('a', 'skipped')] },
      { run: run('r3', 'success'), outcome: 'done', tasks: [] },
      { run: run('r4', 'running'), outcome: 'stalled', tasks: [ti('wait', 'sensing')] },
    ] as unknown as RunResult[];
    expect(failureLines(results)).toEqual([
      'airless: run d r1 failed: task size (try 1, 2 mapped instance(s) failed, first size#1): bad row',
      'airless: run d r2 failed: run timed out after 1h',
      'airless: run d r4 stopped (stalled): nothing left to run or wait for',
    ]);
    const many = Array.from({ length: 25 }, (_, i) => ({ run: run(`r${i}`, 'failed'), outcome: 'done', tasks: [ti('a', 'failed', 'e')] })) as unknown as RunResult[];
    const capped = failureLines(many);
    expect(capped).toHaveLength(21);
    expect(capped[20]).toBe('airless: and 5 more failure line(s)');
  });
});
