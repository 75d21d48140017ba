/**
 * The run-id grammar, once for every door a run id comes through: the REST API, the CLI,
 * `triggerRun` and the queue message format (messages.ts), so that an id one of them
 * accepts is never refused by another after the run is stored (issue 19, defect 3).
 *
 * Airflow checks a run id given by a user against `[scheduler] allowed_run_id_pattern`,
 * default `^[A-Za-z0-9_.~:+-]+$`, in a column of 250 characters (models/dagrun.py), and a
 * manual run may not take an id whose prefix names another run type (`scheduled__...`:
 * dag.py's create_dagrun). Airless takes both rules as they are. The reserved prefix
 * matters more here than in Airflow: runs are created with a conditional put, so a manual
 * run named `scheduled__<tick>` would silently take the place of that tick's scheduled run.
 */
import { InvalidInputError } from '../model/errors.js';
import type { RunType } from '../model/types.js';

import { RUN_ID_PATTERN } from '../model/id-patterns.js';
export { RUN_ID_PATTERN };

/** Run types whose `<type>__` prefix a manual run id may not take (Airflow's DagRunType values). */
const RESERVED_PREFIXES = ['scheduled', 'backfill', 'asset_triggered', 'dataset_triggered'].map((t) => `${t}__`);

/**
 * The rule `runId` breaks for a run of type `runType`, or undefined when it breaks none.
 *
 * @example
 * runIdRule('a@b'); // 'use 1-250 characters from A-Z a-z 0-9 _ . ~ : + -'
 */
export function runIdRule(runId: unknown, runType: RunType = 'manual'): string | undefined {
  if (typeof runId !== 'string' || !RUN_ID_PATTERN.test(runId)) {
    const length = typeof runId === 'string' && runId.length > 250 ? ` (it has ${runId.length})` : '';
    return `use 1-250 characters from A-Z a-z 0-9 _ . ~ : + -${length}`;
  }
  const reserved = runType === 'manual' ? RESERVED_PREFIXES.find((p) => runId.startsWith(p)) : undefined;
  return reserved ? `the prefix ${reserved} is reserved for ${reserved.slice(0, -2)} runs` : undefined;
}

/**
 * Why `runId` cannot name a run of type `runType`, or undefined when it can.
 *
 * @example
 * runIdProblem('nightly@2026'); // 'run id "nightly@2026" is not valid: use 1-250 characters from A-Z a-z 0-9 _ . ~ : + -'
 * runIdProblem('manual__2026-01-01T00:00:00Z'); // undefined
 */
export function runIdProblem(runId: unknown, runType: RunType = 'manual'): string | undefined {
  const rule = runIdRule(runId, runType);
  if (!rule) return undefined;
  const shown = typeof runId === 'string' ? JSON.stringify(runId.length > 80 ? `${runId.slice(0, 77)}...` : runId) : String(runId);
  return `run id ${shown} is not valid: ${rule}`;
}

/**
 * Throws InvalidInputError when {@link runIdProblem} finds one.
 *
 * @example
 * assertRunId(opts.runId); // before anything is stored
 */
export function assertRunId(runId: unknown, runType: RunType = 'manual'): void {
  const problem = runIdProblem(runId, runType);
  if (problem) throw new InvalidInputError(problem);
}
