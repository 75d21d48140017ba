/**
 * HTTP plumbing of the API server: errors as problem JSON, JSON bodies and token auth
 * (a Bearer header only; the browser UI keeps the token in its tab, docs/adr/0028).
 */
import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { displayValue } from '../adapters/xcom-display.js';
import { depthProblem, MAX_VALUE_DEPTH } from '../engine/index.js';

/**
 * An error that becomes an HTTP response. The body is problem JSON (RFC 9457) whose
 * `detail` is what Airflow 3's FastAPI errors carry, so clients of either version read it.
 *
 * @example
 * throw new HttpError(404, 'dag_id: unknown DAG nope');
 */
export class HttpError extends Error {
  /**
   * @param validation where the bad value was (`['query', 'order_by']`) and what it was: the
   *   response then takes the shape of FastAPI's validation errors (Airflow's
   *   `HTTPValidationError`, `{ detail: [{ type, loc, msg, input }] }`) instead of problem JSON.
   */
  constructor(readonly status: number, readonly detail: string, readonly validation?: { loc: (string | number)[]; input: unknown }) {
    super(detail);
    this.name = 'HttpError';
  }
}

/** Writes an HttpError: problem JSON, or Airflow's validation-error shape when it names a location. */
export function sendHttpError(res: ServerResponse, err: HttpError): void {
  if (!err.validation) return problem(res, err.status, err.detail);
  sendJson(res, err.status, { detail: [{ type: 'value_error', loc: err.validation.loc, msg: err.detail, input: err.validation.input }] });
}

const TITLES: Record<number, string> = {
  400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found', 405: 'Method Not Allowed',
  409: 'Conflict', 413: 'Content Too Large', 415: 'Unsupported Media Type', 422: 'Unprocessable Entity', 500: 'Internal Server Error',
};

export function problem(res: ServerResponse, status: number, detail: string): void {
  const body = JSON.stringify({ type: 'about:blank', title: TITLES[status] ?? 'Error', status, detail });
  res.writeHead(status, { 'content-type': 'application/problem+json', 'cache-control': 'no-store' });
  res.end(body);
}

export function sendJson(res: ServerResponse, status: number, value: unknown): void {
  // Serialized before the head is written: a value JSON cannot write (a BigInt, a cycle)
  // then becomes displayable data, not a 200 with an empty body.
  let body: string;
  try {
    body = JSON.stringify(value);
  } catch {
    body = JSON.stringify(displayValue(value));
  }
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
  res.end(body);
}

const MAX_BODY = 1 << 20;

/** Reads a JSON object body (empty body = `{}`); anything else is a 4xx naming the problem. */
export async function readJsonBody(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of req) {
    size += (c as Buffer).length;
    if (size > MAX_BODY) throw new HttpError(413, `body: larger than ${MAX_BODY} bytes`);
    chunks.push(c as Buffer);
  }
  const text = Buffer.concat(chunks).toString('utf8').trim();
  if (!text) return {};
  const type = req.headers['content-type'] ?? '';
  if (type && !/^application\/(.+\+)?json\b/i.test(type)) throw new HttpError(415, `body: expected application/json, got ${type}`);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new HttpError(400, 'body: malformed JSON');
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new HttpError(422, 'body: expected a JSON object');
  // JSON.parse reads any depth; what the engine, its stores and task threads do with it does not (rules/values.ts).
  const deep = depthProblem(value, MAX_VALUE_DEPTH, 'body');
  if (deep) throw new HttpError(400, `body: ${deep}`);
  return value as Record<string, unknown>;
}

/** Header the UI sends on every mutating request (kept for clients that send it; the token header alone decides). */
export const CSRF_HEADER = 'x-airless-csrf';

function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * Checks the token, which only an `Authorization: Bearer` header carries (docs/adr/0028).
 * No cookie authenticates: cookies ignore ports, so one set for this server reached every
 * service on 127.0.0.1 (any page the user visited on another port could read it and drive
 * the dev server, or a `ui --stack` session with the user's AWS credentials), and two UIs
 * on different ports overwrote each other's. A cross-site page cannot set this header
 * without a CORS preflight, which the server never grants: no CSRF check is needed.
 */
export function authenticate(req: IncomingMessage, token: string): void {
  const auth = req.headers.authorization;
  if (auth === undefined) throw new HttpError(401, 'Authorization: missing (send "Authorization: Bearer <token>"; in a browser open the UI at /#token=<token>)');
  const m = /^Bearer\s+(.+)$/i.exec(auth);
  if (!m || !sameSecret(m[1].trim(), token)) throw new HttpError(401, 'Authorization: invalid bearer token');
}

/**
 * An address printed before the token moved to the fragment (`/?token=…`): checks it and
 * redirects to `/#token=…`, which the page reads into this tab's own storage. Sets no cookie.
 */
export function tokenLogin(req: IncomingMessage, res: ServerResponse, url: URL, token: string): boolean {
  const given = url.searchParams.get('token');
  if (given === null) return false;
  if (!sameSecret(given, token)) throw new HttpError(401, 'token: invalid token');
  url.searchParams.delete('token');
  res.writeHead(303, { location: `${url.pathname}${url.search}#token=${encodeURIComponent(token)}`, 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' });
  res.end();
  return true;
}
