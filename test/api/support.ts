/** Test support: the API server over an embedded runtime on a virtual clock, and a client. */
import type { ApiServer } from '../../lib/api/server.js';
import { attachUi } from '../../lib/cli/ui.js';
import type { DagDefinition } from '../../lib/sdk/types.js';
import { makeRuntime } from '../helpers/runtime.js';

export const TOKEN = 'test-token-123456';

export async function apiOverRuntime(dags: DagDefinition[], opts: Parameters<typeof makeRuntime>[1] = {}) {
  const { rt, clock } = await makeRuntime(dags, opts);
  const api: ApiServer = await attachUi(rt, { port: '0', token: TOKEN }, { env: {}, out: () => {} });
  const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(`${api.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${TOKEN}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
      redirect: 'manual',
    });
    const text = await res.text();
    let json: any;
    try { json = text ? JSON.parse(text) : undefined; } catch { json = undefined; }
    return { status: res.status, json, text, headers: res.headers };
  };
  return { rt, clock, api, call };
}
