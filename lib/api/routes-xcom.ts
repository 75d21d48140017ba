/**
 * XCom writes of the v2 API (`create_xcom_entry`, `update_xcom_entry`, `delete_xcom_entry`): a value put in
 * the store's XCom under the task instance, read back by the same code `get_xcom_entry`
 * uses (routes-ti.ts), so a written entry answers exactly as a task's own does.
 */
import { instanceId } from '../engine/index.js';
import { HttpError, invalid, sendEmpty, sendJson } from './http.js';
import { intQuery, onlyFields } from './params.js';
import type { Route, RouteCtx } from './router.js';
import { loadTi, xcomEntry } from './routes-ti.js';

const TI = '/api/v2/dags/{dag_id}/dagRuns/{dag_run_id}/taskInstances/{task_id}';

/** The body's `map_index` (default -1, the unmapped task), as the XCom bodies give it. */
function mapIndexOf(body: Record<string, unknown>): number {
  const v = body.map_index ?? -1;
  if (!Number.isInteger(v) || (v as number) < -1) throw invalid(['body', 'map_index'], `map_index: must be a whole number from -1, got ${JSON.stringify(v)}`, v, 'int_type');
  return v as number;
}

function valueOf(body: Record<string, unknown>): unknown {
  if (!('value' in body)) throw invalid(['body', 'value'], 'value: Field required', null, 'missing');
  return body.value;
}

/** Resolves the instance a write names and the store key it writes, or the 4xx that stops it. */
async function target(ctx: RouteCtx, key: string, mapIndex: number) {
  ctx.url.searchParams.set('map_index', String(mapIndex));
  const { ti } = await loadTi(ctx.b, ctx.p, ctx.url);
  // A mapped instance keeps a small return value on its own item (engine mapping-values.ts); it is the task's output, not an entry to overwrite.
  if (mapIndex >= 0 && key === 'return_value') throw new HttpError(400, 'key: the return_value of a mapped task instance is kept on the instance and cannot be written through the API');
  if (!ti && mapIndex < 0) throw new HttpError(404, `task_id: task ${JSON.stringify(ctx.p.task_id)} has not been reached in run ${JSON.stringify(ctx.p.dag_run_id)}`);
  const taskId = mapIndex >= 0 ? instanceId(ctx.p.task_id, mapIndex) : ctx.p.task_id;
  return { dagId: ctx.p.dag_id, runId: ctx.p.dag_run_id, taskId, key };
}

/** Airflow's create: 400 when the key already has a value, 201 with the entry. */
async function create(ctx: RouteCtx): Promise<undefined> {
  onlyFields(ctx.body, ['key', 'value', 'map_index']);
  const key = ctx.body.key;
  if (typeof key !== 'string' || !key.trim()) throw invalid(['body', 'key'], `key: must be a non-empty string, got ${JSON.stringify(key ?? null)}`, key ?? null, 'string_type');
  const value = valueOf(ctx.body);
  const xk = await target(ctx, key, mapIndexOf(ctx.body));
  if ((await ctx.b.ports.store.getXcom(xk)) !== undefined) throw new HttpError(400, `The XCom with key: \`${key}\` with mentioned task instance already exists.`);
  await ctx.b.ports.store.putXcom(xk, value);
  ctx.p.xcom_key = key;
  sendJson(ctx.res, 201, await xcomEntry(ctx));
  return undefined;
}

/** Airflow's update: 404 when the key has no value yet, the entry as it is now. */
async function update(ctx: RouteCtx): Promise<unknown> {
  onlyFields(ctx.body, ['value', 'map_index']);
  const value = valueOf(ctx.body);
  const xk = await target(ctx, ctx.p.xcom_key, mapIndexOf(ctx.body));
  if ((await ctx.b.ports.store.getXcom(xk)) === undefined) throw new HttpError(404, `The XCom with key: \`${ctx.p.xcom_key}\` with mentioned task instance doesn't exist.`);
  await ctx.b.ports.store.putXcom(xk, value);
  return xcomEntry(ctx);
}

/** Airflow's delete of one entry (204; 404 when the key has no value). */
async function remove(ctx: RouteCtx): Promise<undefined> {
  const mapIndex = intQuery(ctx.url, 'map_index', -1, -1, 1_000_000);
  const xk = await target(ctx, ctx.p.xcom_key, mapIndex);
  if (!(await ctx.b.ports.store.deleteXcom(xk))) throw new HttpError(404, `The XCom with key: \`${ctx.p.xcom_key}\` with mentioned task instance doesn't exist.`);
  return sendEmpty(ctx.res);
}

/**
 * @example
 * const routes = xcomWriteRoutes(); // registered in routes.ts
 */
export function xcomWriteRoutes(): Route[] {
  return [
    { method: 'POST', path: `${TI}/xcomEntries`, handle: create },
    { method: 'PATCH', path: `${TI}/xcomEntries/{xcom_key}`, handle: update },
    { method: 'DELETE', path: `${TI}/xcomEntries/{xcom_key}`, handle: remove },
  ];
}
