/**
 * The task instance page (details, tries, the log of each try, rendered templates, XCom,
 * clear; for a mapped task the list of its instances, each a page of its own at
 * `?map_index=N`) and the Gantt chart of a run.
 */
import { api, badge, color, enc, esc, flash, fmtDate, fmtDuration } from './dom.js';

const tiPath = (dag: string, run: string, task: string) => `/api/v2/dags/${enc(dag)}/dagRuns/${enc(run)}/taskInstances/${enc(task)}`;

type Instance = { map_index: number; state: string | null; try_number: number; start_date: string | null; end_date: string | null; duration: number | null };

/** The mapped instances of a task, as a table of links to their pages (empty for an unmapped task). */
function instancesTable(dag: string, run: string, task: string, list: Instance[]): string {
  if (list.length === 0) return '';
  const href = (i: number) => `#/dags/${enc(dag)}/runs/${enc(run)}/tasks/${enc(task)}?map_index=${i}`;
  return `<h3>Mapped instances (${list.length})</h3><table class="list" data-testid="instances"><tr><th>map index</th><th>state</th><th>try</th><th>start</th><th>duration</th></tr>${
    list.map((m) => `<tr data-map-index="${m.map_index}"><td><a href="${href(m.map_index)}">${m.map_index}</a></td><td>${badge(m.state)}</td><td>${m.try_number}</td><td>${fmtDate(m.start_date)}</td><td>${fmtDuration(m.duration)}</td></tr>`).join('')}</table>`;
}

export async function renderTask(root: HTMLElement, dag: string, run: string, task: string, tryWanted: number | undefined, mapIndex = -1): Promise<void> {
  const one = mapIndex >= 0 ? `${tiPath(dag, run, task)}/${mapIndex}` : tiPath(dag, run, task);
  const q = mapIndex >= 0 ? `?map_index=${mapIndex}` : '';
  const [ti, xcom, mapped] = await Promise.all([
    api(one), api(`${tiPath(dag, run, task)}/xcomEntries${q}`),
    mapIndex >= 0 ? { task_instances: [] } : api(`${tiPath(dag, run, task)}/listMapped`),
  ]);
  const tries = ti.try_number as number;
  const tryN = tryWanted && tryWanted <= tries ? tryWanted : tries;
  const log = tryN > 0 ? await api(`${tiPath(dag, run, task)}/logs/${tryN}${q}`) : { content: [] };
  const self = `#/dags/${enc(dag)}/runs/${enc(run)}/tasks/${enc(task)}`;
  const prev = root.querySelector<HTMLInputElement>('#clear-down');
  const down = prev ? prev.checked : true;
  // A live log keeps its place on refresh, and follows new lines when it was at the end.
  const oldLog = root.querySelector<HTMLElement>('pre.log');
  const logTop = oldLog?.scrollTop ?? 0;
  const tail = oldLog ? oldLog.scrollTop + oldLog.clientHeight >= oldLog.scrollHeight - 4 : false;
  root.innerHTML = `
    <h2><a href="#/dags/${enc(dag)}/grid">${esc(dag)}</a> › <a href="#/dags/${enc(dag)}/runs/${enc(run)}/gantt">${esc(run)}</a> › ${mapIndex >= 0 ? `<a href="${self}">${esc(task)}</a> [${mapIndex}]` : esc(task)} ${badge(ti.state)}</h2>
    <div class="actions">
      <label><input type="checkbox" id="clear-down" ${down ? 'checked' : ''}> downstream</label>
      <button id="clear" data-testid="clear">${mapIndex >= 0 ? 'Clear task (all instances)' : 'Clear task'}</button>
      <button class="mark" data-state="success" data-testid="mark-success">Mark success</button>
      <button class="mark" data-state="failed" data-testid="mark-failed">Mark failed</button>
    </div>
    <table class="kv" data-testid="ti-details">
      <tr><th>state</th><td>${badge(ti.state)}</td><th>try</th><td>${tries} of ${ti.max_tries + 1} allowed</td></tr>
      <tr><th>start</th><td>${fmtDate(ti.start_date)}</td><th>end</th><td>${fmtDate(ti.end_date)}</td></tr>
      <tr><th>duration</th><td>${fmtDuration(ti.duration)}</td><th>operator</th><td>${esc(ti.operator)}</td></tr>
      <tr><th>queued</th><td>${fmtDate(ti.queued_when)}</td><th>map index</th><td>${ti.map_index}</td></tr>
      ${ti.error ? `<tr><th>error</th><td colspan="3" class="err">${esc(ti.error)}</td></tr>` : ''}
    </table>
    ${instancesTable(dag, run, task, mapped.task_instances as Instance[])}
    <h3>Log</h3>
    <div class="tries">${Array.from({ length: tries }, (_, i) => `<a class="try${i + 1 === tryN ? ' sel' : ''}" href="${self}?try=${i + 1}${mapIndex >= 0 ? `&map_index=${mapIndex}` : ''}">try ${i + 1}</a>`).join('') || '<em>not run yet</em>'}</div>
    <pre class="log" data-testid="log">${(log.content as { timestamp: string; level: string; event: string; [k: string]: unknown }[]).map((l) => {
      const { timestamp, level, event, ...fields } = l;
      // A job's links (its CloudWatch log stream, its console page: docs/jobs.md) are links here.
      const links = Object.entries(fields).filter((f): f is [string, string] => typeof f[1] === 'string' && /^https:\/\/\S+$/.test(f[1]));
      const rest = Object.fromEntries(Object.entries(fields).filter(([k]) => !links.some(([name]) => name === k)));
      const extra = Object.keys(rest).length ? ` ${JSON.stringify(rest)}` : '';
      const anchors = links.map(([name, url]) => ` <a href="${esc(url)}" target="_blank" rel="noopener noreferrer">${esc(name)}</a>`).join('');
      return `<span class="lv-${esc(level)}">[${esc(fmtDate(timestamp))}] {${esc(level)}} ${esc(event)}${esc(extra)}${anchors}</span>`;
    }).join('\n') || (tryN ? '(no log lines for this try yet)' : '')}</pre>
    <h3>Rendered templates</h3>
    <pre data-testid="rendered">${esc(JSON.stringify(ti.rendered_fields, null, 2))}</pre>
    <h3>XCom</h3>
    <table class="list" data-testid="xcom"><tr><th>key</th><th>value</th></tr>${(xcom.xcom_entries as { key: string; value: unknown }[]).map((x) => `<tr><td>${esc(x.key)}</td><td><code>${esc(JSON.stringify(x.value))}</code></td></tr>`).join('') || '<tr><td colspan="2"><em>none</em></td></tr>'}</table>`;
  const newLog = root.querySelector<HTMLElement>('pre.log')!;
  newLog.scrollTop = tail ? newLog.scrollHeight : logTop;
  for (const b of root.querySelectorAll<HTMLButtonElement>('button.mark')) {
    b.onclick = async () => {
      try {
        await api(`${tiPath(dag, run, task)}${q}`, { method: 'PATCH', body: { new_state: b.dataset.state } });
        flash(`marked ${task}${mapIndex >= 0 ? ` [${mapIndex}]` : ''} ${b.dataset.state}`);
        await renderTask(root, dag, run, task, undefined, mapIndex);
      } catch (err) {
        flash((err as Error).message, 'error');
      }
    };
  }
  root.querySelector<HTMLButtonElement>('#clear')!.onclick = async () => {
    try {
      const downstream = root.querySelector<HTMLInputElement>('#clear-down')!.checked;
      const r = await api(`/api/v2/dags/${enc(dag)}/clearTaskInstances`, {
        method: 'POST', body: { dry_run: false, dag_run_id: run, task_ids: [task], include_downstream: downstream, only_failed: false },
      });
      flash(`cleared ${r.total_entries} task instance(s)`);
      await renderTask(root, dag, run, task, undefined, mapIndex);
    } catch (err) {
      flash((err as Error).message, 'error');
    }
  };
}

/** Gantt of one run: a bar per task from start to end, on the run's time axis. */
export async function renderGantt(root: HTMLElement, dag: string, run: string): Promise<void> {
  const [r, tis] = await Promise.all([api(`/api/v2/dags/${enc(dag)}/dagRuns/${enc(run)}`), api(`/api/v2/dags/${enc(dag)}/dagRuns/${enc(run)}/taskInstances`)]);
  const list = (tis.task_instances as { task_id: string; state: string | null; start_date: string | null; end_date: string | null; try_number: number }[]);
  const now = Date.now();
  const starts = list.filter((t) => t.start_date).map((t) => Date.parse(t.start_date!));
  const t0 = Math.min(...starts, r.start_date ? Date.parse(r.start_date) : now);
  const t1 = Math.max(...list.map((t) => (t.end_date ? Date.parse(t.end_date) : t.start_date ? now : t0)), r.end_date ? Date.parse(r.end_date) : t0 + 1);
  const span = Math.max(1, t1 - t0);
  const rows = list.map((t) => {
    const s = t.start_date ? Date.parse(t.start_date) : undefined;
    const e = t.end_date ? Date.parse(t.end_date) : s !== undefined ? now : undefined;
    const bar = s === undefined ? '' : `<div class="bar" style="left:${((s - t0) / span) * 100}%;width:${Math.max(0.3, ((e! - s) / span) * 100)}%;background:${color(t.state)}" title="${esc(`${t.task_id}: ${t.state} ${fmtDuration((e! - s) / 1000)}`)}"></div>`;
    return `<div class="grow"><a class="gname" href="#/dags/${enc(dag)}/runs/${enc(run)}/tasks/${enc(t.task_id)}">${esc(t.task_id)}</a><div class="track">${bar}</div></div>`;
  });
  root.innerHTML = `<h2><a href="#/dags/${enc(dag)}/grid">${esc(dag)}</a> › ${esc(run)} ${badge(r.state)}</h2>
    <p>logical date ${fmtDate(r.logical_date)} · started ${fmtDate(r.start_date)} · ended ${fmtDate(r.end_date)} · duration ${fmtDuration(r.duration)} · <a href="#/dags/${enc(dag)}/graph?run=${enc(run)}">graph</a></p>
    <p class="conf">conf <code>${esc(JSON.stringify(r.conf))}</code></p>
    <div class="gantt" data-testid="gantt">${rows.join('')}</div>
    <p class="axis">${fmtDuration(span / 1000)} from first start to last end</p>`;
}
