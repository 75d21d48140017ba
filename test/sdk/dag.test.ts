import { describe, expect, expectTypeOf, it } from 'vitest';
import fc from 'fast-check';
import { chain, dag, defineSensor, isDagDefinition, isSensorDefinition, type TaskContext } from 'airless';
import { InvalidDagError } from '../../lib/engine/index.js';
import { dagError, edges } from '../helpers/dag-spec.js';
import { dagWidth } from '../../lib/sdk/width.js';
import etlDaily, { partitionReady } from '../fixtures/valid-dags/basic/etl_daily.js';

describe('the authoring example', () => {
  it('builds the spec: edges, trigger rules, retries in ms, schedule, width', () => {
    const s = etlDaily.spec;
    expect(isDagDefinition(etlDaily)).toBe(true);
    expect(s).toMatchObject({
      dagId: 'etl_daily',
      file: '',
      schedule: { kind: 'cron', expr: '0 2 * * *', timezone: 'Europe/Berlin' },
      timezone: 'Europe/Berlin',
      startDate: '2026-01-01T00:00:00.000Z',
      catchup: false,
      maxActiveRuns: 1,
      maxActiveTasks: 16,
      params: { region: 'eu' },
      maxParallelism: 2,
    });
    expect(s).not.toHaveProperty('endDate');
    expect(edges(etlDaily)).toEqual([
      'audit>load', 'extract>audit', 'extract>transform', 'load>pick', 'pick>delta', 'pick>full', 'transform>load',
    ]);
    const byId = Object.fromEntries(s.tasks.map((t) => [t.taskId, t]));
    expect(byId.load).toMatchObject({ triggerRule: 'none_failed', upstream: ['audit', 'transform'], downstream: ['pick'] });
    expect(byId.pick).toMatchObject({ kind: 'branch', downstream: ['delta', 'full'] });
    expect(byId.extract).toMatchObject({
      retries: 2, retryDelayMs: 30_000, retryExponentialBackoff: true, maxRetryDelayMs: 600_000, executionTimeoutMs: 300_000,
    });
    expect(byId.audit.retries).toBe(0);
    expect(JSON.parse(JSON.stringify(s))).toEqual(s);
  });

  it('keeps the code of each task', async () => {
    expect(Object.keys(etlDaily.tasks.get('pick')!)).toEqual(['execute']);
    const pick = etlDaily.tasks.get('pick')!.execute;
    expect(await pick({ conf: { full: true } })).toEqual(['full']);
    expect(await pick({ conf: {} })).toEqual(['delta']);
    const transform = etlDaily.tasks.get('transform')!.execute;
    expect(await transform({ xcom: { pull: async () => ({ rows: 21 }) } })).toBe(42);
  });

  it('defineSensor returns the type and a poke that sees only the poke context', async () => {
    expect(isSensorDefinition(partitionReady)).toBe(true);
    expect(partitionReady.type).toBe('partition_ready');
    expect(await partitionReady.poke({ table: 'orders', ds: '2026-01-01' })).toBe(true);
    expect(await partitionReady.poke({ table: '', ds: '2026-01-01' })).toBe(false);
    expect(() => defineSensor('bad type', () => true)).toThrow('invalid sensor type "bad type"');
  });
});

describe('handles', () => {
  it('have no then: awaiting or resolving a handle gives the handle back', async () => {
    let captured: unknown[] = [];
    dag('thenless', {}, ({ task }) => {
      const a = task('a', async () => 1);
      const group = a.before(task('b', async () => 2), task('c', async () => 3));
      captured = [a, group];
    });
    for (const h of captured) {
      expect('then' in (h as object)).toBe(false);
      expect(await Promise.resolve(h)).toBe(h);
      expect(await h).toBe(h);
    }
  });

  it('before returns its single target, a group for several; after returns itself', () => {
    const d = dag('links', {}, ({ task }) => {
      const [a, b, c, d2, e] = ['a', 'b', 'c', 'd', 'e'].map((id) => task(id, async () => id));
      expect(a.before(b)).toBe(b);
      const g = b.before(c, d2);
      expect(g.taskIds).toEqual(['c', 'd']);
      expect(g.before(e)).toBe(e);
      expect(e.after(a)).toBe(e);
    });
    expect(edges(d)).toEqual(['a>b', 'a>e', 'b>c', 'b>d', 'c>e', 'd>e']);
  });

  it('chain links in sequence and treats arrays as groups', () => {
    const d = dag('chained', {}, ({ task }) => {
      const [a, b, c, x] = ['a', 'b', 'c', 'x'].map((id) => task(id, async () => id));
      chain(a, [b, c], x);
    });
    expect(edges(d)).toEqual(['a>b', 'a>c', 'b>x', 'c>x']);
    const straight = dag('straight', {}, ({ task }) => {
      chain(task('a', async () => 1), task('b', async () => 2), task('c', async () => 3));
    });
    expect(edges(straight)).toEqual(['a>b', 'b>c']);
  });

  it('deferrable tasks keep their named methods; sensors take defaults', () => {
    const d = dag('defer', { defaultArgs: { retries: 1, retryExponentialBackoff: true } }, ({ task, sensor }) => {
      const job = task('job', {
        execute: async (ctx) => ctx.defer({ trigger: { after: '1m' }, resume: 'check' }),
        check: async (_ctx, { kwargs, event }) => [kwargs, event.reason],
      });
      sensor('landed', { type: 'file', pokeContext: { path: '/tmp/{{ ds }}' } }).before(job);
      sensor('custom', { type: partitionReady, pokeContext: { table: 't' } }, { pokeInterval: '3m', maxPokeInterval: '1h' }).before(job);
    });
    const byId = Object.fromEntries(d.spec.tasks.map((t) => [t.taskId, t]));
    expect(byId.job).toMatchObject({ methods: ['check'], retries: 1, maxRetryDelayMs: 86_400_000 });
    expect(Object.keys(d.tasks.get('job')!).sort()).toEqual(['check', 'execute']);
    expect(byId.landed.sensor).toEqual({
      type: 'file', pokeContext: { path: '/tmp/{{ ds }}' }, mode: 'batched', pokeIntervalMs: 60_000,
      timeoutMs: 7 * 86_400_000, softFail: false, exponentialBackoff: false,
    });
    expect(byId.custom.sensor).toMatchObject({ type: 'partition_ready', pokeIntervalMs: 180_000, maxPokeIntervalMs: 3_600_000 });
    expect(d.sensors).toEqual([partitionReady]);
    expect(d.tasks.get('landed')).toEqual({});
  });

  it('writes silentFail (Airflow silent_fail) into the manifest only when set, and refuses a non-boolean', () => {
    const d = dag('silent', {}, ({ sensor }) => {
      sensor('quiet', { type: 'file', pokeContext: { path: '/tmp/x' } }, { silentFail: true });
    });
    expect(d.spec.tasks[0].sensor).toMatchObject({ silentFail: true, softFail: false });
    const bad = () => dag('loud', {}, ({ sensor }) => {
      sensor('quiet', { type: 'file', pokeContext: { path: '/tmp/x' } }, { silentFail: 'yes' as never });
    });
    expect(bad).toThrow(InvalidDagError);
    expect(bad).toThrow(/silentFail must be true or false, got "yes"/);
  });

  it('applies Airflow defaults', () => {
    const d = dag('defaults', {}, ({ task }) => void task('a', async () => 1));
    expect(d.spec).toMatchObject({
      schedule: null, timezone: 'UTC', catchup: false, maxActiveRuns: 16, maxActiveTasks: 16, params: {}, tags: [], pausedOnCreation: false,
    });
    expect(d.spec.tasks[0]).toEqual({
      taskId: 'a', kind: 'task', retries: 0, retryDelayMs: 300_000, retryExponentialBackoff: false, triggerRule: 'all_success',
      upstream: [], downstream: [],
    });
  });

  it('reads a naive startDate in the DAG timezone', () => {
    const d = dag('tz', { schedule: '@daily', timezone: 'Europe/Berlin', startDate: '2026-01-01' }, () => {});
    expect(d.spec.startDate).toBe('2025-12-31T23:00:00.000Z');
  });
});

describe('errors name the DAG and the task', () => {
  it.each<[string, () => unknown, string]>([
    ['duplicate task', () => dag('d', {}, ({ task }) => { task('a', async () => 1); task('a', async () => 2); }), 'dag d: task a: duplicate task id "a"'],
    ['bad duration', () => dag('d', {}, ({ task }) => void task('a', async () => 1, { retryDelay: '5 parsecs' })), 'dag d: task a: invalid retryDelay: invalid duration "5 parsecs"'],
    ['bad default duration', () => dag('d', { defaultArgs: { executionTimeout: 'soon' } }, ({ task }) => void task('a', async () => 1)), 'task a: invalid executionTimeout'],
    ['bad cron', () => dag('d', { schedule: '0 0 * *' }, () => {}), 'dag d: invalid cron "0 0 * *": expected 5 fields'],
    ['bad timezone', () => dag('d', { schedule: '@daily', timezone: 'Moon/Base' }, () => {}), 'dag d: invalid timezone "Moon/Base"'],
    ['bad startDate', () => dag('d', { startDate: '2026-02-30' }, () => {}), 'dag d: invalid startDate: "2026-02-30" is not a valid date'],
    ['cycle', () => dag('d', {}, ({ task }) => { const a = task('a', async () => 1); a.before(task('b', async () => 1)).before(a); }), 'dag d: cycle: a -> b -> a'],
    ['async build', () => dag('d', {}, (async () => {}) as never), 'the build callback must be synchronous'],
    ['foreign handle', () => {
      let other: any;
      dag('o', {}, ({ task }) => { other = task('x', async () => 1); });
      return dag('d', {}, ({ task }) => { task('a', async () => 1).before(other); });
    }, 'task "x" belongs to dag "o"'],
    ['string link', () => dag('d', {}, ({ task }) => { task('a', async () => 1).before('b' as never); }), 'cannot link "b"'],
    ['no execute', () => dag('d', {}, ({ task }) => void task('a', { check: async () => 1 } as never)), 'task a: a task body must be a function or an object with an execute method'],
  ])('%s', (_n, f, fragment) => {
    expect(dagError(f).message).toContain(fragment);
  });

  it('refuses links after dag() returned', () => {
    let handle: any;
    dag('late', {}, ({ task }) => { handle = task('a', async () => 1); });
    expect(dagError(() => handle.after(handle)).message).toContain('after dag() returned');
  });
});

describe('maxParallelism (DAG width)', () => {
  /** Brute force: the largest set of pairwise unreachable tasks. */
  function bruteWidth(n: number, es: Array<[number, number]>): number {
    const reach = Array.from({ length: n }, (_, i) => new Set([i]));
    for (let k = 0; k < n; k++) for (const [a, b] of es) for (const s of reach) if (s.has(a)) s.add(b);
    let best = 0;
    for (let mask = 1; mask < 1 << n; mask++) {
      const set = [...Array(n).keys()].filter((i) => mask & (1 << i));
      const ok = set.every((a) => set.every((b) => a === b || (!reach[a].has(b) && !reach[b].has(a))));
      if (ok) best = Math.max(best, set.length);
    }
    return best;
  }

  it('matches brute force on random small DAGs', () => {
    const arb = fc.integer({ min: 1, max: 8 }).chain((n) =>
      fc.tuple(fc.constant(n), fc.array(fc.tuple(fc.nat(n - 1), fc.nat(n - 1)), { maxLength: 16 })),
    );
    fc.assert(
      fc.property(arb, ([n, raw]) => {
        const es = raw.filter(([a, b]) => a < b) as Array<[number, number]>; // a < b: acyclic
        const tasks = Array.from({ length: n }, (_, i) => ({ taskId: `t${i}`, downstream: es.filter(([a]) => a === i).map(([, b]) => `t${b}`) }));
        return dagWidth(tasks) === bruteWidth(n, es);
      }),
      { numRuns: 200 },
    );
  });

  it('is fast for 1,000 tasks (a chain, a fan, layered)', () => {
    const chainTasks = Array.from({ length: 1000 }, (_, i) => ({ taskId: `t${i}`, downstream: i < 999 ? [`t${i + 1}`] : [] }));
    const fan = [{ taskId: 'root', downstream: Array.from({ length: 999 }, (_, i) => `t${i}`) }, ...Array.from({ length: 999 }, (_, i) => ({ taskId: `t${i}`, downstream: [] }))];
    const layered = Array.from({ length: 1000 }, (_, i) => ({
      taskId: `t${i}`,
      downstream: i < 900 ? Array.from({ length: 10 }, (_, k) => `t${(Math.floor(i / 100) + 1) * 100 + ((i * 7 + k * 13) % 100)}`) : [],
    }));
    const started = performance.now();
    expect(dagWidth(chainTasks)).toBe(1);
    expect(dagWidth(fan)).toBe(999);
    expect(dagWidth(layered)).toBe(100);
    expect(performance.now() - started).toBeLessThan(2000);
  });

  it('is computed by dag()', () => {
    const d = dag('wide', {}, ({ task }) => {
      const root = task('root', async () => 0);
      root.before(...Array.from({ length: 50 }, (_, i) => task(`leaf${i}`, async () => i)));
    });
    expect(d.spec.maxParallelism).toBe(50);
  });
});

describe('types', () => {
  it('type ctx and params for authors', () => {
    dag('typed', { params: { region: 'eu' } }, ({ task }) => {
      task('a', async (ctx) => {
        expectTypeOf(ctx).toMatchTypeOf<TaskContext>();
        expectTypeOf(ctx.params.region).toEqualTypeOf<string>();
        expectTypeOf(ctx.ds).toEqualTypeOf<string>();
        return ctx.params.anythingFromConf;
      });
    });
    expect(true).toBe(true);
  });
});

describe('the spec a DAG carries', () => {
  it('is the manifest JSON itself: nothing a JSON round trip would drop, change or add', () => {
    for (const d of [etlDaily, dag('odd', { description: undefined, tags: ['a'] }, ({ task }) => { task('a', () => 1, { retries: 2, retryDelay: '1s' }).before(task('b', () => 2)); })]) {
      expect(JSON.parse(JSON.stringify(d.spec))).toStrictEqual(d.spec);
    }
  });
});
