/**
 * Airflow's pools, read: the pools the deployed bundle declares with `definePool`, with
 * the slots their store counters hold now. Pools are code in Airless (a bundle's
 * definePool, registered at deploy), so the write endpoints are not served: a pool is
 * changed by changing the code and pushing it (docs/api.md).
 */
import type { PoolSpec } from '../engine/index.js';
import type { ApiBackend } from './backend.js';
import { HttpError } from './http.js';
import { likeMatcher, page, sorter } from './params.js';
import type { Route, RouteCtx } from './router.js';

/** The pools of the bundle versions the DAGs are on now (usually one), by name. */
async function declaredPools(b: ApiBackend): Promise<Map<string, PoolSpec>> {
  const versions = new Set((await b.ports.store.listDags()).map((d) => d.bundleVersion));
  const out = new Map<string, PoolSpec>();
  for (const v of versions) for (const p of (await b.ports.bundles.manifest(v)).pools ?? []) out.set(p.name, p);
  return out;
}

/**
 * A pool as Airflow answers it. The store keeps one counter per pool (the slots left),
 * taken when a task is dispatched and given back when its try ends, so every slot in use
 * is reported as running (Airflow splits them by state; the total, occupied, is the same).
 */
async function poolJson(b: ApiBackend, spec: PoolSpec) {
  const state = await b.ports.store.getPool(spec.name);
  const slots = state?.slots ?? spec.slots;
  const used = Math.max(0, slots - (state?.free ?? slots));
  return {
    name: spec.name, slots, description: spec.description ?? null, include_deferred: false,
    occupied_slots: used, running_slots: used, queued_slots: 0, scheduled_slots: 0, open_slots: slots - used, deferred_slots: 0,
  };
}

async function list({ b, url }: RouteCtx): Promise<unknown> {
  const pattern = url.searchParams.get('pool_name_pattern');
  const matches = pattern ? likeMatcher(pattern) : () => true;
  const pools = [...(await declaredPools(b)).values()].filter((p) => matches(p.name));
  pools.sort(sorter<PoolSpec>(url, 'id', { id: (p) => p.name, name: (p) => p.name, pool: (p) => p.name, slots: (p) => p.slots }));
  return { pools: await Promise.all(page(url, pools).map((p) => poolJson(b, p))), total_entries: pools.length };
}

/**
 * @example
 * const routes = poolRoutes(); // registered in routes.ts
 */
export function poolRoutes(): Route[] {
  return [
    { method: 'GET', path: '/api/v2/pools', handle: list },
    {
      method: 'GET', path: '/api/v2/pools/{pool_name}',
      handle: async ({ b, p }) => {
        const spec = (await declaredPools(b)).get(p.pool_name);
        if (!spec) throw new HttpError(404, `The Pool with name: \`${p.pool_name}\` was not found`);
        return poolJson(b, spec);
      },
    },
  ];
}
