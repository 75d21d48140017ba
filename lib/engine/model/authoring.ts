/**
 * The serialized form of the authoring surface of issue 23 §2 (docs/adr/0025): params
 * with a JSON Schema. Re-exported by model.ts.
 */

/**
 * A JSON Schema (draft 2020-12) for one param, as Airflow's `Param(**schema)`: `type`,
 * `enum`, `minimum`/`maximum`, `pattern`, `title`, `description` and the rest of the
 * vocabulary.
 */
export type ParamSchema = Record<string, unknown>;

/** Airflow's `LatestOnlyOperator`: a branch that follows its direct downstreams only in the latest scheduled run (rules/latest-only.ts). */
export interface LatestOnlySpec {
  type: 'latest_only';
}

/** A task whose work the engine does itself: no code in the bundle. */
export type BuiltinSpec = LatestOnlySpec;
