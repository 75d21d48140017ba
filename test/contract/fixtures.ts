/** Record builders shared by the store contract suite. */
import type { DagRecord, DagRun, TaskInstance, TriggerRecord } from '../../lib/engine/index.js';

export const T0 = Date.UTC(2025, 0, 1);

export function dag(dagId: string, over: Partial<DagRecord> = {}): DagRecord {
  return {
    dagId,
    bundleVersion: 'v1',
    paused: false,
    updatedAt: T0,
    spec: {
      dagId,
      file: `${dagId}.ts`,
      schedule: { kind: 'cron', expr: '0 * * * *', timezone: 'UTC' },
      timezone: 'UTC',
      catchup: false,
      maxActiveRuns: 2,
      maxActiveTasks: 3,
      maxParallelism: 3,
      params: { nested: { list: [1, 'two', null] } },
      tags: [],
      pausedOnCreation: false,
      tasks: [],
    },
    ...over,
  };
}

export function run(dagId: string, runId: string, over: Partial<DagRun> = {}): DagRun {
  return {
    dagId,
    runId,
    state: 'queued',
    runType: 'manual',
    logicalDate: T0,
    dataIntervalStart: T0 - 3600_000,
    dataIntervalEnd: T0,
    conf: { a: 1, nested: { b: [true, 'x'] } },
    bundleVersion: 'v1',
    queuedAt: T0,
    ...over,
  };
}

export function task(dagId: string, runId: string, taskId: string, over: Partial<TaskInstance> = {}): TaskInstance {
  return { dagId, runId, taskId, state: 'scheduled', tryNumber: 0, upstream: {}, ...over };
}

export function sensorTrigger(id: string, shard: number, nextPokeAt: number, over: Partial<TriggerRecord> = {}): TriggerRecord {
  const [dagId = 'd', runId = 'r', taskId = id] = id.split('/');
  return {
    id,
    kind: 'sensor',
    dagId,
    runId,
    taskId,
    tryNumber: 1,
    createdAt: T0,
    sensorType: 'file',
    pokeContext: { path: '/tmp/x' },
    hashcode: `h-${id}`,
    shardcode: shard,
    nextPokeAt,
    pokeIntervalMs: 60_000,
    softFail: false,
    ...over,
  };
}

export function eventTrigger(id: string, eventKey: string, over: Partial<TriggerRecord> = {}): TriggerRecord {
  return { id, kind: 'event', dagId: 'd', runId: 'r', taskId: id, tryNumber: 1, createdAt: T0, eventKey, ...over };
}

/** A JSON value whose serialization is about `bytes` long. */
export function bigValue(bytes: number): { blob: string; n: number } {
  return { blob: 'x'.repeat(bytes), n: 42 };
}
