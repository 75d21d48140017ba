/**
 * Test support: the API server over an embedded runtime on a virtual clock, and a client
 * that checks every response it sees against Airflow's spec (test/helpers/openapi.ts): a
 * status the operation does not list, a content type it does not offer or a body its
 * schema refuses fails the test that made the request, so drift shows everywhere.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ApiServer } from '../../lib/api/server.js';
import { attachUi } from '../../lib/cli/ui.js';
import type { DagDefinition } from '../../lib/sdk/types.js';
import { responseProblems } from '../helpers/openapi.js';
import { makeRuntime } from '../helpers/runtime.js';

export const TOKEN = 'test-token-123456';

/** A response as the tests read it. */
export interface Called {
  status: number;
  json: any;
  text: string;
  headers: Headers;
}

/**
 * Fails when a response breaks the spec.
 *
 * @example
 * expectConforming('GET', '/api/v2/dags', res.status, res.headers.get('content-type'), body);
 */
export function expectConforming(method: string, url: string, status: number, contentType: string | null, body: unknown): void {
  const problems = responseProblems(method, new URL(url, 'http://x').pathname, status, contentType, body);
  if (problems.length) throw new Error(`the response does not conform to Airflow's spec:\n  ${problems.join('\n  ')}`);
}

/**
 * The message of an error response: an HTTPExceptionResponse's `detail`, or the first
 * `msg` of an HTTPValidationError (a 422).
 *
 * @example
 * expect(errorText(await h.call('GET', '/api/v2/dags?limit=x'))).toMatch(/^limit: /);
 */
export function errorText(r: Called): string {
  const d = r.json?.detail;
  return Array.isArray(d) ? String(d[0]?.msg) : String(d);
}

export async function apiOverRuntime(dags: DagDefinition[], opts: Parameters<typeof makeRuntime>[1] & { validate?: boolean } = {}) {
  const { rt, clock } = await makeRuntime(dags, opts);
  // Variables the API writes go to a folder of the test's own, never the checkout's .airless/.
  const secretsDir = mkdtempSync(path.join(tmpdir(), 'airless-api-'));
  const api: ApiServer = await attachUi(rt, { port: '0', token: TOKEN }, { env: { AIRLESS_SECRETS_DIR: secretsDir }, out: () => {} });
  const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Called> => {
    const all: Record<string, string> = { authorization: `Bearer ${TOKEN}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers };
    if (all.authorization === '') delete all.authorization;
    const res = await fetch(`${api.url}${path}`, {
      method,
      headers: all,
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
      redirect: 'manual',
    });
    const text = await res.text();
    let json: any;
    try { json = text ? JSON.parse(text) : undefined; } catch { json = undefined; }
    if (opts.validate !== false) expectConforming(method, path, res.status, res.headers.get('content-type'), json ?? (text || undefined));
    return { status: res.status, json, text, headers: res.headers };
  };
  return { rt, clock, api, call, secretsDir };
}
