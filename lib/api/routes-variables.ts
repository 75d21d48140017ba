/**
 * Airflow's variables endpoints over the place `airless variables` keeps them: the local
 * `.airless/variables.json` for `airless dev`/`ui`, SSM Parameter Store for `ui --stack`
 * (the server is given a {@link VariableStore}; without one these answer 404 per key and
 * an empty list, as an Airflow with no variables does).
 */
import type { ServerResponse } from 'node:http';
import { isSensitiveKey } from '../engine/index.js';
import type { ApiBackend } from './backend.js';
import { HttpError, invalid, sendEmpty, sendJson } from './http.js';
import { likeMatcher, listQuery, onlyFields, page, sorter } from './params.js';
import type { Route, RouteCtx } from './router.js';
import { runBulk, type BulkOps } from './bulk.js';

/** Where variables are read and written (the CLI's backends; lib/cli/ui.ts builds one). */
export interface VariableStore {
  /** Whether values are kept encrypted (SSM SecureString for sensitive keys on AWS): Airflow's `is_encrypted`. */
  encrypted: (key: string) => boolean;
  list(): Promise<string[]>;
  get(key: string): Promise<string | undefined>;
  set(key: string, value: string): Promise<void>;
  /** True when the key existed. */
  delete(key: string): Promise<boolean>;
}

const NONE: VariableStore = { encrypted: () => false, list: async () => [], get: async () => undefined, set: async () => { throw new HttpError(403, 'variables: this server has no variable store'); }, delete: async () => false };
const store = (b: ApiBackend) => b.variables ?? NONE;

/** Keys as the runtime reads them (engine secrets.ts, `airless variables`). */
const KEY = /^[A-Za-z0-9_.\-/]{1,250}$/;

/** A variable as Airflow answers it: a sensitive key's value masked, no description (Airless keeps none). */
function variableJson(s: VariableStore, key: string, value: string) {
  return { key, value: isSensitiveKey(key) ? '***' : value, description: null, is_encrypted: s.encrypted(key) };
}

async function need(s: VariableStore, key: string): Promise<string> {
  const v = await s.get(key);
  if (v === undefined) throw new HttpError(404, `The Variable with key: \`${key}\` was not found`);
  return v;
}

/** The body's value as Airflow stores it: a string as is, any other JSON value as its JSON text. */
function bodyValue(body: Record<string, unknown>): string {
  if (!('value' in body)) throw invalid(['body', 'value'], 'value: Field required', null, 'missing');
  return typeof body.value === 'string' ? body.value : JSON.stringify(body.value);
}

function bodyKey(body: Record<string, unknown>): string {
  const key = body.key;
  if (typeof key !== 'string' || !KEY.test(key)) throw invalid(['body', 'key'], `key: must be 1 to 250 letters, digits, _ - . /, got ${JSON.stringify(key)}`, key ?? null, 'string_pattern_mismatch');
  return key;
}

const BODY_FIELDS = ['key', 'value', 'description', 'team_name'];

async function list({ b, url }: RouteCtx): Promise<unknown> {
  const s = store(b);
  const pattern = url.searchParams.get('variable_key_pattern');
  const matches = pattern ? likeMatcher(pattern) : () => true;
  const keys = (await s.list()).filter((k) => matches(k));
  keys.sort(sorter<string>(url, 'key', { key: (k) => k, id: (k) => k }));
  const shown = page(url, keys);
  const values = await Promise.all(shown.map((k) => s.get(k)));
  return { variables: shown.flatMap((k, i) => (values[i] === undefined ? [] : [variableJson(s, k, values[i]!)])), total_entries: keys.length };
}

async function create({ b, body, res }: RouteCtx): Promise<undefined> {
  onlyFields(body, BODY_FIELDS);
  const s = store(b);
  const key = bodyKey(body);
  const value = bodyValue(body);
  if ((await s.get(key)) !== undefined) throw new HttpError(409, `The Variable with key: \`${key}\` already exists`);
  await s.set(key, value);
  return send(res, 201, variableJson(s, key, value));
}

async function patch({ b, p, url, body }: RouteCtx): Promise<unknown> {
  onlyFields(body, BODY_FIELDS);
  const s = store(b);
  const key = bodyKey(body);
  if (key !== p.variable_key) throw new HttpError(400, "Invalid body, key from request body doesn't match uri parameter");
  const mask = listQuery(url, 'update_mask');
  for (const f of mask) if (!['value', 'description'].includes(f)) throw new HttpError(400, `update_mask: Invalid field \`${f}\` in update mask (use value, description)`);
  let value = await need(s, key);
  if (!mask.length || mask.includes('value')) {
    value = bodyValue(body);
    await s.set(key, value);
  }
  return variableJson(s, key, value);
}

/** Variables for a bulk body (bulk.ts): keyed by `key`, a value kept as `post_variable` keeps it. */
function bulkOps(s: VariableStore): BulkOps<{ key: string; value: string }> {
  return {
    noun: 'variables', keyName: 'key',
    keyOf: (e) => { onlyFields(e, BODY_FIELDS); return bodyKey(e); },
    get: (key) => s.get(key),
    build: (e, current, mask) => ({ key: bodyKey(e), value: mask && !mask.includes('value') && typeof current === 'string' ? current : bodyValue(e) }),
    save: (v) => s.set(v.key, v.value),
    remove: (key) => s.delete(key),
  };
}

function send(res: ServerResponse, status: number, value: unknown): undefined {
  sendJson(res, status, value);
  return undefined;
}

/**
 * @example
 * const routes = variableRoutes(); // registered in routes.ts
 */
export function variableRoutes(): Route[] {
  const one = '/api/v2/variables/{variable_key}';
  return [
    { method: 'GET', path: '/api/v2/variables', handle: list },
    { method: 'POST', path: '/api/v2/variables', handle: create },
    { method: 'PATCH', path: '/api/v2/variables', handle: async ({ b, body }) => runBulk(body, bulkOps(store(b))) },
    { method: 'GET', path: one, handle: async ({ b, p }) => variableJson(store(b), p.variable_key, await need(store(b), p.variable_key)) },
    { method: 'PATCH', path: one, handle: patch },
    {
      method: 'DELETE', path: one,
      handle: async ({ b, p, res }) => {
        if (!(await store(b).delete(p.variable_key))) throw new HttpError(404, `The Variable with key: \`${p.variable_key}\` was not found`);
        return sendEmpty(res);
      },
    },
  ];
}
