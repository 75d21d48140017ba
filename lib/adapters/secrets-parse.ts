/**
 * Airflow's two text forms of a connection, as its environment variables and secrets
 * backends hold them: the URI (`postgres://user:pass@host:5432/schema?param=x`, every part
 * percent-encoded, `__extra__` carrying JSON extras) and the JSON object
 * (`{"conn_type": "postgres", "host": ..., "extra": {...}}`). Parsed with the WHATWG URL
 * parser Node ships (no hand-written URI grammar), under a neutral scheme so that `http`
 * hosts keep their case and default ports as Airflow keeps them.
 */
import { InvalidInputError, type Connection } from '../engine/index.js';

const SCHEME = /^([A-Za-z][A-Za-z0-9+.-]*):\/\//;

function decode(part: string, what: string, connId: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    throw new InvalidInputError(`connection "${connId}": its ${what} has a bad percent-encoding`);
  }
}

/**
 * Parses a connection URI.
 *
 * @example
 * parseConnectionUri('warehouse', 'postgres://etl:s%40cret@db:5432/dw?sslmode=require');
 * // { connId: 'warehouse', connType: 'postgres', host: 'db', port: 5432, login: 'etl', password: 's@cret', schema: 'dw', extra: { sslmode: 'require' } }
 * @throws InvalidInputError naming the connection and the part that is wrong.
 */
export function parseConnectionUri(connId: string, uri: string): Connection {
  const m = SCHEME.exec(uri);
  if (!m) throw new InvalidInputError(`connection "${connId}": ${JSON.stringify(redactUri(uri))} is not a URI like postgres://user:pass@host:5432/schema`);
  let u: URL;
  try {
    u = new URL(`airless-conn${uri.slice(m[1].length)}`);
  } catch {
    throw new InvalidInputError(`connection "${connId}": ${JSON.stringify(redactUri(uri))} is not a valid URI`);
  }
  let connType = m[1].replace(/-/g, '_');
  // Airflow's one alias: SQLAlchemy's scheme name for Postgres.
  if (connType === 'postgresql') connType = 'postgres';
  const c: Connection = { connId, connType, extra: {} };
  if (u.hostname) c.host = decode(u.hostname, 'host', connId);
  if (u.port) c.port = Number(u.port);
  if (u.username) c.login = decode(u.username, 'login', connId);
  if (u.password) c.password = decode(u.password, 'password', connId);
  const path = u.pathname.replace(/^\//, '');
  if (path) c.schema = decode(path, 'schema', connId);
  for (const key of new Set(u.searchParams.keys())) {
    const values = u.searchParams.getAll(key);
    if (key === '__extra__') {
      Object.assign(c.extra, parseExtra(connId, values[0]));
      continue;
    }
    c.extra[key] = values.length === 1 ? values[0] : values;
  }
  return c;
}

function parseExtra(connId: string, text: string | undefined): Record<string, unknown> {
  if (text === undefined || text === '') return {};
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    throw new InvalidInputError(`connection "${connId}": extra is not JSON: ${(e as Error).message}`);
  }
  if (v === null || typeof v !== 'object' || Array.isArray(v)) throw new InvalidInputError(`connection "${connId}": extra must be a JSON object`);
  return v as Record<string, unknown>;
}

/**
 * Parses Airflow's JSON form (an object or its text); `extra` may be an object or JSON text.
 *
 * @example
 * parseConnectionJson('api', { conn_type: 'http', host: 'api.example.com', password: 'k', extra: { timeout: 5 } });
 */
export function parseConnectionJson(connId: string, value: unknown): Connection {
  let o = value;
  if (typeof o === 'string') {
    try {
      o = JSON.parse(o);
    } catch (e) {
      throw new InvalidInputError(`connection "${connId}": not JSON: ${(e as Error).message}`);
    }
  }
  if (o === null || typeof o !== 'object' || Array.isArray(o)) throw new InvalidInputError(`connection "${connId}": must be a URI or a JSON object`);
  const r = o as Record<string, unknown>;
  const str = (k: string, ...alts: string[]): string | undefined => {
    for (const key of [k, ...alts]) {
      const v = r[key];
      if (v === undefined || v === null) continue;
      if (typeof v !== 'string') throw new InvalidInputError(`connection "${connId}": field "${key}" must be a string`);
      return v;
    }
    return undefined;
  };
  const c: Connection = { connId, extra: {} };
  const connType = str('conn_type', 'connType');
  if (connType) c.connType = connType;
  for (const k of ['host', 'login', 'password', 'schema'] as const) {
    const v = str(k);
    if (v !== undefined) c[k] = v;
  }
  if (r.port !== undefined && r.port !== null) {
    const port = Number(r.port);
    if (!Number.isInteger(port) || port < 0 || port > 65535) throw new InvalidInputError(`connection "${connId}": port ${JSON.stringify(r.port)} is not a port number`);
    c.port = port;
  }
  if (typeof r.extra === 'string') c.extra = parseExtra(connId, r.extra);
  else if (r.extra !== undefined && r.extra !== null) c.extra = parseExtra(connId, JSON.stringify(r.extra));
  return c;
}

/**
 * Either form, as Airflow reads `AIRFLOW_CONN_*` and secrets: text starting with `{` is JSON.
 *
 * @example
 * parseConnection('db', process.env.AIRLESS_CONN_DB!);
 */
export function parseConnection(connId: string, text: string): Connection {
  return text.trimStart().startsWith('{') ? parseConnectionJson(connId, text) : parseConnectionUri(connId, text.trim());
}

/**
 * The URI of a connection (the form `airless connections get` prints with `--uri`).
 *
 * @example
 * connectionUri({ connId: 'db', connType: 'postgres', host: 'h', port: 5432, login: 'u', password: 'p@ss', extra: {} });
 * // 'postgres://u:p%40ss@h:5432'
 */
export function connectionUri(c: Connection): string {
  const enc = encodeURIComponent;
  const auth = c.login !== undefined || c.password !== undefined
    ? `${enc(c.login ?? '')}${c.password !== undefined ? `:${enc(c.password)}` : ''}@`
    : '';
  const host = c.host !== undefined ? enc(c.host) : '';
  const port = c.port !== undefined ? `:${c.port}` : '';
  const schema = c.schema !== undefined ? `/${enc(c.schema)}` : '';
  const extra = Object.keys(c.extra).length ? `?__extra__=${enc(JSON.stringify(c.extra))}` : '';
  return `${(c.connType ?? 'generic').replace(/_/g, '-')}://${auth}${host}${port}${schema}${extra}`;
}

/** A URI with its password replaced, for error messages. */
export function redactUri(text: string): string {
  return text.replace(/(\/\/[^:/@]*:)[^@]*@/, '$1***@');
}
