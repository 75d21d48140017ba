/**
 * The Backfills tab of a DAG: its backfills with their progress (dates handled of all,
 * runs running now, created / reprocessed / skipped) and pause, unpause and cancel; and a
 * form whose Preview is the dry run with its cost estimate and whose Create starts one.
 * The list re-renders on every poll; the form is kept while it is being filled in.
 */
import { api, enc, esc, flash, fmtDate } from './dom.js';

interface BackfillJson {
  id: number;
  from_date: string;
  to_date: string;
  is_paused: boolean;
  reprocess_behavior: string;
  max_active_runs: number;
  created_at: string;
  completed_at: string | null;
  progress: { state: string; total: number; handled: number; created: number; reprocessed: number; skipped: number; running: number };
}

function progressBar(b: BackfillJson): string {
  const p = b.progress;
  const pct = p.total ? Math.round((100 * p.handled) / p.total) : 100;
  return `<div class="bf-bar" title="${p.handled} of ${p.total} dates handled"><span style="width:${pct}%"></span></div>`;
}

function listHtml(dag: string, backfills: BackfillJson[]): string {
  if (backfills.length === 0) return '<p>no backfills yet</p>';
  return `<table class="list" data-testid="backfills"><tr><th>id</th><th>range</th><th>state</th><th>progress</th><th>runs</th><th>reprocess</th><th></th></tr>${
    [...backfills].reverse().map((b) => {
      const p = b.progress;
      const open = b.completed_at === null;
      const buttons = open
        ? `${b.is_paused ? `<button data-act="unpause" data-id="${b.id}">Unpause</button>` : `<button data-act="pause" data-id="${b.id}">Pause</button>`} <button data-act="cancel" data-id="${b.id}">Cancel</button>`
        : '';
      return `<tr data-backfill="${b.id}"><td>${b.id}</td><td>${fmtDate(b.from_date)} → ${fmtDate(b.to_date)}</td>
        <td data-testid="bf-state-${b.id}">${esc(p.state)}</td>
        <td>${progressBar(b)} <span data-testid="bf-progress-${b.id}">${p.handled}/${p.total}</span></td>
        <td>${p.running} running (max ${b.max_active_runs}); ${p.created} created, ${p.reprocessed} reprocessed, ${p.skipped} skipped</td>
        <td>${esc(b.reprocess_behavior)}</td><td>${buttons} <a href="#/dags/${enc(dag)}/grid">grid</a></td></tr>`;
    }).join('')
  }</table>`;
}

function formBody(form: HTMLFormElement, dag: string) {
  const f = new FormData(form);
  const max = String(f.get('max_active_runs') || '');
  return {
    dag_id: dag, from_date: String(f.get('from_date')), to_date: String(f.get('to_date')),
    reprocess_behavior: String(f.get('reprocess_behavior') || 'none'), run_backwards: f.get('run_backwards') === 'on',
    ...(max ? { max_active_runs: Number(max) } : {}),
  };
}

/**
 * @example
 * await renderBackfills(root, 'etl_daily', dagTabs('etl_daily', 'backfills'));
 */
export async function renderBackfills(root: HTMLElement, dag: string, tabs: string): Promise<void> {
  const list = await api<{ backfills: BackfillJson[] }>(`/api/v2/backfills?dag_id=${enc(dag)}&limit=1000`);
  const host = root.querySelector<HTMLElement>('.bf-list');
  if (host) {
    host.innerHTML = listHtml(dag, list.backfills);
    return;
  }
  root.innerHTML = `${tabs}<div class="bf-list">${listHtml(dag, list.backfills)}</div>
    <h3>New backfill</h3><form class="backfill" data-testid="backfill-form">
    <label>from <input name="from_date" placeholder="2026-01-01T00:00:00Z" required></label>
    <label>to <input name="to_date" placeholder="2026-01-31T23:59:59Z" required></label>
    <label>reprocess <select name="reprocess_behavior"><option>none</option><option>failed</option><option>completed</option></select></label>
    <label>max active runs <input name="max_active_runs" placeholder="10"></label>
    <label class="inline"><input type="checkbox" name="run_backwards"> newest first</label>
    <div><button type="button" data-testid="backfill-preview">Preview</button> <button type="submit" data-testid="backfill-create">Create</button></div>
    <div class="bf-preview" data-testid="backfill-estimate"></div></form>`;
  const form = root.querySelector<HTMLFormElement>('form.backfill')!;
  root.querySelector<HTMLButtonElement>('[data-testid=backfill-preview]')!.onclick = async () => {
    try {
      const r = await api('/api/v2/backfills/dry_run', { method: 'POST', body: formBody(form, dag) });
      const e = r.estimate;
      root.querySelector('.bf-preview')!.innerHTML = `<p>${r.total_entries} run(s): ${e.tasks} tasks, ${e.requests} orchestration requests, about $${Number(e.usd).toPrecision(2)} at list prices` +
        `${e.lambda_gb_seconds === null ? ' (no recent tries: Lambda duration not included)' : `, including ${Number(e.lambda_gb_seconds).toFixed(1)} GB-s of Lambda`}</p>` +
        `<p class="dates">${(r.backfills as { logical_date: string }[]).slice(0, 50).map((x) => fmtDate(x.logical_date)).join(', ')}${r.total_entries > 50 ? ', …' : ''}</p>`;
    } catch (err) {
      flash((err as Error).message, 'error');
    }
  };
  form.onsubmit = async (ev) => {
    ev.preventDefault();
    try {
      const b = await api<BackfillJson>('/api/v2/backfills', { method: 'POST', body: formBody(form, dag) });
      flash(`backfill ${b.id} created: ${b.progress.total} run(s)`);
      root.querySelector('.bf-preview')!.innerHTML = '';
      root.querySelector<HTMLElement>('.bf-list')!.innerHTML = listHtml(dag, (await api<{ backfills: BackfillJson[] }>(`/api/v2/backfills?dag_id=${enc(dag)}&limit=1000`)).backfills);
    } catch (err) {
      flash((err as Error).message, 'error');
    }
  };
  root.querySelector<HTMLElement>('.bf-list')!.addEventListener('click', async (ev) => {
    const button = (ev.target as Element).closest<HTMLButtonElement>('button[data-act]');
    if (!button) return;
    try {
      const b = await api<BackfillJson>(`/api/v2/backfills/${button.dataset.id}/${button.dataset.act}`, { method: 'PUT' });
      flash(`backfill ${b.id} ${b.progress.state}`);
    } catch (err) {
      flash((err as Error).message, 'error');
    }
  });
}
