/**
 * DAG run endpoints beyond listing and triggering (routes-v2.ts): mark a run or write its
 * note (PATCH), clear a run, and the DAG-wide tag list and run statistics.
 */
import { clearTasks, isTerminal, markRun, RUN_MARK_STATES, setRunNote, type DagRun, type RunMarkState } from '../engine/index.js';
import { engineCall, needRun } from './backend.js';
import { HttpError, invalid } from './http.js';
import { likeMatcher, listQuery, onlyFields, optBool, page, sorter } from './params.js';
import type { Route, RouteCtx } from './router.js';
import { dagRunJson } from './shapes.js';
import { taskInstancesOf } from './routes-v2.js';

const RUN = '/api/v2/dags/{dag_id}/dagRuns/{dag_run_id}';
const PATCH_FIELDS = ['state', 'note'];

/**
 * Airflow's PATCH of a run: `state` marks it (engine flow/mark-run.ts, Airflow's
 * mark_tasks semantics), `note` sets or with null removes the note. `update_mask` limits
 * the fields read from the body, as Airflow's does.
 */
async function patchDagRun({ b, p, url, body }: RouteCtx): Promise<unknown> {
  onlyFields(body, PATCH_FIELDS);
  const mask = listQuery(url, 'update_mask');
  for (const f of mask) if (!PATCH_FIELDS.includes(f)) throw new HttpError(400, `update_mask: Invalid field \`${f}\` in update mask (use state, note)`);
  const fields = (mask.length ? mask : Object.keys(body)).filter((f) => PATCH_FIELDS.includes(f));
  const state = body.state;
  if (fields.includes('state') && state !== null && !RUN_MARK_STATES.includes(state as RunMarkState)) {
    throw invalid(['body', 'state'], `state: must be one of ${RUN_MARK_STATES.join(', ')}, got ${JSON.stringify(state)}`, state, 'enum');
  }
  const note = body.note;
  if (fields.includes('note') && note !== null && note !== undefined && (typeof note !== 'string' || note.length > 1000)) {
    throw invalid(['body', 'note'], `note: must be a string of at most 1000 characters, got ${JSON.stringify(note).slice(0, 40)}`, note, typeof note === 'string' ? 'string_too_long' : 'string_type');
  }
  const found = await needRun(b, p.dag_id, p.dag_run_id);
  let run = found.run;
  if (fields.includes('state') && state !== null && state !== undefined) run = await engineCall(() => markRun(b.ports, p.dag_id, p.dag_run_id, state as RunMarkState));
  if (fields.includes('note')) run = await engineCall(() => setRunNote(b.ports, p.dag_id, p.dag_run_id, (note as string | null | undefined) ?? null));
  return dagRunJson(run, found.dag.spec);
}

/**
 * Airflow's clear of a run: with `dry_run` (the default) the task instances that would be
 * cleared; otherwise they are cleared (their state reset, so the run goes back to queued
 * and runs them again) and the run is returned. Airless clears finished task instances
 * (`only_failed`: failed and upstream_failed only); one still running keeps its try.
 */
async function clearDagRun({ b, p, body }: RouteCtx): Promise<unknown> {
  onlyFields(body, ['dry_run', 'only_failed', 'run_on_latest_version']);
  const dryRun = optBool(body, 'dry_run', true);
  const onlyFailed = optBool(body, 'only_failed', false);
  optBool(body, 'run_on_latest_version', false);
  const { dag, run } = await needRun(b, p.dag_id, p.dag_run_id);
  const tis = (await b.ports.store.listTasks(p.dag_id, p.dag_run_id))
    .filter((ti) => (onlyFailed ? ti.state === 'failed' || ti.state === 'upstream_failed' : isTerminal(ti.state)));
  if (dryRun) {
    const items = taskInstancesOf(dag.spec, run, tis).filter((x) => x.state !== null);
    return { task_instances: items, total_entries: items.length };
  }
  if (tis.length) await engineCall(() => clearTasks(b.ports, p.dag_id, p.dag_run_id, tis.map((t) => t.taskId), { downstream: false }));
  return dagRunJson((await needRun(b, p.dag_id, p.dag_run_id)).run, dag.spec);
}

/** Every tag of every DAG, once each, sorted (Airflow's `get_dag_tags`). */
async function dagTags({ b, url }: RouteCtx): Promise<unknown> {
  const pattern = url.searchParams.get('tag_name_pattern');
  const matches = pattern ? likeMatcher(pattern) : () => true;
  const names = [...new Set((await b.ports.store.listDags()).flatMap((d) => d.spec.tags))].filter((t) => matches(t));
  names.sort(sorter<string>(url, 'name', { name: (t) => t }));
  return { tags: page(url, names), total_entries: names.length };
}

const RUN_STATES: DagRun['state'][] = ['queued', 'running', 'success', 'failed'];

/** How many runs each DAG has in each state (Airflow's `get_dag_stats`, every state listed, zeros included). */
async function dagStats({ b, url }: RouteCtx): Promise<unknown> {
  const wanted = listQuery(url, 'dag_ids');
  const dags = (await b.ports.store.listDags()).filter((d) => !wanted.length || wanted.includes(d.dagId)).sort((x, y) => x.dagId.localeCompare(y.dagId));
  const out = await Promise.all(dags.map(async (d) => {
    const runs = await b.ports.store.listRuns(d.dagId, {});
    return { dag_id: d.dagId, dag_display_name: d.spec.displayName ?? d.dagId, stats: RUN_STATES.map((state) => ({ state, count: runs.filter((r) => r.state === state).length })) };
  }));
  return { dags: out, total_entries: out.length };
}

/**
 * @example
 * const routes = runRoutes(); // registered in routes.ts
 */
export function runRoutes(): Route[] {
  return [
    { method: 'PATCH', path: RUN, handle: patchDagRun },
    { method: 'POST', path: `${RUN}/clear`, handle: clearDagRun },
    { method: 'GET', path: '/api/v2/dagTags', handle: dagTags },
    { method: 'GET', path: '/api/v2/dagStats', handle: dagStats },
  ];
}
