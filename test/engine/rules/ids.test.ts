/**
 * One run-id grammar for the API, the CLI, triggerRun and the queue message format
 * (issue 19, defect 3): an id the trigger accepts always travels on the queue, and an id
 * it refuses is refused before anything is stored. Runs on both stores (ENGINE_SUITES).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { encodeQueueMessage, InvalidInputError, RUN_ID_PATTERN, runIdProblem } from '../../../lib/engine/index.js';
import { dag } from '../../../lib/sdk/index.js';
import { makeRuntime } from '../../helpers/runtime.js';

describe('the run-id grammar', () => {
  it("is Airflow's allowed_run_id_pattern in 250 characters, with the run-type prefixes reserved", () => {
    for (const ok of ['manual__2026-01-01T00:00:00+00:00', 'nightly~1', 'a.b_c-d:e+f', 'x'.repeat(250)]) expect(runIdProblem(ok)).toBeUndefined();
    for (const bad of ['a@b', 'a/b', 'a b', '', 'x'.repeat(251), 'é', 'a\nb']) expect(runIdProblem(bad)).toMatch(/is not valid: use 1-250 characters/);
    expect(runIdProblem(42)).toMatch(/^run id 42 is not valid/);
    expect(runIdProblem('scheduled__2026-01-01T00:00:00Z')).toMatch(/prefix scheduled__ is reserved for scheduled runs/);
    expect(runIdProblem('backfill__x')).toMatch(/reserved for backfill runs/);
    expect(runIdProblem('scheduled__2026-01-01T00:00:00Z', 'scheduled')).toBeUndefined();
  });

  it('every id it accepts travels in every queue message that names a run', () => {
    fc.assert(fc.property(fc.stringMatching(RUN_ID_PATTERN), (runId) => {
      expect(() => encodeQueueMessage({ kind: 'task', dagId: 'd', runId, taskId: 't', tryNumber: 1 })).not.toThrow();
      expect(() => encodeQueueMessage({ kind: 'fire', dagId: 'd', runId, taskId: 't', tryNumber: 1, reason: 'retry' })).not.toThrow();
      expect(() => encodeQueueMessage({ kind: 'callback', dagId: 'd', runId, event: 'success' })).not.toThrow();
    }), { numRuns: 300 });
  });
});

describe('triggerRun with a run id', () => {
  const one = dag('one_at_a_time', { maxActiveRuns: 1 }, ({ task }) => { task('a', () => 1).before(task('b', () => 2)); });

  it('runs an id with ~ to the end, and the run after it under maxActiveRuns 1', async () => {
    const { rt } = await makeRuntime([one]);
    const first = await rt.trigger('one_at_a_time', { runId: 'nightly~1' });
    const second = await rt.trigger('one_at_a_time', { runId: 'nightly~2' });
    expect(await rt.runToCompletion('one_at_a_time', second.runId)).toBe('done');
    for (const r of [first, second]) expect((await rt.ports.store.getRun('one_at_a_time', r.runId))?.state).toBe('success');
  });

  it('refuses an id outside the grammar, or a reserved prefix, before storing anything', async () => {
    const { rt } = await makeRuntime([one]);
    for (const runId of ['nightly@1', 'a/b', 'scheduled__2026-01-01T00:00:00.000Z']) {
      await expect(rt.trigger('one_at_a_time', { runId })).rejects.toThrow(InvalidInputError);
    }
    expect(await rt.ports.store.listRuns('one_at_a_time', {})).toEqual([]);
  });
});
