/**
 * Airflow's REST API spec (shared/airflow-openapi/v2-rest-api-generated.yaml, beside the
 * repository in CI and in every worktree's ancestry) as JSON Schema 2020-12, to validate
 * the API's responses with ajv. The file writes OpenAPI 3.1's `anyOf [X, null]` as
 * `nullable: true`: that is turned back first (its README says so).
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { parse } from 'yaml';

const SPEC = path.join('shared', 'airflow-openapi', 'v2-rest-api-generated.yaml');

/** The spec's path, looking up from the repository (undefined when it is not there). */
export function specPath(from = path.resolve(__dirname, '../..')): string | undefined {
  for (let dir = from, i = 0; i < 4; i++, dir = path.dirname(dir)) {
    const p = path.join(path.dirname(dir), SPEC);
    if (existsSync(p)) return p;
  }
  return undefined;
}

function unNullable(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(unNullable);
  if (v === null || typeof v !== 'object') return v;
  const o = Object.fromEntries(Object.entries(v).map(([k, x]) => [k, unNullable(x)])) as Record<string, unknown>;
  if (o.nullable !== true) return o;
  const { nullable: _n, title, description, default: dflt, ...schema } = o;
  return { ...(title === undefined ? {} : { title }), ...(description === undefined ? {} : { description }), ...(dflt === undefined ? {} : { default: dflt }), anyOf: [schema, { type: 'null' }] };
}

/**
 * A validator of the spec's component schemas.
 *
 * @example
 * const check = openApiValidator(specPath()!);
 * expect(check('BackfillResponse', body)).toEqual([]);
 */
export function openApiValidator(file: string): (schema: string, value: unknown) => string[] {
  const doc = unNullable(parse(readFileSync(file, 'utf8'))) as { components: { schemas: Record<string, unknown> } };
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  ajv.addFormat('date-time', /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/);
  ajv.addFormat('uuid', /^[0-9a-f-]{36}$/i);
  ajv.addFormat('duration', /.*/);
  ajv.addSchema({ $id: 'airflow', components: doc.components });
  return (schema, value) => {
    const validate = ajv.getSchema(`airflow#/components/schemas/${schema}`);
    if (!validate) throw new Error(`no schema ${schema} in the spec`);
    return validate(value) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message}`);
  };
}
