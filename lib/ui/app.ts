/**
 * The Airless UI: a hash-routed single page over the REST API. Views re-render every
 * two seconds while the tab is visible (polling: a local or read-through server has no
 * push channel to offer, and two seconds is what Airflow's own UI refreshes at).
 */
import { api, apiText, badge, color, enc, esc, flash, fmtDate, takeToken } from './dom.js';
import { graphSvg, placeGraph, type Placed, type Structure } from './graph.js';
import { gridStateCss, renderGrid, type GridData } from './grid.js';
import { renderGantt, renderTask } from './task.js';
import { renderBackfills } from './backfills.js';
import { renderAsset, renderAssets } from './assets-view.js';
import { recentRuns } from './recent-runs.js';
import { paramField, paramValue, type ParamInfo } from './params-form.js';

/** Tests set `window.__airlessPollMs` to poll faster. */
const POLL_MS = Number((window as unknown as { __airlessPollMs?: number }).__airlessPollMs ?? 2000);
const main = () => document.getElementById('main')!;
const collapsed = new Set<string>();
let graphCache: { dag: string; s: Structure; placed: Placed } | undefined;
/** The grid last drawn: a poll that brings the same data repaints nothing (a 100 x 1,000 grid is 0.5 MB). */
let lastGrid: { path: string; text: string } | undefined;

async function renderDags(root: HTMLElement): Promise<void> {
  const list = await api('/api/v2/dags?limit=1000');
  const runsOf = await recentRuns((p, body) => api(p, { method: 'POST', body }), (list.dags as { dag_id: string }[]).map((d) => d.dag_id), 12);
  root.innerHTML = `<h2>DAGs</h2><table class="list" data-testid="dags"><tr><th>active</th><th>DAG</th><th>schedule</th><th>next run</th><th>recent runs</th><th></th></tr>${
    (list.dags as any[]).map((d) => `<tr data-dag="${esc(d.dag_id)}">
      <td><label class="switch"><input type="checkbox" class="pause" data-testid="pause-${esc(d.dag_id)}" ${d.is_paused ? '' : 'checked'}><span></span></label></td>
      <td><a href="#/dags/${enc(d.dag_id)}/grid" title="${esc(d.dag_id)}">${esc(d.dag_display_name ?? d.dag_id)}</a><div class="tags">${d.tags.map((t: any) => `<span class="tag">${esc(t.name)}</span>`).join('')}</div></td>
      <td><code>${esc(d.timetable_summary ?? 'None')}</code></td>
      <td>${fmtDate(d.next_dagrun_logical_date)}</td>
      <td class="recent">${(runsOf.get(d.dag_id) ?? []).slice().reverse().map((r) => `<a href="#/dags/${enc(d.dag_id)}/runs/${enc(r.dag_run_id)}/gantt" class="dot" style="background:${color(r.state)}" title="${esc(`${r.dag_run_id} ${r.state}`)}"></a>`).join('')}</td>
      <td><a class="button" href="#/dags/${enc(d.dag_id)}/trigger">Trigger</a></td></tr>`).join('')
  }</table>`;
  for (const box of root.querySelectorAll<HTMLInputElement>('input.pause')) {
    box.onchange = async () => {
      const dag = box.closest<HTMLElement>('tr')!.dataset.dag!;
      try {
        const d = await api(`/api/v2/dags/${enc(dag)}`, { method: 'PATCH', body: { is_paused: !box.checked } });
        flash(`${dag} ${d.is_paused ? 'paused' : 'unpaused'}`);
      } catch (err) {
        flash((err as Error).message, 'error');
      }
    };
  }
}

function dagTabs(dag: string, active: string): string {
  const tab = (k: string, label: string) => `<a class="tab${k === active ? ' sel' : ''}" href="#/dags/${enc(dag)}/${k}">${label}</a>`;
  return `<h2><a href="#/">DAGs</a> › ${esc(dag)}</h2><nav class="tabs">${tab('grid', 'Grid')}${tab('graph', 'Graph')}${tab('trigger', 'Trigger')}${tab('signal', 'Signal')}${tab('backfills', 'Backfills')}</nav>`;
}

/** The DAG's doc (Airflow's doc_md), shown as escaped text: Markdown source, never HTML. */
async function dagDoc(dag: string): Promise<string> {
  const d = await api(`/api/v2/dags/${enc(dag)}/details`);
  if (typeof d.doc_md !== 'string' || d.doc_md === '') return '';
  return `<details class="doc" data-testid="dag-doc" open><summary>Doc</summary><div style="white-space:pre-wrap">${esc(d.doc_md)}</div></details>`;
}

async function renderDagGrid(root: HTMLElement, dag: string, q: URLSearchParams): Promise<void> {
  const limit = q.get('limit') ?? '25';
  const path = `/ui/grid/${enc(dag)}?limit=${enc(limit)}`;
  const text = await apiText(path);
  const host = root.querySelector('.grid-host');
  if (host && lastGrid?.path === path && lastGrid.text === text) return;
  lastGrid = { path, text };
  const data = JSON.parse(text) as GridData;
  if (!host) root.innerHTML = `${dagTabs(dag, 'grid')}${await dagDoc(dag)}<div class="legend">${['success', 'failed', 'running', 'queued', 'scheduled', 'up_for_retry', 'deferred', 'sensing', 'skipped', 'upstream_failed'].map((s) => badge(s)).join(' ')}</div><div class="grid-host"></div>`;
  renderGrid(root.querySelector<HTMLElement>('.grid-host')!, data, {
    collapsed,
    onCell: (run, task) => { location.hash = `#/dags/${enc(dag)}/runs/${enc(run)}/tasks/${enc(task)}`; },
    onRun: (run) => { location.hash = `#/dags/${enc(dag)}/runs/${enc(run)}/gantt`; },
  });
}

async function renderDagGraph(root: HTMLElement, dag: string, q: URLSearchParams): Promise<void> {
  if (graphCache?.dag !== dag) {
    const s = await api<Structure>(`/ui/structure/${enc(dag)}`);
    graphCache = { dag, s, placed: placeGraph(s) };
  }
  const runs = await api(`/api/v2/dags/${enc(dag)}/dagRuns?limit=25&order_by=-logical_date`);
  const runId: string | undefined = q.get('run') ?? runs.dag_runs[0]?.dag_run_id;
  const states = new Map<string, string | null>();
  if (runId) {
    const tis = await api(`/api/v2/dags/${enc(dag)}/dagRuns/${enc(runId)}/taskInstances?limit=10000`);
    for (const t of tis.task_instances) states.set(t.task_id, t.state);
  }
  const options = (runs.dag_runs as { dag_run_id: string; state: string }[])
    .map((r) => `<option value="${esc(r.dag_run_id)}"${r.dag_run_id === runId ? ' selected' : ''}>${esc(r.dag_run_id)} (${esc(r.state)})</option>`).join('');
  root.innerHTML = `${dagTabs(dag, 'graph')}<p>${runId ? `states of run <select id="graph-run" data-testid="graph-run">${options}</select> <a href="#/dags/${enc(dag)}/runs/${enc(runId)}/gantt">Gantt</a>` : 'no runs yet'}</p><div class="graph">${graphSvg(graphCache.s, graphCache.placed, states)}</div>`;
  const pick = root.querySelector<HTMLSelectElement>('#graph-run');
  if (pick) pick.onchange = () => { location.hash = `#/dags/${enc(dag)}/graph?run=${enc(pick.value)}`; };
  root.querySelector('svg')!.addEventListener('click', (e) => {
    const node = (e.target as Element).closest<SVGGElement>('g.node');
    if (node?.dataset.task?.startsWith('asset:')) location.hash = `#/assets/${enc(node.dataset.task.slice(6))}`;
    else if (node && runId) location.hash = `#/dags/${enc(dag)}/runs/${enc(runId)}/tasks/${enc(node.dataset.task!)}`;
  });
}

async function renderTrigger(root: HTMLElement, dag: string): Promise<void> {
  // Do not wipe this DAG's form while it is filled in: checked again after the fetch, as a
  // live refresh may have drawn it meanwhile (a form drawn twice lost what was typed).
  const drawn = () => [...root.querySelectorAll<HTMLFormElement>('form.trigger')].some((f) => f.dataset.dag === dag);
  if (drawn()) return;
  const d = await api(`/api/v2/dags/${enc(dag)}/details`);
  if (drawn()) return;
  const params = Object.entries(d.params as Record<string, ParamInfo>);
  root.innerHTML = `${dagTabs(dag, 'trigger')}<form class="trigger" data-testid="trigger-form" data-dag="${esc(dag)}">
    ${params.map(([k, v]) => paramField(k, v)).join('')}
    <label>logical date <input name="logical_date" placeholder="now (ISO-8601, optional)"></label>
    <label>extra conf (JSON object) <textarea name="conf" rows="3">{}</textarea></label>
    <button type="submit" data-testid="trigger-submit">Trigger</button></form>`;
  root.querySelector<HTMLFormElement>('form')!.onsubmit = async (e) => {
    e.preventDefault();
    const form = new FormData(e.target as HTMLFormElement);
    try {
      const conf: Record<string, unknown> = JSON.parse(String(form.get('conf') || '{}'));
      for (const [k, p] of params) {
        const raw = form.get(`param:${k}`);
        const value = paramValue(raw === null ? null : String(raw), p, raw !== null);
        if (value !== undefined) conf[k] = value;
      }
      const logical = String(form.get('logical_date') || '');
      const r = await api(`/api/v2/dags/${enc(dag)}/dagRuns`, { method: 'POST', body: { conf, logical_date: logical || null } });
      flash(`triggered ${r.dag_run_id}`);
      location.hash = `#/dags/${enc(dag)}/grid`;
    } catch (err) {
      flash((err as Error).message, 'error');
    }
  };
}

function renderSignal(root: HTMLElement, dag: string): void {
  if (root.querySelector('form.signal')) return;
  root.innerHTML = `${dagTabs(dag, 'signal')}<form class="signal"><label>key <input name="key" placeholder="approve-2026-01-01"></label>
    <label>payload (JSON) <input name="payload" value="true"></label><button type="submit">Send signal</button></form>`;
  root.querySelector<HTMLFormElement>('form')!.onsubmit = async (e) => {
    e.preventDefault();
    const form = new FormData(e.target as HTMLFormElement);
    try {
      const r = await api('/ui/signals', { method: 'POST', body: { key: form.get('key'), payload: JSON.parse(String(form.get('payload') || 'true')) } });
      flash(`signal ${r.key} sent; ${r.resumed} task(s) resumed`);
    } catch (err) {
      flash((err as Error).message, 'error');
    }
  };
}

/** Renders the view the hash names. Calls are serialized, so a slow poll never paints over a newer view. */
async function route(): Promise<void> {
  const hash = location.hash;
  const [path, query] = hash.replace(/^#/, '').split('?');
  const q = new URLSearchParams(query ?? '');
  const parts = path.split('/').filter(Boolean).map(decodeURIComponent);
  const root = main();
  root.dataset.view = parts[0] === 'assets' ? (parts[1] ? 'asset' : 'assets') : parts[0] === 'dags' ? (parts[2] === 'runs' ? (parts[4] === 'tasks' ? 'task' : 'gantt') : parts[2] ?? 'grid') : 'dags';
  try {
    if (parts[0] === 'assets') await (parts[1] ? renderAsset(root, parts[1]) : renderAssets(root));
    else if (parts[0] !== 'dags' || !parts[1]) await renderDags(root);
    else if (parts[2] === 'runs' && parts[4] === 'tasks') await renderTask(root, parts[1], parts[3], parts[5], q.get('try') ? Number(q.get('try')) : undefined, q.has('map_index') ? Number(q.get('map_index')) : -1);
    else if (parts[2] === 'runs') await renderGantt(root, parts[1], parts[3]);
    else if (parts[2] === 'graph') await renderDagGraph(root, parts[1], q);
    else if (parts[2] === 'trigger') await renderTrigger(root, parts[1]);
    else if (parts[2] === 'signal') renderSignal(root, parts[1]);
    else if (parts[2] === 'backfills') await renderBackfills(root, parts[1], dagTabs(parts[1], 'backfills'));
    else await renderDagGrid(root, parts[1], q);
  } catch (err) {
    root.innerHTML = `<p class="err">${esc((err as Error).message)}</p>`;
  }
  // Tests wait for this to equal the hash they opened.
  root.dataset.ready = hash;
}

const style = document.createElement('style');
style.textContent = gridStateCss();
document.head.append(style);

let chain: Promise<void> = Promise.resolve();
let busy = false;
function schedule(): void {
  busy = true;
  chain = chain.then(route).finally(() => { busy = false; });
}

takeToken();
window.addEventListener('hashchange', () => { takeToken(); chain = chain.then(() => { main().innerHTML = ''; }); schedule(); });
setInterval(() => {
  if (!busy && document.visibilityState === 'visible' && !document.querySelector('input:focus, textarea:focus, select:focus')) schedule();
}, POLL_MS);
schedule();
