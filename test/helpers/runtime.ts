/**
 * Test helpers: an embedded runtime on a virtual clock over inline DAG definitions.
 * The store is chosen by the vitest project (`AIRLESS_TEST_STORE`): the memory store,
 * or DynamoDB Local with fresh tables per runtime (see vitest.config.ts).
 */
import { VirtualClock } from '../../lib/adapters/clock.js';
import type { Store, TaskInstance } from '../../lib/engine/index.js';
import type { DagDefinition, SensorDefinition } from '../../lib/sdk/types.js';
import { InlineBundleSource } from '../../lib/runtime/inline-bundles.js';
import { EmbeddedRuntime, type RuntimeOptions } from '../../lib/runtime/embedded.js';
import { holdClockDuringCalls, onDynamo, testStore } from './stores.js';

export const T0 = Date.parse('2026-01-01T00:00:00Z');

export async function makeRuntime(
  dags: DagDefinition[],
  opts: Partial<RuntimeOptions> & {
    sensors?: RuntimeOptions['sensors'];
    sensorDefs?: SensorDefinition<any>[];
    start?: number;
    /** Wraps the store of this project (a crash injector, a counter). */
    wrapStore?: (s: Store) => Store;
  } = {},
) {
  const clock = new VirtualClock(opts.start ?? T0);
  const bundles = new InlineBundleSource(dags, opts.sensorDefs ?? []);
  const fresh = opts.store ?? (await testStore());
  const base = onDynamo ? holdClockDuringCalls(fresh, clock) : fresh;
  const store = opts.wrapStore ? opts.wrapStore(base) : base;
  const rt = new EmbeddedRuntime({ schedules: false, ...opts, store, bundles, clock });
  await rt.register(bundles.version);
  return { rt, clock, bundles };
}

/** Triggers one run and runs it to completion; returns the run and its tasks by id. */
export async function runOnce(rt: EmbeddedRuntime, dagId: string, opts: Parameters<EmbeddedRuntime['trigger']>[1] = {}) {
  const run = await rt.trigger(dagId, opts);
  const outcome = await rt.runToCompletion(dagId, run.runId);
  const final = (await rt.ports.store.getRun(dagId, run.runId))!;
  const tasks = await rt.ports.store.listTasks(dagId, run.runId);
  const byId: Record<string, TaskInstance> = Object.fromEntries(tasks.map((t) => [t.taskId, t]));
  const states: Record<string, string> = Object.fromEntries(tasks.map((t) => [t.taskId, t.state]));
  return { outcome, run: final, tasks: byId, states };
}
