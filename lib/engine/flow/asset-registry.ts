/**
 * The asset registry, kept from each registered manifest (Airflow's asset collection when
 * DAGs are parsed): one record per asset with who produces, consumes and reads it; the
 * watcher index the external-event path looks events up in; and the queues of DAGs that
 * left or changed their asset schedule. Assets no DAG names any more become inactive
 * (their events stay), as Airflow's do.
 */
import type { DagRecord, DagSpec, Manifest } from '../model/types.js';
import type { Ports } from '../model/ports.js';
import type { AssetRecord, AssetSpec, AssetTaskRef, AssetWatcherEntry } from '../model/assets.js';
import { conditionUris } from '../rules/asset-condition.js';
import { assetId } from '../rules/asset-uri.js';
import { watcherSource } from '../rules/asset-watchers.js';

const watcherKey = (w: AssetWatcherEntry) => `${w.source}\u0000${w.uri}\u0000${w.watcher.name}`;

function entries(spec: AssetSpec | undefined): AssetWatcherEntry[] {
  return (spec?.watchers ?? []).map((watcher) => ({ source: watcherSource(watcher), uri: spec!.uri, watcher }));
}

/**
 * The registry records a manifest describes (one per asset any DAG names).
 *
 * @example
 * assetRecords(manifest.dags, p.clock.now(), new Map()); // [{ uri: 's3://lake/raw', consumers: ['report'], ... }]
 */
export function assetRecords(dags: readonly DagSpec[], now: number, existing: ReadonlyMap<string, AssetRecord>): AssetRecord[] {
  const out = new Map<string, AssetRecord>();
  const rec = (a: AssetSpec): AssetRecord => {
    let r = out.get(a.uri);
    if (!r) {
      const before = existing.get(a.uri);
      r = { ...a, id: assetId(a.uri), active: true, createdAt: before?.createdAt ?? now, updatedAt: now, consumers: [], producers: [], inlets: [] };
      out.set(a.uri, r);
    }
    return r;
  };
  for (const d of dags) {
    const specs = new Map((d.assets ?? []).map((a) => [a.uri, a]));
    for (const a of specs.values()) rec(a);
    if (d.assetSchedule) for (const uri of conditionUris(d.assetSchedule)) rec(specs.get(uri)!).consumers.push(d.dagId);
    for (const t of d.tasks) {
      const ref: AssetTaskRef = { dagId: d.dagId, taskId: t.taskId };
      for (const uri of t.outlets ?? []) rec(specs.get(uri)!).producers.push(ref);
      for (const uri of t.inlets ?? []) rec(specs.get(uri)!).inlets.push(ref);
    }
  }
  const byRef = (a: AssetTaskRef, b: AssetTaskRef) => (a.dagId < b.dagId ? -1 : a.dagId > b.dagId ? 1 : a.taskId < b.taskId ? -1 : a.taskId > b.taskId ? 1 : 0);
  for (const r of out.values()) {
    r.consumers.sort();
    r.producers.sort(byRef);
    r.inlets.sort(byRef);
  }
  return [...out.values()];
}

/**
 * Brings the registry, the watcher index and the queues in line with a registered
 * manifest. Idempotent: registering the same manifest twice writes the same items.
 *
 * @example
 * await registerAssets(p, manifest, { removed: ['old_dag'], before });
 */
export async function registerAssets(
  p: Ports,
  manifest: Manifest,
  change: { removed: readonly string[]; before: ReadonlyMap<string, DagRecord> },
): Promise<void> {
  const now = p.clock.now();
  const existing = new Map((await p.store.listAssetRecords()).map((r) => [r.uri, r]));
  const records = assetRecords(manifest.dags, now, existing);
  const next = new Map(records.map((r) => [r.uri, r]));
  const unchanged = (r: AssetRecord, old?: AssetRecord) => old !== undefined && JSON.stringify({ ...old, updatedAt: 0 }) === JSON.stringify({ ...r, updatedAt: 0 });
  for (const r of records) if (!unchanged(r, existing.get(r.uri))) await p.store.putAssetRecord(r);
  for (const old of existing.values()) {
    if (next.has(old.uri) || !old.active) continue;
    const { watchers: _w, ...rest } = old;
    await p.store.putAssetRecord({ ...rest, active: false, consumers: [], producers: [], inlets: [], updatedAt: now });
  }
  const wanted = new Map(records.flatMap(entries).map((w) => [watcherKey(w), w]));
  for (const w of [...existing.values()].flatMap(entries)) if (!wanted.has(watcherKey(w))) await p.store.deleteAssetWatcher(w);
  for (const w of wanted.values()) await p.store.putAssetWatcher(w);
  for (const dagId of change.removed) await p.store.clearAssetQueue(dagId);
  // A DAG whose schedule no longer names an asset forgets that asset's queued events.
  for (const d of manifest.dags) {
    const before = change.before.get(d.dagId)?.spec.assetSchedule;
    if (!before) continue;
    const now = new Set(d.assetSchedule ? conditionUris(d.assetSchedule) : []);
    for (const uri of conditionUris(before)) if (!now.has(uri)) await p.store.clearAssetQueue(d.dagId, uri);
  }
}

/**
 * Asks for an evaluation of a DAG's queued asset events (an unpaused DAG may have events
 * queued before it was paused): an `evaluate` message, handled like any other.
 */
export async function requestAssetEvaluation(p: Ports, dagId: string): Promise<void> {
  const dag = await p.store.getDag(dagId);
  if (dag?.spec.assetSchedule && !dag.paused) await p.queue.send([{ kind: 'asset', op: 'evaluate', dagId }]);
}
