/**
 * The asset operations of the Store port in process (lib/engine/model/asset-store.ts), with
 * the semantics of the DynamoDB items (lib/adapters/aws/dynamo-assets.ts): an event is
 * stored once per hash, queued once per DAG, and a queue is consumed once per generation.
 * Each method does its whole write before its first await, so it is atomic as the
 * DynamoDB conditional writes and transactions are.
 */
import { parseAssetEventRef } from '../../engine/index.js';
import type { AssetEventRecord, AssetQueue, AssetRecord, AssetWatcherEntry, ConsumeResult, QueueOutcome } from '../../engine/index.js';
import { jsonClone } from './records.js';

interface Queue {
  gen: number;
  openedAt: number;
  queued: Map<string, Set<string>>;
  overflow: Set<string>;
}

function queueView(dagId: string, q: Queue): AssetQueue {
  const out: AssetQueue = { dagId, gen: q.gen, openedAt: q.openedAt, queued: {} };
  for (const [uri, refs] of q.queued) if (refs.size) out.queued[uri] = [...refs].sort();
  if (q.overflow.size) out.overflow = [...q.overflow].sort();
  return out;
}

function eventCopy(e: AssetEventRecord & { queued: Set<string>; consumed: Set<string> }): AssetEventRecord {
  const { queued, consumed, ...rest } = e;
  const out = jsonClone(rest) as AssetEventRecord;
  delete out.queuedFor;
  delete out.consumedBy;
  if (queued.size) out.queuedFor = [...queued].sort();
  if (consumed.size) out.consumedBy = [...consumed].sort();
  return out;
}

/**
 * @example
 * const assets = new MemoryAssets();
 * await assets.putAssetEvent(event);
 */
export class MemoryAssets {
  private readonly records = new Map<string, AssetRecord>();
  private readonly watchers = new Map<string, Map<string, AssetWatcherEntry>>();
  private readonly events = new Map<string, AssetEventRecord & { queued: Set<string>; consumed: Set<string> }>();
  private readonly byAsset = new Map<string, Set<string>>();
  private readonly queues = new Map<string, Queue>();

  async putAssetRecord(rec: AssetRecord): Promise<void> {
    this.records.set(rec.uri, jsonClone(rec));
  }

  async getAssetRecord(uri: string): Promise<AssetRecord | undefined> {
    const r = this.records.get(uri);
    return r && jsonClone(r);
  }

  async listAssetRecords(): Promise<AssetRecord[]> {
    return [...this.records.values()].sort((a, b) => (a.uri < b.uri ? -1 : 1)).map((r) => jsonClone(r));
  }

  async putAssetWatcher(w: AssetWatcherEntry): Promise<void> {
    let m = this.watchers.get(w.source);
    if (!m) this.watchers.set(w.source, (m = new Map()));
    m.set(`${w.uri}\u0000${w.watcher.name}`, jsonClone(w));
  }

  async deleteAssetWatcher(w: AssetWatcherEntry): Promise<void> {
    this.watchers.get(w.source)?.delete(`${w.uri}\u0000${w.watcher.name}`);
  }

  async listAssetWatchers(source: string): Promise<AssetWatcherEntry[]> {
    return [...(this.watchers.get(source)?.values() ?? [])].map((w) => jsonClone(w));
  }

  async putAssetEvent(e: AssetEventRecord): Promise<{ created: boolean; event: AssetEventRecord }> {
    const { hash } = parseAssetEventRef(e.ref);
    const seen = this.events.get(hash);
    if (seen) return { created: false, event: eventCopy(seen) };
    const { queuedFor: _q, consumedBy: _c, ...rest } = jsonClone(e);
    const stored = { ...rest, queued: new Set<string>(), consumed: new Set<string>() };
    this.events.set(hash, stored);
    let refs = this.byAsset.get(e.uri);
    if (!refs) this.byAsset.set(e.uri, (refs = new Set()));
    refs.add(e.ref);
    return { created: true, event: eventCopy(stored) };
  }

  async getAssetEvents(refs: readonly string[]): Promise<AssetEventRecord[]> {
    const out: AssetEventRecord[] = [];
    for (const ref of refs) {
      const e = this.events.get(parseAssetEventRef(ref).hash);
      if (e) out.push(eventCopy(e));
    }
    return out;
  }

  async listAssetEvents(uri: string, opts: { limit: number; after?: number; before?: number }): Promise<AssetEventRecord[]> {
    const refs = [...(this.byAsset.get(uri) ?? [])]
      .filter((ref) => {
        const t = parseAssetEventRef(ref).timestamp;
        return (opts.after === undefined || t >= opts.after) && (opts.before === undefined || t < opts.before);
      })
      .sort()
      .reverse()
      .slice(0, opts.limit);
    return this.getAssetEvents(refs);
  }

  async markAssetEventsConsumed(refs: readonly string[], runKey: string): Promise<void> {
    for (const ref of refs) this.events.get(parseAssetEventRef(ref).hash)?.consumed.add(runKey);
  }

  async queueAssetEvent(dagId: string, uri: string, ref: string, now: number, cap: number): Promise<QueueOutcome> {
    const e = this.events.get(parseAssetEventRef(ref).hash);
    if (!e || e.queued.has(dagId)) return 'already';
    e.queued.add(dagId);
    let q = this.queues.get(dagId);
    if (!q) this.queues.set(dagId, (q = { gen: 0, openedAt: now, queued: new Map(), overflow: new Set() }));
    let refs = q.queued.get(uri);
    if (!refs) q.queued.set(uri, (refs = new Set()));
    if (refs.size >= cap) {
      q.overflow.add(uri);
      return 'overflow';
    }
    refs.add(ref);
    return 'queued';
  }

  async getAssetQueue(dagId: string): Promise<AssetQueue | undefined> {
    const q = this.queues.get(dagId);
    return q && queueView(dagId, q);
  }

  async consumeAssetQueue(dagId: string, gen: number, refs: Readonly<Record<string, readonly string[]>>, now: number): Promise<ConsumeResult> {
    const q = this.queues.get(dagId);
    if (!q || q.gen !== gen) return { ok: false, current: q && queueView(dagId, q), reason: 'condition' };
    for (const [uri, list] of Object.entries(refs)) {
      const set = q.queued.get(uri);
      for (const ref of list) set?.delete(ref);
      q.overflow.delete(uri);
    }
    q.gen = gen + 1;
    q.openedAt = now;
    return { ok: true, item: queueView(dagId, q) };
  }

  async clearAssetQueue(dagId: string, uri?: string): Promise<void> {
    if (uri === undefined) {
      this.queues.delete(dagId);
      return;
    }
    const q = this.queues.get(dagId);
    q?.queued.delete(uri);
    q?.overflow.delete(uri);
  }
}
