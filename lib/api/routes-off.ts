/**
 * Operations about parts of an Airflow deployment Airless does not have, answered as an
 * Airflow without them answers (docs/api.md): no plugins and no plugin import errors (an
 * Airflow with none installed), no Python providers (Airless's integrations are its own
 * sensors and notifiers), and the configuration not exposed (Airflow's default,
 * `expose_config = False`: 403).
 */
import { HttpError } from './http.js';
import { intQuery } from './params.js';
import type { Route, RouteCtx } from './router.js';

/** Airflow's answer with `[api] expose_config = False`. */
const CONFIG_HIDDEN = 'Your Airflow administrator chose not to expose the configuration, most likely for security reasons.';

/** An empty page, its `limit` and `offset` still checked as Airflow checks them. */
function none(key: string) {
  return async ({ url }: RouteCtx) => {
    intQuery(url, 'limit', 50, 0, 10_000);
    intQuery(url, 'offset', 0, 0, Number.MAX_SAFE_INTEGER);
    return { [key]: [], total_entries: 0 };
  };
}

/**
 * @example
 * const routes = offRoutes(); // registered in routes.ts
 */
export function offRoutes(): Route[] {
  const hidden = async () => { throw new HttpError(403, CONFIG_HIDDEN); };
  return [
    { method: 'GET', path: '/api/v2/plugins', handle: none('plugins') },
    { method: 'GET', path: '/api/v2/plugins/importErrors', handle: async () => ({ import_errors: [], total_entries: 0 }) },
    { method: 'GET', path: '/api/v2/providers', handle: none('providers') },
    { method: 'GET', path: '/api/v2/config', handle: hidden },
    { method: 'GET', path: '/api/v2/config/section/{section}/option/{option}', handle: hidden },
  ];
}
