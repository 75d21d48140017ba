/**
 * `param(default, schema)`: a DAG param with a JSON Schema (Airflow's `Param`). The DAG
 * keeps the default in `params` and the schema in `paramSchemas`; a run whose conf breaks
 * a schema is refused (lib/engine/rules/params.ts), and the UI's trigger form draws its
 * fields from the schemas.
 */
import type { ParamSchema } from '../engine/index.js';

/** What `param()` returns at run time (its type says the value's, so `ctx.params` stays typed). */
interface ParamDeclaration {
  readonly __airless: 'param';
  readonly default: unknown;
  readonly schema: ParamSchema;
}

function isParam(v: unknown): v is ParamDeclaration {
  return typeof v === 'object' && v !== null && (v as { __airless?: unknown }).__airless === 'param';
}

/**
 * A param with a JSON Schema (draft 2020-12: `type`, `enum`, `minimum`/`maximum`, `pattern`,
 * `title`, `description`, `format`...). Without a default (`undefined`) the param must be
 * given in the conf of every run, so only a manual DAG may have one. Typed as its value, so
 * `ctx.params.count` is a number in the tasks.
 *
 * @example
 * dag('report', { params: {
 *   count: param(5, { type: 'integer', minimum: 1, maximum: 100, title: 'Rows' }),
 *   region: param('eu', { enum: ['eu', 'us'], description: 'Where to read from' }),
 *   ticket: param<string>(undefined, { type: 'string', pattern: '^OPS-[0-9]+$' }),
 * } }, ({ task }) => { task('t', (ctx) => ctx.params.count * 2); });
 */
export function param<T>(defaultValue: T, schema: ParamSchema = {}): T {
  return Object.freeze({ __airless: 'param' as const, default: defaultValue, schema: structuredClone(schema) }) as unknown as T;
}

/**
 * A DAG's `params` option as the spec keeps it: plain values as they are, `param()` ones
 * split into the default (absent when there is none) and the schema.
 *
 * @example
 * paramFields({ n: param(5, { minimum: 1 }), tag: 'x' }); // { params: { n: 5, tag: 'x' }, paramSchemas: { n: { minimum: 1 } } }
 */
export function paramFields(params: Record<string, unknown> | undefined): { params: Record<string, unknown>; paramSchemas?: Record<string, ParamSchema> } {
  const values: Record<string, unknown> = {};
  const schemas: Record<string, ParamSchema> = {};
  for (const [name, v] of Object.entries(params ?? {})) {
    if (!isParam(v)) {
      values[name] = v;
      continue;
    }
    if (v.default !== undefined) values[name] = v.default;
    schemas[name] = v.schema;
  }
  return Object.keys(schemas).length ? { params: values, paramSchemas: schemas } : { params: values };
}
