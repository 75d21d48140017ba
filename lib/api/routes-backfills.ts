/**
 * Airflow 3's `/api/v2/backfills` (api_fastapi/core_api/routes/public/backfills.py): list,
 * create, dry run, get, pause, unpause, cancel, with the spec's shapes and status codes
 * (404 unknown DAG or backfill, 409 a running backfill or a completed one, 422 invalid
 * input as FastAPI's HTTPValidationError). Airless adds `progress` to a backfill and the
 * cost `estimate` to a dry run: the spec allows extra fields there.
 */
import type { ServerResponse } from 'node:http';
import {
  BackfillConflictError, backfillCost, cancelBackfill, createBackfill, InvalidInputError, MAX_BACKFILL_DATES, NotFoundError,
  previewBackfill, REPROCESS_BEHAVIORS, setBackfillPaused, type Backfill, type BackfillRequest, type ReprocessBehavior,
} from '../engine/index.js';
import type { ApiBackend } from './backend.js';
import { HttpError, sendJson } from './http.js';
import { intQuery, onlyFields, optBool, optObject } from './params.js';
import type { Route } from './router.js';

const iso = (ms: number | undefined) => (ms === undefined ? null : new Date(ms).toISOString());

/** Airflow's BackfillResponse, with Airless's progress. */
export function backfillJson(b: Backfill) {
  return {
    id: b.id,
    dag_id: b.dagId,
    dag_display_name: b.dagId,
    from_date: iso(b.fromDate),
    to_date: iso(b.toDate),
    dag_run_conf: b.conf,
    is_paused: b.paused,
    reprocess_behavior: b.reprocess,
    max_active_runs: b.maxActiveRuns,
    created_at: iso(b.createdAt),
    completed_at: iso(b.completedAt),
    updated_at: iso(b.updatedAt),
    progress: {
      state: b.completedAt !== undefined ? (b.cancelled ? 'cancelled' : 'completed') : b.paused ? 'paused' : 'running',
      total: b.total, handled: b.handled, created: b.created, reprocessed: b.reprocessed, skipped: b.skipped, running: b.active,
      run_backwards: b.reverse,
    },
  };
}

/** FastAPI's 422: `{ detail: [{ type, loc, msg }] }`. */
function invalid(res: ServerResponse, loc: string[], msg: string): undefined {
  sendJson(res, 422, { detail: [{ type: 'value_error', loc, msg }] });
  return undefined;
}

/** Runs a handler; its invalid input becomes a 422 located at `where` (the field named before `:`), engine errors 404/409. */
async function answer<T>(res: ServerResponse, where: 'body' | 'query' | 'path', f: () => Promise<T>): Promise<T | undefined> {
  try {
    return await f();
  } catch (err) {
    if (err instanceof HttpError && err.status === 422) {
      const m = /^([a-z_]+): (.*)$/s.exec(err.detail);
      return invalid(res, m ? [where, m[1]] : [where], m ? m[2] : err.detail);
    }
    if (err instanceof NotFoundError) throw new HttpError(404, err.message);
    if (err instanceof BackfillConflictError) throw new HttpError(409, err.message);
    if (err instanceof InvalidInputError) return invalid(res, [where], err.message);
    throw err;
  }
}

const BODY_FIELDS = ['dag_id', 'from_date', 'to_date', 'run_backwards', 'dag_run_conf', 'reprocess_behavior', 'max_active_runs', 'run_on_latest_version'];

function needDate(body: Record<string, unknown>, name: string): number {
  const v = body[name];
  const ms = typeof v === 'string' && /^\d{4}-\d{2}-\d{2}/.test(v) ? Date.parse(/[zZ]|[+-]\d{2}:?\d{2}$/.test(v) || v.length <= 10 ? v : `${v}Z`) : NaN;
  if (!Number.isFinite(ms)) throw new HttpError(422, `${name}: must be an ISO-8601 date-time, got ${JSON.stringify(v)}`);
  return ms;
}

/** BackfillPostBody, validated as Airflow's model does (unknown fields refused), with its defaults. */
function postBody(body: Record<string, unknown>): BackfillRequest {
  onlyFields(body, BODY_FIELDS);
  if (typeof body.dag_id !== 'string' || body.dag_id === '') throw new HttpError(422, 'dag_id: required, a string');
  const reprocess = body.reprocess_behavior ?? 'none';
  if (!REPROCESS_BEHAVIORS.includes(reprocess as ReprocessBehavior)) throw new HttpError(422, `reprocess_behavior: must be one of ${REPROCESS_BEHAVIORS.join(', ')}, got ${JSON.stringify(reprocess)}`);
  const max = body.max_active_runs ?? 10;
  if (typeof max !== 'number' || !Number.isInteger(max) || max < 1) throw new HttpError(422, `max_active_runs: must be a whole number >= 1, got ${JSON.stringify(max)}`);
  return {
    dagId: body.dag_id, fromDate: needDate(body, 'from_date'), toDate: needDate(body, 'to_date'),
    reverse: optBool(body, 'run_backwards', false), conf: optObject(body, 'dag_run_conf') ?? {}, reprocess: reprocess as ReprocessBehavior,
    maxActiveRuns: max, runOnLatestVersion: optBool(body, 'run_on_latest_version', true),
    // The API has no confirmation step (Airflow's neither): the ceiling only.
    maxDates: MAX_BACKFILL_DATES,
  };
}

function backfillId(p: Record<string, string>): number {
  const id = Number(p.backfill_id);
  if (!/^\d+$/.test(p.backfill_id ?? '') || !Number.isSafeInteger(id)) throw new HttpError(422, `backfill_id: must be a whole number >= 0, got ${JSON.stringify(p.backfill_id)}`);
  return id;
}

async function needBackfill(b: ApiBackend, id: number): Promise<Backfill> {
  const found = await b.ports.store.getBackfill(id);
  if (!found) throw new HttpError(404, `backfill_id: backfill ${id} not found`);
  return found;
}

export function backfillRoutes(): Route[] {
  return [
    {
      method: 'GET', path: '/api/v2/backfills',
      handle: ({ b, url, res }) => answer(res, 'query', async () => {
        const dagId = url.searchParams.get('dag_id');
        if (!dagId) throw new HttpError(422, 'dag_id: required');
        const limit = intQuery(url, 'limit', 50, 0, 1000);
        const offset = intQuery(url, 'offset', 0, 0, Number.MAX_SAFE_INTEGER);
        const order = url.searchParams.getAll('order_by').join(',') || 'id';
        if (order !== 'id' && order !== '-id') throw new HttpError(422, `order_by: only id or -id, got ${JSON.stringify(order)}`);
        const all = await b.ports.store.listBackfills(dagId);
        if (order === '-id') all.reverse();
        return { backfills: all.slice(offset, offset + limit).map(backfillJson), total_entries: all.length };
      }),
    },
    {
      method: 'POST', path: '/api/v2/backfills',
      handle: ({ b, body, res }) => answer(res, 'body', async () => backfillJson(await createBackfill(b.ports, postBody(body)))),
    },
    {
      method: 'POST', path: '/api/v2/backfills/dry_run',
      handle: ({ b, body, res }) => answer(res, 'body', async () => {
        const req = postBody(body);
        const { dag, dates } = await previewBackfill(b.ports, req);
        const runs = dates.filter((d) => d.decision.kind !== 'skip');
        const cost = await backfillCost(b.ports, dag.spec, runs.length);
        return {
          backfills: runs.map((d) => ({ logical_date: iso(d.logicalDate), partition_key: null, partition_date: null })),
          total_entries: runs.length,
          estimate: { tasks: cost.tasks, requests: cost.requests, usd: Number(cost.usd.toPrecision(3)), lambda_gb_seconds: cost.parts.gbSeconds ?? null },
        };
      }),
    },
    {
      method: 'GET', path: '/api/v2/backfills/{backfill_id}',
      handle: ({ b, p, res }) => answer(res, 'path', async () => backfillJson(await needBackfill(b, backfillId(p)))),
    },
    ...(['pause', 'unpause', 'cancel'] as const).map((action): Route => ({
      method: 'PUT', path: `/api/v2/backfills/{backfill_id}/${action}`,
      handle: ({ b, p, res }) => answer(res, 'path', async () => {
        const id = backfillId(p);
        await needBackfill(b, id);
        const after = action === 'cancel' ? await cancelBackfill(b.ports, id) : await setBackfillPaused(b.ports, id, action === 'pause');
        return backfillJson(after);
      }),
    })),
  ];
}
