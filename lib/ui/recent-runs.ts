/**
 * The DAG list's recent runs, read through the spec's batch list
 * (`POST /api/v2/dags/~/dagRuns/list`) instead of an Airless-only route (issue 24).
 *
 * The spec has no "latest N runs of each DAG": a page of the newest runs across the DAGs
 * lets a busy DAG crowd out a quiet one. So a second request, only when the first page was
 * cut short, asks for the DAGs still short of N, among the runs up to the first page's
 * oldest. Two requests at most, whatever the number of DAGs.
 */

/** One run as the list shows it (a subset of the spec's DAGRunResponse). */
export interface RecentRun {
  dag_id: string;
  dag_run_id: string;
  state: string;
  run_after: string;
}

/** Posts a JSON body to a path of the API and resolves to the parsed answer. */
export type PostJson = (path: string, body: unknown) => Promise<{ dag_runs: RecentRun[]; total_entries: number }>;

export const RUNS_LIST_PATH = '/api/v2/dags/~/dagRuns/list';
/** The API's largest page (`limit` of the runs list). */
const MAX_PAGE = 10_000;

/**
 * The newest `n` runs of each DAG in `dagIds`, newest first, in one or two requests.
 *
 * @example
 * const byDag = await recentRuns((p, body) => api(p, { method: 'POST', body }), ['etl_daily'], 12);
 * byDag.get('etl_daily'); // [{ dag_id: 'etl_daily', dag_run_id: 'scheduled__…', state: 'success', run_after: '…' }, …]
 */
export async function recentRuns(post: PostJson, dagIds: readonly string[], n: number): Promise<Map<string, RecentRun[]>> {
  const out = new Map<string, RecentRun[]>(dagIds.map((d) => [d, []]));
  if (dagIds.length === 0 || n <= 0) return out;
  const seen = new Set<string>();
  const add = (runs: RecentRun[]) => {
    for (const r of runs) {
      const list = out.get(r.dag_id);
      const key = `${r.dag_id}\u0000${r.dag_run_id}`;
      if (!list || list.length >= n || seen.has(key)) continue;
      seen.add(key);
      list.push(r);
    }
  };
  const limit = Math.min(MAX_PAGE, n * dagIds.length);
  const first = await post(RUNS_LIST_PATH, { dag_ids: dagIds, order_by: '-run_after', page_limit: limit });
  add(first.dag_runs);
  if (first.total_entries <= first.dag_runs.length || first.dag_runs.length === 0) return out;
  const short = dagIds.filter((d) => out.get(d)!.length < n);
  if (short.length === 0) return out;
  // Up to (not only before) the cutoff: a run at the same instant as the page's last may have
  // been left off it; the `seen` set drops the ones already shown.
  const cutoff = first.dag_runs[first.dag_runs.length - 1].run_after;
  const shown = short.reduce((k, d) => k + out.get(d)!.length, 0);
  const second = await post(RUNS_LIST_PATH, {
    dag_ids: short, order_by: '-run_after', run_after_lte: cutoff, page_limit: Math.min(MAX_PAGE, n * short.length + shown),
  });
  add(second.dag_runs);
  return out;
}
