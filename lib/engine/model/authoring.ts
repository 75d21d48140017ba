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
