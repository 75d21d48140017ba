/**
 * What a task sees of assets: `ctx.outletEvents(asset).extra` (the extra of the event its
 * success emits for that outlet, Airflow's `outlet_events`) and `ctx.triggeringAssetEvents`
 * (an asset-triggered run's consumed events by asset, Airflow's `triggering_asset_events`).
 */
import { InvalidInputError } from '../model/errors.js';
import type { DagRun } from '../model/types.js';
import type { Ports } from '../model/ports.js';
import type { RunCtx } from '../rules/dag-index.js';
import type { TriggeringAssetEvent } from '../model/assets.js';
import { normalizeAssetUri } from '../rules/asset-uri.js';

/** Asset URI -> the extra a task set for the event of that outlet. */
export type OutletExtras = Record<string, Record<string, unknown>>;

/**
 * The outlet event accessors of one try. In an isolated try the thread keeps its own and
 * sends their extras back with the result ({@link OutletEvents.receive}).
 *
 * @example
 * const o = new OutletEvents(['s3://lake/raw'], 'load');
 * o.get('s3://lake/raw').extra.rows = 12;
 * o.extras(); // { 's3://lake/raw': { rows: 12 } }
 */
export class OutletEvents {
  private readonly accessors = new Map<string, { extra: Record<string, unknown> }>();
  constructor(private readonly outlets: readonly string[], private readonly taskId: string) {}

  get(asset: { uri: string } | string): { extra: Record<string, unknown> } {
    const given = typeof asset === 'string' ? asset : asset?.uri;
    let uri: string;
    try {
      uri = normalizeAssetUri(given);
    } catch (e) {
      throw new InvalidInputError(`outletEvents: ${(e as Error).message}`);
    }
    if (!this.outlets.includes(uri)) {
      throw new InvalidInputError(`outletEvents: ${uri} is not an outlet of task ${this.taskId} (its outlets: ${this.outlets.length ? this.outlets.join(', ') : 'none'})`);
    }
    let a = this.accessors.get(uri);
    if (!a) this.accessors.set(uri, (a = { extra: {} }));
    return a;
  }

  /** Extras sent back by an isolated try's thread. */
  receive(extras: OutletExtras): void {
    for (const [uri, extra] of Object.entries(extras)) this.get(uri).extra = extra;
  }

  /** What the try set, or undefined when it touched no accessor. */
  extras(): OutletExtras | undefined {
    if (this.accessors.size === 0) return undefined;
    return Object.fromEntries([...this.accessors].map(([uri, a]) => [uri, a.extra]));
  }
}

const loaded = new WeakMap<DagRun, Record<string, TriggeringAssetEvent[]>>();
const NONE: Record<string, TriggeringAssetEvent[]> = Object.freeze({}) as Record<string, TriggeringAssetEvent[]>;

/** The run consumed asset events that this run object has not read yet (the worker calls {@link loadTriggeringEvents} only then). */
export function needsTriggeringEvents(rc: RunCtx): boolean {
  return rc.run.assetEvents !== undefined && !loaded.has(rc.run);
}

/**
 * Reads the events an asset-triggered run consumed, once per run object (the worker calls
 * it before a try; eager follows of the same run reuse it). Other runs read nothing.
 */
export async function loadTriggeringEvents(p: Ports, rc: RunCtx): Promise<void> {
  const refs = rc.run.assetEvents;
  if (!refs || !needsTriggeringEvents(rc)) return;
  const names = new Map((rc.spec.assets ?? []).map((a) => [a.uri, a.name]));
  const out: Record<string, TriggeringAssetEvent[]> = {};
  for (const uri of Object.keys(refs)) out[uri] = [];
  for (const e of await p.store.getAssetEvents(Object.values(refs).flat())) {
    (out[e.uri] ??= []).push({
      id: e.id, uri: e.uri, name: names.get(e.uri) ?? e.uri, timestamp: new Date(e.timestamp).toISOString(), extra: e.extra, origin: e.origin,
      ...(e.source ? { source: e.source } : {}),
    });
  }
  for (const list of Object.values(out)) list.sort((a, b) => (a.timestamp < b.timestamp ? -1 : a.timestamp > b.timestamp ? 1 : a.id - b.id));
  loaded.set(rc.run, out);
}

/** The events {@link loadTriggeringEvents} read for this run; `{}` for a run not triggered by assets. */
export function triggeringEventsOf(rc: RunCtx): Record<string, TriggeringAssetEvent[]> {
  return loaded.get(rc.run) ?? NONE;
}
