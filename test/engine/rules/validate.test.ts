import { describe, expect, it } from 'vitest';
import { InvalidDagError } from '../../../lib/engine/index.js';
import type { DagSpec, TaskSpec } from '../../../lib/engine/index.js';
import { BUILTIN_SENSOR_TYPES, findCycle, validateDagSpec } from '../../../lib/engine/validate.js';

function task(taskId: string, over: Partial<TaskSpec> = {}): TaskSpec {
  return {
    taskId,
    kind: 'task',
    upstream: [],
    downstream: [],
    triggerRule: 'all_success',
    retries: 0,
    retryDelayMs: 300_000,
    retryExponentialBackoff: false,
    ...over,
  };
}

/** Builds a spec with edges given as `a>b` strings. */
function spec(tasks: TaskSpec[], edges: string[] = [], over: Partial<DagSpec> = {}): DagSpec {
  const byId = new Map(tasks.map((t) => [t.taskId, t]));
  for (const e of edges) {
    const [a, b] = e.split('>');
    byId.get(a)?.downstream.push(b);
    byId.get(b)?.upstream.push(a);
  }
  return {
    dagId: 'd',
    file: 'dags/d.ts',
    schedule: { kind: 'cron', expr: '0 2 * * *', timezone: 'UTC' },
    timezone: 'UTC',
    catchup: false,
    maxActiveRuns: 16,
    maxActiveTasks: 16,
    maxParallelism: Math.max(1, tasks.length > 0 ? 1 : 0),
    params: {},
    tags: [],
    pausedOnCreation: false,
    tasks,
    ...over,
  };
}

function message(f: () => void): string {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(InvalidDagError);
    return (e as Error).message;
  }
  throw new Error('expected an InvalidDagError');
}

describe('validateDagSpec', () => {
  it('accepts a valid spec', () => {
    expect(() => validateDagSpec(spec([task('a'), task('b')], ['a>b']))).not.toThrow();
  });

  it('prints the cycle path with file and DAG', () => {
    const m = message(() => validateDagSpec(spec([task('a'), task('b'), task('c')], ['a>b', 'b>c', 'c>a'], { maxParallelism: 1 })));
    expect(m).toBe('dags/d.ts: dag d: cycle: a -> b -> c -> a');
  });

  it('finds a self-loop and a cycle behind an acyclic prefix', () => {
    expect(message(() => validateDagSpec(spec([task('a')], ['a>a'])))).toContain('cycle: a -> a');
    const tasks = [task('s'), task('x'), task('y')];
    const s = spec(tasks, ['s>x', 'x>y', 'y>x']);
    expect(findCycle(s.tasks, new Map(s.tasks.map((t) => [t.taskId, t])))).toEqual(['x', 'y', 'x']);
  });

  it('handles a 5,000-task chain without a stack overflow', () => {
    const tasks = Array.from({ length: 5000 }, (_, i) => task(`t${i}`));
    const edges = tasks.slice(1).map((t, i) => `t${i}>${t.taskId}`);
    expect(() => validateDagSpec(spec(tasks, edges))).not.toThrow();
  });

  it.each<[string, () => DagSpec, string]>([
    ['duplicate task id', () => spec([task('a'), task('a')]), 'dag d: task a: duplicate task id "a"'],
    ['edge to a missing task', () => spec([task('a', { downstream: ['ghost'] })]), 'task a: task "a" has downstream "ghost", which is not a task of this DAG'],
    ['one-sided edge', () => spec([task('a', { downstream: ['b'] }), task('b')]), '"b" does not list it as upstream'],
    ['bad task id', () => spec([task('a b')]), 'invalid task id "a b": use 1-250 characters from A-Z a-z 0-9 _ . -'],
    ['bad dag id', () => spec([task('a')], [], { dagId: 'x/y' }), 'dags/d.ts: invalid dag id "x/y"'],
    // Airflow's validate_key (airflow/utils/helpers.py) allows 250 characters.
    ['long id', () => spec([task('x'.repeat(251))]), 'invalid task id'],
    ['bad cron', () => spec([task('a')], [], { schedule: { kind: 'cron', expr: '0 25 * * *', timezone: 'UTC' } }), 'invalid cron "0 25 * * *"'],
    ['bad timezone', () => spec([task('a')], [], { timezone: 'Moon/Base' }), 'invalid timezone "Moon/Base"'],
    ['bad rate', () => spec([task('a')], [], { schedule: { kind: 'rate', everyMs: 1000 } }), 'a rate must be a whole number of minutes'],
    ['bad duration', () => spec([task('a', { retryDelayMs: -5 })]), 'task a: invalid retryDelay'],
    ['bad timeout', () => spec([task('a', { executionTimeoutMs: Number.NaN })]), 'invalid executionTimeout'],
    ['bad startDate', () => spec([task('a')], [], { startDate: 'soon' }), 'startDate "soon" is not an ISO-8601 instant'],
    ['naive startDate', () => spec([task('a')], [], { startDate: '2026-01-01T00:00:00' }), 'is not an ISO-8601 instant'],
    [
      'end before start',
      () => spec([task('a')], [], { startDate: '2026-02-01T00:00:00Z', endDate: '2026-01-01T00:00:00Z' }),
      'endDate 2026-01-01T00:00:00Z is before startDate 2026-02-01T00:00:00Z',
    ],
    ['maxActiveRuns 0', () => spec([task('a')], [], { maxActiveRuns: 0 }), 'maxActiveRuns must be an integer >= 1, got 0'],
    ['maxActiveTasks 0.5', () => spec([task('a')], [], { maxActiveTasks: 0.5 }), 'maxActiveTasks must be an integer >= 1, got 0.5'],
    ['unknown trigger rule', () => spec([task('a', { triggerRule: 'sometimes' as never })]), 'unknown trigger rule "sometimes" (expected one of: all_success'],
    ['negative retries', () => spec([task('a', { retries: -1 })]), 'retries must be an integer >= 0'],
    ['maxParallelism too big', () => spec([task('a')], [], { maxParallelism: 3 }), 'maxParallelism must be an integer between 1'],
  ])('%s', (_name, make, fragment) => {
    expect(message(() => validateDagSpec(make()))).toContain(fragment);
  });

  it('checks sensor types against the known list, naming the options', () => {
    const sensor = task('wait', {
      kind: 'sensor',
      sensor: { type: 'ftp', pokeContext: {}, mode: 'batched', pokeIntervalMs: 60_000, timeoutMs: 1000, softFail: false, exponentialBackoff: false },
    });
    expect(() => validateDagSpec(spec([sensor]))).not.toThrow();
    const m = message(() => validateDagSpec(spec([sensor]), { knownSensorTypes: [...BUILTIN_SENSOR_TYPES, 'partition_ready'] }));
    expect(m).toBe(
      'dags/d.ts: dag d: task wait: unknown sensor type "ftp" (built-in: file, s3_key, http, external_task, time; defined with defineSensor in this bundle: partition_ready)',
    );
    const badMode = task('w', { kind: 'sensor', sensor: { ...sensor.sensor!, type: 'file', mode: 'poke' as never } });
    expect(message(() => validateDagSpec(spec([badMode])))).toContain('unknown sensor mode "poke"');
  });

  it('accepts an empty DAG', () => {
    expect(() => validateDagSpec(spec([], [], { maxParallelism: 0 }))).not.toThrow();
  });
});
