/**
 * Endpoints the UI needs beyond Airflow's public API: the grid of runs × tasks in one
 * response, the DAG structure for the graph, and signals (docs/api.md says why each stays;
 * the DAG list's recent runs moved to the spec's batch runs list, lib/ui/recent-runs.ts).
 */
import { baseTaskId, isInstanceId, sendSignal } from '../engine/index.js';
import type { DagRun, DagSpec } from '../engine/index.js';
import { TaskState } from '../engine/index.js';
import { needDag, type ApiBackend } from './backend.js';
import { HttpError } from './http.js';
import { intQuery, onlyFields, optString } from './params.js';
import type { Route } from './router.js';
import { withAssetNodes } from './asset-structure.js';

/** Maps with at most `limit` calls in flight (a grid of 1,000 runs is 1,000 store queries). */
async function mapLimited<T, R>(items: readonly T[], limit: number, f: (x: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await f(items[i]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

/** State names, indexed by the numbers in a grid row's `states` (-1: no instance yet). */
export const GRID_STATES: readonly string[] = Object.values(TaskState);
const STATE_INDEX = new Map(GRID_STATES.map((s, i) => [s, i]));

/** A task's group is the dotted prefix of its id (Airflow names a task in group `g` as `g.task`). */
export function groupPath(taskId: string): string[] {
  const parts = taskId.split('.');
  return parts.slice(0, -1).map((_, i) => parts.slice(0, i + 1).join('.'));
}

/**
 * The grid of a DAG: its latest `limit` runs (oldest first, as columns) × its tasks (as
 * rows). Each row holds one state number and one try number per run, so 100 runs × 1,000
 * tasks is one compact response. A mapped task is one row with `mapped: true`, its own
 * state (the expanding item's, which ends as its instances decide) and, per run, a count of
 * its instances by state (`counts`, empty before expansion); `listMapped` lists them.
 */
export async function gridData(b: ApiBackend, spec: DagSpec, limit: number) {
  const runs = (await b.ports.store.listRuns(spec.dagId, { limit })).sort((x, y) => x.logicalDate - y.logicalDate || x.queuedAt - y.queuedAt);
  const perRun = await mapLimited(runs, 16, (r) => b.ports.store.listTasks(spec.dagId, r.runId));
  const index = new Map(spec.tasks.map((t, i) => [t.taskId, i]));
  const states = spec.tasks.map(() => new Array<number>(runs.length).fill(-1));
  const tries = spec.tasks.map(() => new Array<number>(runs.length).fill(0));
  const counts = spec.tasks.map((t) => (t.expand ? runs.map(() => ({}) as Record<string, number>) : undefined));
  perRun.forEach((tis, col) => {
    for (const ti of tis) {
      if (isInstanceId(ti.taskId)) {
        const perState = counts[index.get(baseTaskId(ti.taskId)) ?? -1]?.[col];
        if (perState) perState[ti.state] = (perState[ti.state] ?? 0) + 1;
        continue;
      }
      const row = index.get(ti.taskId);
      if (row === undefined) continue;
      states[row][col] = STATE_INDEX.get(ti.state) ?? -1;
      tries[row][col] = ti.tryNumber;
    }
  });
  return {
    dag_id: spec.dagId,
    state_names: GRID_STATES,
    dag_runs: runs.map((r: DagRun) => ({
      dag_run_id: r.runId, state: r.state, run_type: r.runType, logical_date: new Date(r.logicalDate).toISOString(),
      start_date: r.startedAt === undefined ? null : new Date(r.startedAt).toISOString(),
      end_date: r.endedAt === undefined ? null : new Date(r.endedAt).toISOString(),
    })),
    rows: spec.tasks.map((t, i) => ({
      task_id: t.taskId, groups: groupPath(t.taskId), mapped: t.expand !== undefined, states: states[i], tries: tries[i],
      ...(counts[i] ? { counts: counts[i] } : {}),
    })),
  };
}

/** Nodes and edges of a DAG, in the names of Airflow's structure data. */
export function structureData(spec: DagSpec) {
  return {
    nodes: spec.tasks.map((t) => ({ id: t.taskId, label: t.displayName ?? t.taskId.split('.').pop()!, type: 'task', operator: t.kind, groups: groupPath(t.taskId) })),
    edges: spec.tasks.flatMap((t) => t.downstream.map((d) => {
      const label = spec.edgeLabels?.[t.taskId]?.[d]; // Airflow's edge_info label
      return label === undefined ? { source_id: t.taskId, target_id: d } : { source_id: t.taskId, target_id: d, label };
    })),
  };
}

export function uiRoutes(): Route[] {
  return [
    {
      method: 'GET', path: '/ui/grid/{dag_id}',
      handle: async ({ b, p, url }) => gridData(b, (await needDag(b, p.dag_id)).spec, intQuery(url, 'limit', 25, 1, 1000)),
    },
    { method: 'GET', path: '/ui/structure/{dag_id}', handle: async ({ b, p }) => { const { spec } = await needDag(b, p.dag_id); return withAssetNodes(spec, structureData(spec)); } },
    {
      method: 'POST', path: '/ui/signals',
      handle: async ({ b, body }) => {
        onlyFields(body, ['key', 'payload']);
        const key = optString(body, 'key');
        if (!key) throw new HttpError(422, 'key: required');
        const resumed = await sendSignal(b.ports, key, body.payload === undefined ? true : body.payload);
        return { key, resumed };
      },
    },
  ];
}
