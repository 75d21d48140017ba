/**
 * Airflow's REST API spec, vendored at spec/airflow/v2-rest-api-generated.yaml (its README
 * says where it came from), as JSON Schema 2020-12, to validate the API's responses with
 * ajv. The file writes OpenAPI 3.1's `anyOf [X, null]` as `nullable: true`: that is turned
 * back first (its README says so). Tests and scripts read the spec from here only, so a
 * clean clone (CI) validates as a worktree does, and nothing skips.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { parse } from 'yaml';

/** The vendored spec. */
export const SPEC_FILE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../spec/airflow/v2-rest-api-generated.yaml');

/** The spec's path (kept for the callers that take one). */
export function specPath(): string {
  return SPEC_FILE;
}

function unNullable(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(unNullable);
  if (v === null || typeof v !== 'object') return v;
  const o = Object.fromEntries(Object.entries(v).map(([k, x]) => [k, unNullable(x)])) as Record<string, unknown>;
  if (o.nullable !== true) return o;
  const { nullable: _n, title, description, default: dflt, ...schema } = o;
  return { ...(title === undefined ? {} : { title }), ...(description === undefined ? {} : { description }), ...(dflt === undefined ? {} : { default: dflt }), anyOf: [schema, { type: 'null' }] };
}

type Schema = Record<string, unknown>;
interface SpecDoc {
  paths: Record<string, Record<string, { operationId: string; security?: unknown[]; responses: Record<string, { content?: Record<string, { schema?: Schema }> }> }>>;
  components: { schemas: Record<string, unknown> };
}

/** One operation of the spec. */
export interface Operation {
  method: string;
  /** The spec's path template, `/api/v2/dags/{dag_id}`. */
  path: string;
  operationId: string;
  /** Served without credentials (`/version`, `/monitor/health`: no `security` in the spec). */
  public: boolean;
  responses: Record<string, { content?: Record<string, { schema?: Schema }> }>;
}

let cached: { doc: SpecDoc; ajv: Ajv2020; ops: Operation[] } | undefined;

function load() {
  if (cached) return cached;
  const doc = unNullable(parse(readFileSync(SPEC_FILE, 'utf8'))) as SpecDoc;
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  ajv.addFormat('date-time', /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/);
  ajv.addFormat('uuid', /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i);
  ajv.addFormat('duration', /.*/);
  ajv.addSchema({ $id: 'airflow', components: doc.components });
  const ops: Operation[] = [];
  for (const [p, byMethod] of Object.entries(doc.paths)) {
    for (const [m, o] of Object.entries(byMethod)) {
      if (!['get', 'post', 'put', 'patch', 'delete'].includes(m)) continue;
      ops.push({ method: m.toUpperCase(), path: p, operationId: o.operationId, public: !o.security, responses: o.responses });
    }
  }
  cached = { doc, ajv, ops };
  return cached;
}

/** Every operation of the spec (110 for 3.2.1). */
export function operations(): Operation[] {
  return load().ops;
}

/** How specific a template is where it matches: literal segments count, earlier ones more. */
function matchScore(template: string[], actual: string[]): number | undefined {
  if (template.length !== actual.length) return undefined;
  let score = 0;
  for (let i = 0; i < template.length; i++) {
    if (template[i].startsWith('{')) continue;
    if (template[i] !== actual[i]) return undefined;
    score += 2 ** (template.length - i);
  }
  return score;
}

/**
 * The operation a request reaches, as Airflow routes it: a literal segment wins over a
 * parameter (`…/{task_id}/dependencies` over `…/{task_id}/{map_index}`).
 */
export function findOperation(method: string, pathname: string): Operation | undefined {
  const actual = pathname.split('/');
  let best: { op: Operation; score: number } | undefined;
  for (const op of load().ops) {
    if (op.method !== method) continue;
    const score = matchScore(op.path.split('/'), actual);
    if (score !== undefined && (!best || score > best.score)) best = { op, score };
  }
  return best?.op;
}

/**
 * A validator of the spec's component schemas.
 *
 * @example
 * const check = openApiValidator(specPath());
 * expect(check('BackfillResponse', body)).toEqual([]);
 */
export function openApiValidator(_file: string = SPEC_FILE): (schema: string, value: unknown) => string[] {
  const { ajv } = load();
  return (schema, value) => {
    const validate = ajv.getSchema(`airflow#/components/schemas/${schema}`);
    if (!validate) throw new Error(`no schema ${schema} in the spec`);
    return validate(value) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message}`);
  };
}

/** What a response may carry for an error the spec does not list (FastAPI answers these on any route). */
const ANY_ROUTE: Record<string, string> = { '401': 'HTTPExceptionResponse', '405': 'HTTPExceptionResponse', '406': 'HTTPExceptionResponse', '413': 'HTTPExceptionResponse', '415': 'HTTPExceptionResponse', '500': 'HTTPExceptionResponse' };

/**
 * What is wrong with a response by the spec: a status the operation does not list, a
 * content type it does not offer for that status, or a body its schema refuses. Empty
 * when the response conforms, or when the path is not one of the spec's (the UI's own
 * endpoints).
 *
 * @example
 * expect(responseProblems('GET', '/api/v2/dags', 200, 'application/json', body)).toEqual([]);
 */
export function responseProblems(method: string, pathname: string, status: number, contentType: string | null, body: unknown): string[] {
  if (!pathname.startsWith('/api/v2/')) return [];
  const op = findOperation(method, pathname);
  const where = `${method} ${pathname} ${status}`;
  if (!op) return status === 404 || status === 405 ? errorProblems(where, 'HTTPExceptionResponse', contentType, body) : [`${where}: no operation of the spec`];
  const declared = op.responses[String(status)];
  if (!declared) {
    const generic = ANY_ROUTE[String(status)];
    return generic ? errorProblems(where, generic, contentType, body) : [`${where}: ${op.operationId} does not answer ${status} (it answers ${Object.keys(op.responses).join(', ')})`];
  }
  const type = (contentType ?? '').split(';')[0].trim();
  const content = declared.content;
  if (!content) return status === 204 && (body === undefined || body === '') ? [] : [`${where}: ${op.operationId} answers ${status} with no body, got ${type || 'none'}`];
  const offered = content[type];
  if (!offered) return [`${where}: ${op.operationId} answers ${status} as ${Object.keys(content).join(' or ')}, got ${type || 'no content type'}`];
  if (type !== 'application/json' || !offered.schema) return [];
  return schemaProblems(where, offered.schema, body);
}

function errorProblems(where: string, schema: string, contentType: string | null, body: unknown): string[] {
  if ((contentType ?? '').split(';')[0].trim() !== 'application/json') return [`${where}: an error must be application/json, got ${contentType}`];
  return schemaProblems(where, { $ref: `#/components/schemas/${schema}` }, body);
}

const compiled = new Map<string, ReturnType<Ajv2020['compile']>>();
function schemaProblems(where: string, schema: Schema, body: unknown): string[] {
  const { ajv } = load();
  const key = JSON.stringify(schema);
  let validate = compiled.get(key);
  if (!validate) {
    const ref = typeof schema.$ref === 'string' ? `airflow${schema.$ref}` : undefined;
    validate = ref ? ajv.getSchema(ref)! : ajv.compile({ $id: `inline${compiled.size}`, ...resolveRefs(schema) });
    compiled.set(key, validate);
  }
  return validate(body) ? [] : (validate.errors ?? []).map((e) => `${where}: ${e.instancePath || '/'} ${e.message}${e.params ? ` ${JSON.stringify(e.params)}` : ''}`);
}

/** Inline schemas (a list of strings, `{}`) may still `$ref` the components. */
function resolveRefs(v: unknown): Schema {
  return JSON.parse(JSON.stringify(v).replaceAll('"#/components/', '"airflow#/components/')) as Schema;
}
