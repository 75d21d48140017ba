/**
 * The grid: runs as columns (oldest left), tasks as rows, one square per task instance in
 * Airflow's state colours. Groups (dotted task id prefixes) are rows of their own with
 * the worst state of their members and collapse on click. Only the rows in view are in
 * the DOM, so 1,000 tasks × 100 runs scrolls as fast as 20 tasks. A mapped task is one row
 * marked `[ ]` as in Airflow; its cell's tooltip counts the instances by state.
 */
import { color, esc, STATE_COLORS } from './dom.js';

/** One CSS rule per state colour for the grid's cells, added to the page once. */
export function gridStateCss(): string {
  return Object.entries(STATE_COLORS).map(([s, c]) => `.row i[data-state=${s}]{background:${c}}`).join('\n');
}

export interface GridRun { dag_run_id: string; state: string; run_type: string; logical_date: string; start_date: string | null; end_date: string | null }
export interface GridRow { task_id: string; groups: string[]; mapped: boolean; states: number[]; tries: number[]; counts?: Record<string, number>[] }
export interface GridData { dag_id: string; state_names: string[]; dag_runs: GridRun[]; rows: GridRow[] }

interface DisplayRow { kind: 'task' | 'group'; id: string; depth: number; states: (string | null)[]; tries: number[]; counts?: Record<string, number>[] }

const ROW_H = 20;
const OVERSCAN = 10;
/** Which member state a group shows, first wins (Airflow's State.state_priority). */
const PRIORITY = ['failed', 'upstream_failed', 'up_for_retry', 'queued', 'scheduled', 'deferred', 'sensing', 'running', 'success', 'skipped', 'removed'];

function groupRows(data: GridData): Map<string, DisplayRow> {
  const out = new Map<string, DisplayRow>();
  const n = data.dag_runs.length;
  for (const r of data.rows) {
    r.groups.forEach((g, depth) => {
      let row = out.get(g);
      if (!row) {
        row = { kind: 'group', id: g, depth, states: new Array(n).fill(null), tries: new Array(n).fill(0) };
        out.set(g, row);
      }
      for (let c = 0; c < n; c++) {
        const s = r.states[c] < 0 ? null : data.state_names[r.states[c]];
        const cur = row.states[c];
        if (s && (cur === null || PRIORITY.indexOf(s) < PRIORITY.indexOf(cur))) row.states[c] = s;
      }
    });
  }
  return out;
}

/** The rows to show, in order, given the collapsed groups. */
export function displayRows(data: GridData, collapsed: ReadonlySet<string>): DisplayRow[] {
  const groups = groupRows(data);
  const seen = new Set<string>();
  const out: DisplayRow[] = [];
  for (const r of data.rows) {
    let hidden = false;
    for (const g of r.groups) {
      if (hidden) break;
      if (!seen.has(g)) {
        seen.add(g);
        out.push(groups.get(g)!);
      }
      if (collapsed.has(g)) hidden = true;
    }
    if (hidden) continue;
    out.push({ kind: 'task', id: r.task_id, depth: r.groups.length, states: r.states.map((s) => (s < 0 ? null : data.state_names[s])), tries: r.tries, ...(r.mapped ? { counts: r.counts ?? [] } : {}) });
  }
  return out;
}

export interface GridHandlers {
  onCell(runId: string, taskId: string): void;
  onRun(runId: string): void;
  collapsed: Set<string>;
  selected?: { runId?: string; taskId?: string };
}

/** A mapped cell's instances by state, as its tooltip shows them: `3 mapped: 2 success, 1 running`. */
export function mappedSummary(counts: Record<string, number> | undefined): string {
  const entries = Object.entries(counts ?? {}).filter(([, n]) => n > 0);
  const total = entries.reduce((s, [, n]) => s + n, 0);
  return total === 0 ? 'not expanded yet' : `${total} mapped: ${entries.map(([s, n]) => `${n} ${s}`).join(', ')}`;
}

/** Renders (or re-renders, keeping the scroll position) the grid into `root`. */
export function renderGrid(root: HTMLElement, data: GridData, h: GridHandlers): void {
  const rows = displayRows(data, h.collapsed);
  const runs = data.dag_runs;
  let scroller = root.querySelector<HTMLElement>('.grid-scroll');
  const keep = scroller ? { top: scroller.scrollTop, left: scroller.scrollLeft } : undefined;
  const width = 14 * runs.length;
  root.innerHTML = `<div class="grid-scroll" data-testid="grid"><div class="grid-head" style="width:${width + 280}px"><div class="name head">task \\ run (${runs.length})</div>${
    runs.map((r) => `<b class="run${r.dag_run_id === h.selected?.runId ? ' sel' : ''}" data-run="${esc(r.dag_run_id)}" data-state="${esc(r.state)}" title="${esc(`${r.dag_run_id}\n${r.state}`)}" style="background:${color(r.state)}"></b>`).join('')
  }</div><div class="grid-body" style="height:${rows.length * ROW_H}px;width:${width + 280}px"></div></div>`;
  scroller = root.querySelector<HTMLElement>('.grid-scroll')!;
  const body = root.querySelector<HTMLElement>('.grid-body')!;
  const paint = () => {
    const t0 = performance.now();
    const first = Math.max(0, Math.floor(scroller!.scrollTop / ROW_H) - OVERSCAN);
    const last = Math.min(rows.length, Math.ceil((scroller!.scrollTop + scroller!.clientHeight) / ROW_H) + OVERSCAN);
    let html = '';
    for (let i = first; i < last; i++) {
      const r = rows[i];
      const sel = r.id === h.selected?.taskId ? ' sel' : '';
      const name = esc(r.id.split('.').pop()) + (r.counts ? ' <span class="mapped">[ ]</span>' : '');
      const label = r.kind === 'group' ? `${h.collapsed.has(r.id) ? '▸' : '▾'} ${name}` : name;
      html += `<div class="row ${r.kind}${sel}" style="top:${i * ROW_H}px" data-i="${i}"><div class="name" style="padding-left:${6 + r.depth * 14}px" title="${esc(r.id)}">${label}</div>`;
      // Cells carry only their state and try; colours come from CSS and the tooltip is set on hover,
      // so a paint of 60 rows x 100 runs stays a small string.
      for (let c = 0; c < runs.length; c++) {
        const t = r.tries[c];
        html += `<i data-c="${c}" data-state="${r.states[c] ?? 'none'}">${t > 1 ? t : ''}</i>`;
      }
      html += '</div>';
    }
    body.innerHTML = html;
    // Read by bench/ui.ts: the script time of the last paint.
    body.dataset.paintMs = (performance.now() - t0).toFixed(1);
  };
  let queued = false;
  scroller.addEventListener('scroll', () => {
    if (queued) return;
    queued = true;
    requestAnimationFrame(() => { queued = false; paint(); });
  });
  root.onmouseover = (e) => {
    const t = e.target as HTMLElement;
    if (t.tagName !== 'I' || t.title) return;
    const r = rows[Number(t.closest<HTMLElement>('.row')!.dataset.i)];
    const c = Number(t.dataset.c);
    t.title = `${r.id} · ${runs[c].dag_run_id} · ${r.states[c] ?? 'no status'}${r.tries[c] > 1 ? ` · try ${r.tries[c]}` : ''}${r.counts ? ` · ${mappedSummary(r.counts[c])}` : ''}`;
  };
  root.onclick = (e) => {
    const t = e.target as HTMLElement;
    const run = t.closest<HTMLElement>('.run');
    if (run) return h.onRun(run.dataset.run!);
    const row = t.closest<HTMLElement>('.row');
    if (!row) return;
    const r = rows[Number(row.dataset.i)];
    if (t.tagName === 'I' && r.kind === 'task') return h.onCell(runs[Number(t.dataset.c)].dag_run_id, r.id);
    if (r.kind === 'group' && t.closest('.name')) {
      if (h.collapsed.has(r.id)) h.collapsed.delete(r.id);
      else h.collapsed.add(r.id);
      renderGrid(root, data, h);
    }
  };
  if (keep) {
    scroller.scrollTop = keep.top;
    scroller.scrollLeft = keep.left;
  } else {
    scroller.scrollLeft = scroller.scrollWidth;
  }
  paint();
}
