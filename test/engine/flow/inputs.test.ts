/**
 * Typed TaskFlow at run time (issue 23 §1, ADR 0021), on the memory store and on DynamoDB
 * Local: inputs delivered by name, properties stored and read as their own XCom keys,
 * partial/expand/expandKwargs/.map/zip, the mapped output in map-index order, and the old
 * style beside it.
 */
import { describe, expect, it } from 'vitest';
import { dag, zip } from 'airless';
import { makeRuntime as makeRuntimeAt, runOnce } from '../../helpers/runtime.js';

// No retention TTL: DynamoDB Local's TTL sweep runs on real time, the suites' clock in 2026-01.
const makeRuntime = (dags: Parameters<typeof makeRuntimeAt>[0]) => makeRuntimeAt(dags, { config: { runRetentionMs: 0 } });

async function run(d: ReturnType<typeof dag>) {
  const { rt } = await makeRuntime([d]);
  const r = await runOnce(rt, d.spec.dagId);
  const xcom = (taskId: string, key = 'return_value') => rt.ports.store.getXcom({ dagId: d.spec.dagId, runId: r.run.runId, taskId, key });
  return { ...r, xcom };
}

describe('typed TaskFlow inputs', () => {
  it('delivers inputs by name: literals, outputs and properties; a property is stored under its own key', async () => {
    const seen: unknown[] = [];
    const d = dag('typed_etl', {}, ({ task }) => {
      const extract = task('extract', async () => ({ rows: [1, 2, 3], source: 'db', big: 'x'.repeat(100) }));
      const double = task('double', async (_ctx, { n, factor }: { n: number[]; factor: number }) => n.reduce((s, x) => s + x, 0) * factor);
      const report = task('report', async (ctx, inputs: { total: number; source: string }) => {
        seen.push(ctx.taskId, inputs);
        return `${inputs.source}:${inputs.total}`;
      });
      const e = extract();
      report({ total: double({ n: e.rows, factor: 2 }), source: e.source });
    });
    const spec = (id: string) => d.spec.tasks.find((t) => t.taskId === id)!;
    expect(spec('double').inputs).toEqual({ n: { task: 'extract', key: 'rows' }, factor: { value: 2 } });
    expect(spec('report').upstream).toEqual(['double', 'extract']);
    expect(spec('extract').outputKeys).toEqual(['rows', 'source']);

    const r = await run(d);
    expect(r.run.state).toBe('success');
    expect(seen).toEqual(['report', { total: 12, source: 'db' }]);
    expect(await r.xcom('report')).toBe('db:12');
    // multiple_outputs: the keys read are XComs of their own, the whole value stays in return_value.
    expect(await r.xcom('extract', 'rows')).toEqual([1, 2, 3]);
    expect(await r.xcom('extract', 'source')).toBe('db');
    expect(await r.xcom('extract', 'big')).toBeUndefined();
    expect(await r.xcom('extract')).toMatchObject({ rows: [1, 2, 3], source: 'db' });
  });

  it('a plain task created by its message, claimed at once (ADR 0020), reads its inputs from the upstream it follows', async () => {
    const d = dag('typed_claimed', {}, ({ task }) => {
      const extract = task('extract', async () => ({ rows: [1, 2, 3] }));
      const sum = task('sum', async (_ctx, { n }: { n: number[] }) => n.reduce((s, x) => s + x, 0));
      sum({ n: extract().rows });
    });
    const { rt } = await makeRuntime([d]);
    // The state each task's item was first written in: no item before its claim.
    const first: Record<string, string> = {};
    const put = rt.ports.store.putTask.bind(rt.ports.store);
    rt.ports.store.putTask = async (ti) => ((first[ti.taskId] ??= ti.state), put(ti));
    const r = await runOnce(rt, 'typed_claimed');
    expect(r.run.state).toBe('success');
    expect(first).toEqual({ extract: 'running', sum: 'running' });
    expect(await rt.ports.store.getXcom({ dagId: 'typed_claimed', runId: r.run.runId, taskId: 'sum', key: 'return_value' })).toBe(6);
  });

  it('reads deeper properties and whole outputs of mapped tasks (their results in map-index order)', async () => {
    const d = dag('typed_deep', {}, ({ task }) => {
      const cfg = task('cfg', async () => ({ db: { host: 'h1', port: 5432 } }));
      const sq = task('sq', async (_ctx, x: number) => x * x);
      const use = task('use', async (_ctx, i: { host: string; squares: number[] }) => `${i.host}:${i.squares.join(',')}`);
      const c = cfg();
      use({ host: c.db.host, squares: sq.expand([3, 1, 2]) });
    });
    expect(d.spec.tasks.find((t) => t.taskId === 'use')!.inputs!.host).toEqual({ task: 'cfg', key: 'db', path: ['host'] });
    const r = await run(d);
    expect(r.run.state).toBe('success');
    expect(await r.xcom('use')).toBe('h1:9,1,4');
  });

  it('partial + expand gives each instance { ...fixed, element }; the mapped output is in map-index order', async () => {
    const d = dag('typed_partial', {}, ({ task }) => {
      const list = task('list', async () => ['a', 'b', 'c']);
      const each = task('each', async (ctx, i: { prefix: string; file: string }) => `${ctx.mapIndex}:${i.prefix}${i.file}`);
      const total = task('total', async (_ctx, { all }: { all: string[] }) => all.join('|'));
      total({ all: each.partial({ prefix: 'p/' }).expand({ file: list() }) });
    });
    const r = await run(d);
    expect(r.run.state).toBe('success');
    expect(r.states).toMatchObject({ 'each#0': 'success', 'each#2': 'success', total: 'success' });
    expect(await r.xcom('total')).toBe('0:p/a|1:p/b|2:p/c');
  });

  it('expandKwargs over a .map() of an output: the function runs per instance, before its element is merged', async () => {
    const d = dag('typed_kwargs', {}, ({ task }) => {
      const list = task('list', async () => ['x.csv', 'y.csv']);
      const copy = task('copy', async (_ctx, i: { src: string; dst: string; mode: string }) => `${i.mode} ${i.src}>${i.dst}`);
      const done = task('done', async (_ctx, { out }: { out: string[] }) => out);
      done({ out: copy.partial({ mode: 'cp' }).expandKwargs(list().map((f) => ({ src: f, dst: `out/${f}` }))) });
    });
    expect(d.spec.tasks.find((t) => t.taskId === 'copy')!.expand).toEqual({ source: { task: 'list' }, kwargs: true });
    const r = await run(d);
    expect(r.run.state).toBe('success');
    expect(await r.xcom('done')).toEqual(['cp x.csv>out/x.csv', 'cp y.csv>out/y.csv']);
  });

  it('expandKwargs without partial: the .map() still runs per instance (no fixed inputs is {}), a plain list of objects too', async () => {
    const d = dag('typed_kwargs_bare', {}, ({ task }) => {
      const files = task('files', async () => ['a.csv', 'bb.csv'])();
      const size = task('size', async (_ctx, { f }: { f: string }) => f.length).expandKwargs(files.map((f) => ({ f })));
      const greet = task('greet', async (_ctx, { who }: { who: string }) => `hi ${who}`).expandKwargs([{ who: 'x' }, { who: 'y' }]);
      task('done', async (_ctx, i: { sizes: number[]; greets: string[] }) => i)({ sizes: size, greets: greet });
    });
    expect(d.spec.tasks.find((t) => t.taskId === 'size')!.inputs).toEqual({});
    const r = await run(d);
    expect(r.run.state).toBe('success');
    expect(await r.xcom('done')).toEqual({ sizes: [5, 6], greets: ['hi x', 'hi y'] });
  });

  it('.map() on a plain input maps each element in the consuming task; zip pairs outputs (shortest, or longest with fillValue)', async () => {
    const d = dag('typed_zip', {}, ({ task }) => {
      const names = task('names', async () => ['a', 'b', 'c']);
      const sizes = task('sizes', async () => [1, 2]);
      const upper = task('upper', async (_ctx, { xs }: { xs: string[] }) => xs.join(''));
      const pair = task('pair', async (_ctx, { p }: { p: [string, number] }) => `${p[0]}${p[1]}`);
      const longest = task('longest', async (_ctx, { ps }: { ps: [string | null, number | null][] }) => JSON.stringify(ps));
      const n = names();
      const s = sizes();
      upper({ xs: n.map((x) => x.toUpperCase()) });
      const pairs = pair.expand({ p: zip(n.map((x) => `${x}!`), s) });
      longest({ ps: zip(n, s, { fillValue: null }) }).after(pairs);
    });
    const r = await run(d);
    expect(r.run.state).toBe('success');
    expect(await r.xcom('upper')).toBe('ABC');
    expect(r.tasks['pair#1']!.mapValue).toBe('"b!2"');
    expect(r.states['pair#2']).toBeUndefined();
    expect(await r.xcom('longest')).toBe('[["a",1],["b",2],["c",null]]');
  });

  it('keeps the old style working beside it: .before/.after, ctx.xcom.pull, expand over a handle', async () => {
    const d = dag('mixed_style', {}, ({ task }) => {
      const list = task('list', async () => [1, 2]);
      const each = task('each', async (_ctx, x: number) => x + 1).expand(list);
      const pull = task('pull', async (ctx) => (await ctx.xcom.pull<number[]>('each')).join(','));
      each.before(pull);
      const typed = task('typed', async (_ctx, { v }: { v: string }) => `v=${v}`);
      typed({ v: pull() });
    });
    const r = await run(d);
    expect(r.run.state).toBe('success');
    expect(await r.xcom('typed')).toBe('v=2,3');
  });

  it("fails the consumer in one line when a .map() source is not an array (its retries apply, as for Airflow's ValueError)", async () => {
    const d = dag('typed_not_array', {}, ({ task }) => {
      const one = task('one', async () => 'not a list' as unknown as string[]);
      const use = task('use', async (_ctx, { xs }: { xs: string[] }) => xs, { retries: 3 });
      use({ xs: one().map((x) => x) });
    });
    const r = await run(d);
    expect(r.states.use).toBe('failed');
    expect(r.tasks.use!.tryNumber).toBe(4);
    expect(r.tasks.use!.error).toMatch(/input "xs" is one\(\)\.map\(fn\), which needs an array to map over, got a string/);
  });

  it('fails a zip of a non-array without retries, naming the task and the input', async () => {
    const d = dag('typed_bad_zip', {}, ({ task }) => {
      const a = task('a', async () => [1]);
      const b = task('b', async () => 7 as unknown as number[]);
      const use = task('use', async (_ctx, { z }: { z: [number, number][] }) => z, { retries: 2 });
      use({ z: zip(a(), b()) });
    });
    const r = await run(d);
    expect(r.states.use).toBe('failed');
    expect(r.tasks.use!.tryNumber).toBe(1);
    expect(r.tasks.use!.error).toBe('task use: input "z": cannot zip the output of task b: it must be an array, got a number');
  });

  it('fails a task whose keys other tasks read when it returns something that is not an object (as Airflow\'s multiple_outputs)', async () => {
    const d = dag('typed_not_object', {}, ({ task }) => {
      const src = task('src', async () => [1, 2] as unknown as { n: number });
      task('use', async (_ctx, i: { n: number }) => i.n)({ n: src().n });
    });
    const r = await run(d);
    expect(r.states).toMatchObject({ src: 'failed', use: 'upstream_failed' });
    expect(r.tasks.src!.error).toBe('task src returned an array, but tasks read its keys n: return an object');
    expect(await r.xcom('src')).toBeUndefined();
  });
});
