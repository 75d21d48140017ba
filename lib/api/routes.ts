/**
 * Every route the API server serves, in matching order: the one place a group of routes
 * is registered (one line each), so the server, the coverage count and the tests agree.
 */
import type { Route } from './router.js';
import { backfillRoutes } from './routes-backfills.js';
import { assetRoutes } from './routes-assets.js';
import { runRoutes } from './routes-runs.js';
import { variableRoutes } from './routes-variables.js';
import { connectionRoutes } from './routes-connections.js';
import { poolRoutes } from './routes-pools.js';
import { taskRoutes } from './routes-tasks.js';
import { offRoutes } from './routes-off.js';
import { taskInstanceExtraRoutes } from './routes-ti-extra.js';
import { taskInstanceListRoutes } from './routes-ti-list.js';
import { runListRoutes } from './routes-runs-list.js';
import { taskInstanceRoutes } from './routes-ti.js';
import { uiRoutes } from './routes-ui.js';
import { v2Routes } from './routes-v2.js';
import { devRoutes } from './routes-dev.js';
import { xcomWriteRoutes } from './routes-xcom.js';
import { eventLogRoutes } from './routes-event-logs.js';
import { runOpRoutes } from './routes-run-ops.js';
import { dagVersionRoutes } from './routes-dag-versions.js';
import { taskInstanceBulkRoutes } from './routes-ti-bulk.js';
import { dagSourceRoutes } from './routes-dag-sources.js';
import { importErrorRoutes } from './routes-import-errors.js';

/**
 * @example
 * const router = new Router(apiRoutes());
 */
export function apiRoutes(): Route[] {
  return [
    ...taskInstanceListRoutes(),
    ...runListRoutes(),
    ...v2Routes(),
    ...taskInstanceRoutes(),
    ...uiRoutes(),
    ...backfillRoutes(),
    ...assetRoutes(),
    ...runRoutes(),
    ...variableRoutes(),
    ...connectionRoutes(),
    ...poolRoutes(),
    ...taskRoutes(),
    ...offRoutes(),
    ...taskInstanceExtraRoutes(),
    ...devRoutes(),
    ...xcomWriteRoutes(),
    ...eventLogRoutes(),
    ...runOpRoutes(),
    ...dagVersionRoutes(),
    ...taskInstanceBulkRoutes(),
    ...dagSourceRoutes(),
    ...importErrorRoutes(),
  ];
}
