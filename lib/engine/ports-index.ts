/**
 * The engine's second entry: what adapters implement. The ports (Store and its
 * sub-interfaces, Queue, Timer, Clock, BundleSource, SecretsSource, Metrics, Log, job
 * drivers) with the shapes they carry. lib/adapters implements these; lib/engine/index.ts,
 * what the runtimes, functions, CLI and API call, re-exports them, so one import still
 * serves a runtime that wires ports and calls the engine (docs/adr/0026-engine-layers.md).
 *
 * @example
 * import type { Store, Cas, TaskInstance } from '../../engine/ports-index.js';
 * export class MyStore implements Store { ... }
 */
export * from './model/ports.js';
export type * from './model/types.js';
export type * from './model/states.js';
export type * from './model/mapping-store.js';
export type * from './model/run-ends-store.js';
export type * from './model/import-error-store.js';
export type * from './model/run-slots-store.js';
export type * from './model/backfill-store.js';
export type * from './model/poker-state.js';
export type * from './model/prev-success.js';
export type * from './model/audit-log.js';
export type * from './model/run-delete-store.js';
export type * from './model/asset-store.js';
export type * from './model/events.js';
