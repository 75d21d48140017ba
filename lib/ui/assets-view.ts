/**
 * The assets views of the UI, over the REST API's asset endpoints: the list of assets (who
 * produces and who is scheduled on each, the last event) with a graph of DAGs and assets
 * (producer DAG → asset → scheduled DAG), and one asset's events with the runs they
 * triggered and the DAGs it is queued for.
 */
import { api, enc, esc, fmtDate } from './dom.js';
import { graphSvg, placeGraph, type Structure } from './graph.js';

interface AssetJson {
  id: number; uri: string; name: string; group: string; extra: Record<string, unknown> | null;
  scheduled_dags: { dag_id: string }[]; producing_tasks: { dag_id: string; task_id: string }[]; consuming_tasks: { dag_id: string; task_id: string }[];
  watchers: { name: string }[]; last_asset_event: { id: number | null; timestamp: string | null } | null;
}

const dagLink = (d: string) => `<a href="#/dags/${enc(d)}/grid">${esc(d)}</a>`;
const assetLink = (a: { uri: string; name: string }) => `<a href="#/assets/${enc(a.uri)}">${esc(a.name)}</a>`;

/** DAGs and assets as one graph: an edge from each producing DAG to its asset and from the asset to each DAG scheduled on it. */
export function lineage(assets: readonly AssetJson[]): Structure {
  const nodes = new Map<string, Structure['nodes'][number]>();
  const edges: Structure['edges'] = [];
  const seen = new Set<string>();
  const dagNode = (d: string) => nodes.set(`dag:${d}`, { id: `dag:${d}`, label: d, operator: 'dag', groups: [] });
  const edge = (source_id: string, target_id: string) => {
    if (!seen.has(`${source_id}>${target_id}`)) edges.push({ source_id, target_id }), seen.add(`${source_id}>${target_id}`);
  };
  for (const a of assets) {
    const id = `asset:${a.uri}`;
    nodes.set(id, { id, label: a.name, operator: 'asset', groups: [] });
    for (const t of a.producing_tasks) { dagNode(t.dag_id); edge(`dag:${t.dag_id}`, id); }
    for (const d of a.scheduled_dags) { dagNode(d.dag_id); edge(id, `dag:${d.dag_id}`); }
  }
  return { nodes: [...nodes.values()], edges };
}

function onNodeClick(root: HTMLElement): void {
  root.querySelector('svg')?.addEventListener('click', (e) => {
    const node = (e.target as Element).closest<SVGGElement>('g.node');
    const id = node?.dataset.task ?? '';
    if (id.startsWith('asset:')) location.hash = `#/assets/${enc(id.slice(6))}`;
    else if (id.startsWith('dag:')) location.hash = `#/dags/${enc(id.slice(4))}/grid`;
  });
}

/** `#/assets`: every active asset, and the lineage graph. */
export async function renderAssets(root: HTMLElement): Promise<void> {
  const { assets } = await api<{ assets: AssetJson[] }>('/api/v2/assets?limit=10000&order_by=name');
  const rows = assets.map((a) => `<tr data-asset="${esc(a.uri)}"><td>${assetLink(a)}<div class="uri">${esc(a.uri)}</div></td><td>${esc(a.group)}</td>
    <td>${a.producing_tasks.map((t) => `${dagLink(t.dag_id)}.${esc(t.task_id)}`).join('<br>')}</td>
    <td>${a.scheduled_dags.map((d) => dagLink(d.dag_id)).join('<br>')}</td>
    <td>${a.watchers.map((w) => esc(w.name)).join('<br>')}</td><td>${fmtDate(a.last_asset_event?.timestamp)}</td></tr>`).join('');
  const s = lineage(assets);
  root.innerHTML = `<h2><a href="#/">DAGs</a> › Assets</h2>${assets.length ? `<table class="list" data-testid="assets"><tr><th>asset</th><th>group</th><th>produced by</th><th>scheduled DAGs</th><th>watchers</th><th>last event</th></tr>${rows}</table>
    <h3>DAGs and assets</h3><div class="graph" data-testid="lineage">${graphSvg(s, placeGraph(s), new Map())}</div>` : '<p>No assets: declare them with <code>asset()</code> in a DAG\'s schedule, outlets or inlets.</p>'}`;
  onNodeClick(root);
}

/** `#/assets/<uri>`: one asset, its events (newest first) and the DAGs it is queued for. */
export async function renderAsset(root: HTMLElement, uri: string): Promise<void> {
  const { assets } = await api<{ assets: AssetJson[] }>('/api/v2/assets?limit=10000&only_active=false');
  const a = assets.find((x) => x.uri === uri);
  if (!a) throw new Error(`no asset ${uri}`);
  const [events, queued] = await Promise.all([
    api(`/api/v2/assets/events?asset_id=${a.id}&order_by=-timestamp&limit=100`),
    api(`/api/v2/assets/${a.id}/queuedEvents`),
  ]);
  const eventRows = (events.asset_events as any[]).map((e) => `<tr data-event="${e.id}"><td>${fmtDate(e.timestamp)}</td>
    <td>${e.source_dag_id ? `${dagLink(e.source_dag_id)}.${esc(e.source_task_id)} <a href="#/dags/${enc(e.source_dag_id)}/runs/${enc(e.source_run_id)}/gantt">${esc(e.source_run_id)}</a>` : 'external'}</td>
    <td><code>${esc(JSON.stringify(e.extra ?? {}))}</code></td>
    <td>${(e.created_dagruns as any[]).map((r) => `<a href="#/dags/${enc(r.dag_id)}/runs/${enc(r.run_id)}/gantt">${esc(r.dag_id)}</a>`).join(', ')}</td></tr>`).join('');
  root.innerHTML = `<h2><a href="#/">DAGs</a> › <a href="#/assets">Assets</a> › ${esc(a.name)}</h2>
    <table class="kv" data-testid="asset"><tr><th>URI</th><td>${esc(a.uri)}</td></tr><tr><th>group</th><td>${esc(a.group)}</td></tr>
    <tr><th>extra</th><td><code>${esc(JSON.stringify(a.extra ?? {}))}</code></td></tr>
    <tr><th>produced by</th><td>${a.producing_tasks.map((t) => `${dagLink(t.dag_id)}.${esc(t.task_id)}`).join(', ') || '—'}</td></tr>
    <tr><th>read by (inlets)</th><td>${a.consuming_tasks.map((t) => `${dagLink(t.dag_id)}.${esc(t.task_id)}`).join(', ') || '—'}</td></tr>
    <tr><th>scheduled DAGs</th><td>${a.scheduled_dags.map((d) => dagLink(d.dag_id)).join(', ') || '—'}</td></tr>
    <tr><th>queued for</th><td data-testid="queued">${(queued.queued_events as any[]).map((q) => `${dagLink(q.dag_id)} since ${fmtDate(q.created_at)}`).join(', ') || '—'}</td></tr></table>
    <h3>Events</h3>${eventRows ? `<table class="list" data-testid="events"><tr><th>time</th><th>source</th><th>extra</th><th>triggered runs</th></tr>${eventRows}</table>` : '<p>No events yet.</p>'}`;
}
