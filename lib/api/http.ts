/**
 * HTTP plumbing of the API server: errors as problem JSON, JSON bodies and token auth
 * (a Bearer header only; the browser UI keeps the token in its tab, docs/adr/0028).
 */
import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { displayValue } from '../adapters/xcom-display.js';
import { depthProblem, MAX_VALUE_DEPTH } from '../engine/index.js';

/** Where a bad value was, as FastAPI names it: `['query', 'limit']`, `['body', 'conf']`, `['path', 'map_index']`. */
export type Loc = (string | number)[];

/**
 * An error that becomes an HTTP response in Airflow's shapes: a 422 is FastAPI's
 * `HTTPValidationError` (`{ detail: [{ type, loc, msg, input }] }`), anything else its
 * `HTTPExceptionResponse` (`{ detail }`), both `application/json` as Airflow answers them.
 * `detail` starts with the field at fault (`conf: must be a JSON object`).
 *
 * @example
 * throw new HttpError(404, 'dag_id: unknown DAG nope');
 * throw new HttpError(422, 'limit: must be a whole number', { loc: ['query', 'limit'], input: '-1' });
 */
export class HttpError extends Error {
  /**
   * @param validation where the bad value was and what it was (a 422's `loc` and `input`;
   *   without it the location is read from the field the detail starts with, in the body).
   */
  constructor(readonly status: number, readonly detail: string, readonly validation?: { loc: Loc; input?: unknown; type?: string }) {
    super(detail);
    this.name = 'HttpError';
  }
}

/** A 422 at a location, as FastAPI reports a value its model refuses. */
export function invalid(loc: Loc, msg: string, input?: unknown, type = 'value_error'): HttpError {
  return new HttpError(422, msg, { loc, input, type });
}

/** Writes an HttpError: a 422 as HTTPValidationError, anything else as HTTPExceptionResponse. */
export function sendHttpError(res: ServerResponse, err: HttpError): void {
  if (err.status !== 422) return sendJson(res, err.status, { detail: err.detail });
  const field = /^([A-Za-z_][\w.]*)(\[\d+\])?: /.exec(err.detail)?.[1];
  const loc = err.validation?.loc ?? ['body', ...(field ? [field] : [])];
  sendJson(res, 422, { detail: [{ type: err.validation?.type ?? 'value_error', loc, msg: err.detail, input: err.validation?.input ?? null }] });
}

/** An error response outside a route (the server's own 500). */
export function problem(res: ServerResponse, status: number, detail: string): void {
  sendJson(res, status, { detail });
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

/** An empty answer (a delete's 204). */
export function sendEmpty(res: ServerResponse, status = 204): undefined {
  res.writeHead(status, { 'cache-control': 'no-store' });
  res.end();
  return undefined;
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
  } catch (err) {
    // FastAPI's answer to a body it cannot decode: 422 json_invalid at the error's position.
    const at = Number(/position (\d+)/.exec((err as Error).message)?.[1] ?? text.length);
    throw new HttpError(422, `body: malformed JSON (${(err as Error).message})`, { loc: ['body', at], input: {}, type: 'json_invalid' });
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new HttpError(422, 'body: Input should be a valid dictionary or object to extract fields from', { loc: ['body'], input: value, type: 'model_attributes_type' });
  }
  // JSON.parse reads any depth; what the engine, its stores and task threads do with it does not (rules/values.ts).
  const deep = depthProblem(value, MAX_VALUE_DEPTH, 'body');
  if (deep) throw new HttpError(422, `body: ${deep}`, { loc: ['body'], input: null });
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
