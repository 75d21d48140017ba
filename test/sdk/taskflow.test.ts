/**
 * Typed TaskFlow at build time (issue 23 §1 and "Bad input"): what a call records in the
 * spec, and each refusal, naming the DAG and the task (the build adds the file: see
 * test/build/invalid.test.ts's corpus).
 */
import { describe, expect, it } from 'vitest';
import { dag, zip } from 'airless';
import { dagError, edges } from '../helpers/dag-spec.js';

const spec = (d: ReturnType<typeof dag>, id: string) => d.spec.tasks.find((t) => t.taskId === id)!;

describe('calling a task handle', () => {
  it('wires an edge from every task whose output is an input, and records literals as written', () => {
    const d = dag('wiring', {}, ({ task }) => {
      const a = task('a', async () => ({ x: 1, y: { z: [1] } }));
      const b = task('b', async () => 2);
      const c = task('c', async (_ctx, i: { x: number; z: number[]; b: number; lit: { k: string[] }; opt?: string }) => i);
      const out = a();
      c({ x: out.x, z: out.y.z, b: b(), lit: { k: ['v'] }, opt: undefined });
    });
    expect(edges(d)).toEqual(['a>c', 'b>c']);
    expect(spec(d, 'c').inputs).toEqual({
      x: { task: 'a', key: 'x' }, z: { task: 'a', key: 'y', path: ['z'] }, b: { task: 'b' }, lit: { value: { k: ['v'] } },
    });
    expect(spec(d, 'a').outputKeys).toEqual(['x', 'y']);
    expect(spec(d, 'b').outputKeys).toBeUndefined();
  });

  it('a call with no argument places a task that takes no inputs; an output is also linkable', () => {
    const d = dag('no_inputs', {}, ({ task }) => {
      const a = task('a', async () => 1);
      const b = task('b', async () => 2);
      a().before(b);
      b.after(task('c', async () => 3)());
    });
    expect(spec(d, 'a').inputs).toEqual({});
    expect(spec(d, 'b').inputs).toBeUndefined();
    expect(edges(d)).toEqual(['a>b', 'c>b']);
  });

  it('records partial + expand, expandKwargs and zip in the spec', () => {
    const d = dag('mapping', {}, ({ task }) => {
      const l = task('l', async () => ['a']);
      const n = task('n', async () => [1]);
      const each = task('each', async (_ctx, i: { p: string; f: string }) => i.p + i.f);
      const kw = task('kw', async (_ctx, i: { p: string; f: string }) => i.p + i.f);
      const pair = task('pair', async (_ctx, i: { z: [string | null, number | null] }) => i.z);
      const lo = l();
      const no = n();
      each.partial({ p: 'x/' }).expand({ f: lo });
      kw.partial({ p: 'y/' }).expandKwargs(lo.map((f) => ({ f })));
      pair.expand({ z: zip(lo, no, { fillValue: null }) });
    });
    expect(spec(d, 'each')).toMatchObject({ expand: { product: { f: { task: 'l' } } }, inputs: { p: { value: 'x/' } } });
    expect(spec(d, 'kw')).toMatchObject({ expand: { source: { task: 'l' }, kwargs: true }, inputs: { p: { value: 'y/' } } });
    expect(spec(d, 'pair').expand).toEqual({ product: { z: { zip: [{ task: 'l' }, { task: 'n' }], fill: { value: null } } } });
    expect(edges(d)).toEqual(['l>each', 'l>kw', 'l>pair', 'n>pair']);
  });

  it('an output is a reference: turning it into a string says so', () => {
    const e = dagError(() => dag('as_string', {}, ({ task }) => {
      const a = task('a', async () => ({ n: 1 }));
      task('b', async (_ctx, i: { s: string }) => i.s)({ s: `n=${a().n}` });
    }));
    expect(e.message).toBe("a().n is a reference to a task's output, not its value: pass it as an input of a task and read the value there");
  });
});

describe('refused at build, naming the DAG and the task', () => {
  it('calling a handle twice, or calling and expanding it', () => {
    expect(dagError(() => dag('twice', {}, ({ task }) => {
      const a = task('a', async () => 1);
      a();
      a();
    })).message).toBe('dag twice: task a: is called twice: a task has one place in the DAG, so call (or expand) it once and reuse its output');
    expect(dagError(() => dag('call_expand', {}, ({ task }) => {
      const a = task('a', async (_ctx, x: number) => x);
      a.expand([1]);
      (a as unknown as () => void)();
    })).message).toMatch(/^dag call_expand: task a: is called after it was expanded/);
  });

  it('an input that is neither an output nor a JSON literal', () => {
    const bad = (value: unknown) => dagError(() => dag('bad_input', {}, ({ task }) => {
      const a = task('a', async () => 1);
      task('b', async (_ctx, _i: { v: unknown }) => 1)({ v: value === 'HANDLE' ? a : value });
    })).message;
    expect(bad(new Date('2026-01-01'))).toBe('dag bad_input: task b: input "v" holds a Date (pass date.toISOString(), or the output of a task)');
    expect(bad({ when: new Map() })).toBe('dag bad_input: task b: input "v" holds a Map at .when (a literal input is JSON: it is written into the manifest)');
    expect(bad([1, Number.NaN])).toBe('dag bad_input: task b: input "v" is the number NaN at [1], which JSON cannot hold');
    expect(bad(() => 1)).toBe('dag bad_input: task b: input "v" holds a function: a literal input is JSON (it is written into the manifest)');
    expect(bad('HANDLE')).toBe('dag bad_input: task b: input "v" is the task handle "a", not its output: call it (a()) and pass what the call returns');
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(bad(cyclic)).toBe('dag bad_input: task b: input "v" refers back to itself at .self');
  });

  it('an output hidden inside a literal', () => {
    const e = dagError(() => dag('hidden', {}, ({ task }) => {
      const a = task('a', async () => 1);
      task('b', async (_ctx, _i: { v: unknown[] }) => 1)({ v: [1, a()] });
    }));
    expect(e.message).toBe('dag hidden: task b: input "v" holds the output a() at [1] inside a literal, which draws no edge: pass each output as an input of its own');
  });

  it('a cycle made through inputs', () => {
    const e = dagError(() => dag('loop', {}, ({ task }) => {
      const a = task('a', async (_ctx, _i: { x?: number }) => 1);
      const b = task('b', async (_ctx, _i: { y: number }) => 2);
      const out = a();
      const bo = b({ y: out });
      // a's output feeds b; now make b feed... a task already placed cannot be called again,
      // so the cycle is closed through another input: c reads b and is made upstream of a.
      const c = task('c', async (_ctx, _i: { z: number }) => 3);
      c.before(a);
      c({ z: bo });
    }));
    expect(e.message).toBe('dag loop: task c: input "z" reads task "b", which is downstream of "c": that makes a cycle c -> a -> b -> c');
  });

  it('a partial input that is also expanded', () => {
    const e = dagError(() => dag('both', {}, ({ task }) => {
      const l = task('l', async () => ['a']);
      task('each', async (_ctx, i: { f: string }) => i.f).partial({ f: 'x' }).expand({ f: l() } as never);
    }));
    expect(e.message).toBe('dag both: task each: input "f" is given by partial() and expanded too: give it once');
  });

  it('inputs on a sensor, several arguments, and something that is not an object of inputs', () => {
    expect(dagError(() => dag('s', {}, ({ sensor }) => {
      (sensor('w', { type: 'time', pokeContext: { after: '1h' } }) as unknown as (i: object) => void)({ x: 1 });
    })).message).toBe('dag s: task w: a sensor takes no inputs');
    expect(dagError(() => dag('args', {}, ({ task }) => {
      (task('a', async () => 1) as unknown as (...i: unknown[]) => void)({}, {});
    })).message).toBe('dag args: task a: takes one object of named inputs, got 2 arguments');
    expect(dagError(() => dag('positional', {}, ({ task }) => {
      const x = task('x', async () => 1)();
      (task('a', async (_ctx, _i: { n: number }) => 1) as unknown as (i: unknown) => void)(x);
    })).message).toBe('dag positional: task a: takes one object of named inputs, as a({ name: value }); got an output (name it: { rows: extract() })');
  });

  it('an output of another DAG', () => {
    let foreign: unknown;
    dag('other', {}, ({ task }) => {
      foreign = task('o', async () => 1)();
    });
    const e = dagError(() => dag('mine', {}, ({ task }) => {
      task('b', async (_ctx, _i: { v: number }) => 1)({ v: foreign as number });
    }));
    expect(e.message).toBe('dag mine: task b: the output o() belongs to another DAG: a task reads outputs of its own DAG only');
  });
});
