/**
 * Store operations of assets (part of the Store port): the asset registry, the watcher
 * index, asset events (one item each, found by the hash of asset and dedup key, listed per
 * asset by time) and each DAG's queue of unconsumed events. Every write is idempotent or
 * conditional, so a redelivered event, a repeated step after a crash and racing engines
 * all leave one event, queued once per DAG, consumed by one run. ADR 0018.
 */
import type { AssetEventRecord, AssetQueue, AssetRecord, AssetWatcherEntry, QueueOutcome } from './assets.js';

/** A consumption's outcome: the queue after it, or (a racer consumed that generation first) as it is now. */
export type ConsumeResult = { ok: true; item: AssetQueue } | { ok: false; current: AssetQueue | undefined; reason?: 'condition' };

export interface AssetStore {
  /** Creates or replaces an asset's registry record. */
  putAssetRecord(rec: AssetRecord): Promise<void>;
  getAssetRecord(uri: string): Promise<AssetRecord | undefined>;
  /** Every registry record (one partition: one query, paginated), by URI. */
  listAssetRecords(): Promise<AssetRecord[]>;

  putAssetWatcher(entry: AssetWatcherEntry): Promise<void>;
  deleteAssetWatcher(entry: AssetWatcherEntry): Promise<void>;
  /** The watchers indexed under one source key (`s3:<bucket>`, `sqs:<queue>`, `eventbridge`). */
  listAssetWatchers(source: string): Promise<AssetWatcherEntry[]>;

  /**
   * Stores an event unless one with the same hash (asset and dedup key) exists; returns the
   * stored event either way, and whether this call created it.
   */
  putAssetEvent(event: AssetEventRecord): Promise<{ created: boolean; event: AssetEventRecord }>;
  /** Events by ref, in the order given; refs with no event (expired) are left out. */
  getAssetEvents(refs: readonly string[]): Promise<AssetEventRecord[]>;
  /** Events of one asset, newest first, with `timestamp` in [after, before) when given. */
  listAssetEvents(uri: string, opts: { limit: number; after?: number; before?: number }): Promise<AssetEventRecord[]>;
  /** Adds `dagId/runId` to the events' `consumedBy` (idempotent). */
  markAssetEventsConsumed(refs: readonly string[], runKey: string): Promise<void>;

  /**
   * Queues an event for a DAG, at most once per (event, DAG), atomically with marking the
   * event queued for it: `already` when it was queued before (a redelivery), `overflow` when
   * the DAG's queue of that asset holds `cap` refs already (the event is then counted, not listed).
   */
  queueAssetEvent(dagId: string, uri: string, ref: string, now: number, cap: number): Promise<QueueOutcome>;
  getAssetQueue(dagId: string): Promise<AssetQueue | undefined>;
  /**
   * Consumes generation `gen`: removes exactly `refs` (per asset URI) and the overflow marks
   * of those assets, and opens generation `gen + 1` at `now`, on condition that the queue is
   * still at `gen`. A lost race returns the queue as it is.
   */
  consumeAssetQueue(dagId: string, gen: number, refs: Readonly<Record<string, readonly string[]>>, now: number): Promise<ConsumeResult>;
  /** Forgets a DAG's queued events (all, or one asset's): the DAG was removed, or an operator cleared them. */
  clearAssetQueue(dagId: string, uri?: string): Promise<void>;
}
