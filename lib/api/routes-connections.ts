/**
 * Airflow's connections endpoints over the place `airless connections` keeps them: the
 * local `.airless/connections.json` for `airless dev`/`ui`, Secrets Manager for
 * `ui --stack`. A password is never answered (`***`), nor a sensitive key of `extra`.
 */
import type { Connection } from '../engine/index.js';
import { maskFields } from '../engine/index.js';
import type { ApiBackend } from './backend.js';
import { HttpError, invalid, sendEmpty, sendJson } from './http.js';
import { likeMatcher, listQuery, onlyFields, page, sorter } from './params.js';
import type { Route, RouteCtx } from './router.js';
import { runBulk, type BulkOps } from './bulk.js';

/** Where connections are read and written (the CLI's backends; lib/cli/api-secrets.ts builds one). */
export interface ConnectionStore {
  list(): Promise<string[]>;
  get(connId: string): Promise<Connection | undefined>;
  /** Keeps the connection in Airflow's JSON form. */
  set(c: Connection): Promise<void>;
  /** True when it existed. */
  delete(connId: string): Promise<boolean>;
}

const NONE: ConnectionStore = { list: async () => [], get: async () => undefined, set: async () => { throw new HttpError(403, 'connections: this server has no connection store'); }, delete: async () => false };
const store = (b: ApiBackend) => b.connections ?? NONE;
const ID = /^[\w.-]{1,200}$/;
const FIELDS = ['connection_id', 'conn_type', 'description', 'host', 'login', 'schema', 'port', 'password', 'extra', 'team_name'];
const notFound = (id: string) => new HttpError(404, `The Connection with connection_id: \`${id}\` was not found`);

/** A connection as Airflow answers it: the password masked, `extra` as JSON text with its secrets masked. */
export function connectionJson(c: Connection) {
  return {
    connection_id: c.connId, conn_type: c.connType ?? '', description: null, host: c.host ?? null, login: c.login ?? null, schema: c.schema ?? null,
    port: c.port ?? null, password: c.password === undefined ? null : '***',
    extra: Object.keys(c.extra).length ? JSON.stringify(maskFields(c.extra)) : null,
  };
}

/** A connection from a body (ConnectionBody), over `base` for the fields `only` does not name. */
function fromBody(body: Record<string, unknown>, base: Connection, only?: string[]): Connection {
  const take = (k: string) => (only ? only.includes(k) : k in body);
  const c: Connection = { ...base, extra: { ...base.extra } };
  for (const k of ['conn_type', 'host', 'login', 'schema', 'password'] as const) {
    if (!take(k)) continue;
    const v = body[k];
    if (v !== null && v !== undefined && typeof v !== 'string') throw invalid(['body', k], `${k}: must be a string, got ${JSON.stringify(v)}`, v, 'string_type');
    const field = k === 'conn_type' ? 'connType' : k;
    if (typeof v === 'string') c[field] = v;
    else delete c[field];
  }
  if (take('port')) {
    const v = body.port;
    if (v !== null && v !== undefined && !(Number.isInteger(v) && (v as number) >= 0 && (v as number) < 65536)) throw invalid(['body', 'port'], `port: must be a whole number from 0 to 65535, got ${JSON.stringify(v)}`, v, 'int_type');
    if (typeof v === 'number') c.port = v;
    else delete c.port;
  }
  if (take('extra')) {
    const v = body.extra;
    let extra: unknown = {};
    if (typeof v === 'string' && v !== '') {
      try { extra = JSON.parse(v); } catch { throw invalid(['body', 'extra'], 'extra: must be a JSON object as text', v); }
    } else if (v !== null && v !== undefined && v !== '') throw invalid(['body', 'extra'], 'extra: must be a JSON object as text', v, 'string_type');
    if (extra === null || typeof extra !== 'object' || Array.isArray(extra)) throw invalid(['body', 'extra'], 'extra: must be a JSON object as text', v);
    c.extra = extra as Record<string, unknown>;
  }
  if (!c.connType) throw invalid(['body', 'conn_type'], 'conn_type: Field required', null, 'missing');
  return c;
}

function bodyId(body: Record<string, unknown>): string {
  const id = body.connection_id;
  if (typeof id !== 'string' || !ID.test(id)) throw invalid(['body', 'connection_id'], `connection_id: must be 1 to 200 letters, digits, _ . -, got ${JSON.stringify(id)}`, id ?? null, 'string_pattern_mismatch');
  return id;
}

async function list({ b, url }: RouteCtx): Promise<unknown> {
  const s = store(b);
  const pattern = url.searchParams.get('connection_id_pattern');
  const matches = pattern ? likeMatcher(pattern) : () => true;
  const ids = (await s.list()).filter((k) => matches(k));
  ids.sort(sorter<string>(url, 'connection_id', { connection_id: (k) => k, id: (k) => k }));
  const shown = await Promise.all(page(url, ids).map((id) => s.get(id)));
  return { connections: shown.flatMap((c) => (c ? [connectionJson(c)] : [])), total_entries: ids.length };
}

async function create({ b, body, res }: RouteCtx): Promise<undefined> {
  onlyFields(body, FIELDS);
  const s = store(b);
  const id = bodyId(body);
  const c = fromBody(body, { connId: id, extra: {} });
  if (await s.get(id)) throw new HttpError(409, `Connection with connection_id: \`${id}\` already exists`);
  await s.set(c);
  sendJson(res, 201, connectionJson(c));
  return undefined;
}

async function patch({ b, p, url, body }: RouteCtx): Promise<unknown> {
  onlyFields(body, FIELDS);
  const s = store(b);
  const id = bodyId(body);
  if (id !== p.connection_id) throw new HttpError(400, 'The connection_id in the request body does not match the URL parameter');
  const mask = listQuery(url, 'update_mask');
  for (const f of mask) if (!FIELDS.includes(f) || f === 'connection_id') throw new HttpError(400, `update_mask: Invalid field \`${f}\` in update mask`);
  const current = await s.get(id);
  if (!current) throw notFound(id);
  // Without a mask Airflow replaces every field the body model has: absent ones become empty.
  const c = fromBody(body, mask.length ? current : { connId: id, extra: {} }, mask.length ? mask : FIELDS);
  await s.set(c);
  return connectionJson(c);
}

/** Connections for a bulk body (bulk.ts): keyed by `connection_id`, built as `post_connection` and `patch_connection` build them. */
function bulkOps(s: ConnectionStore): BulkOps<Connection> {
  return {
    noun: 'connections', keyName: 'connection_id',
    keyOf: (e) => { onlyFields(e, FIELDS); return bodyId(e); },
    get: (id) => s.get(id),
    build: (e, current, mask) => fromBody(e, mask?.length && current ? (current as Connection) : { connId: bodyId(e), extra: {} }, mask?.length ? mask : current ? FIELDS : undefined),
    save: (c) => s.set(c),
    remove: (id) => s.delete(id),
  };
}

/**
 * @example
 * const routes = connectionRoutes(); // registered in routes.ts
 */
export function connectionRoutes(): Route[] {
  const one = '/api/v2/connections/{connection_id}';
  return [
    { method: 'GET', path: '/api/v2/connections', handle: list },
    { method: 'POST', path: '/api/v2/connections', handle: create },
    { method: 'PATCH', path: '/api/v2/connections', handle: async ({ b, body }) => runBulk(body, bulkOps(store(b))) },
    {
      method: 'GET', path: one,
      handle: async ({ b, p }) => {
        const c = await store(b).get(p.connection_id);
        if (!c) throw notFound(p.connection_id);
        return connectionJson(c);
      },
    },
    { method: 'PATCH', path: one, handle: patch },
    {
      method: 'DELETE', path: one,
      handle: async ({ b, p, res }) => {
        if (!(await store(b).delete(p.connection_id))) throw notFound(p.connection_id);
        return sendEmpty(res);
      },
    },
  ];
}
