/**
 * `tsc` refuses a wiring whose types do not match (issue 23 §1). Each `@ts-expect-error`
 * below is checked by `npm run typecheck`: if the types let the wrong wiring through, the
 * directive is unused and the type-check fails. `expectTypeOf` pins what is inferred.
 * (`airless build` reporting such an error with file:line:col and exit 2: test/e2e/typed-build.test.ts.)
 */
import { describe, expect, expectTypeOf, it } from 'vitest';
import { dag, zip, type Output } from 'airless';

describe('typed TaskFlow types', () => {
  it('infers outputs from the task function and checks every input against its parameter', () => {
    const d = dag('types', {}, ({ task }) => {
      const extract = task('extract', async () => ({ rows: [1, 2], source: 'db', nested: { n: 1 } }));
      const double = task('double', async (_ctx, { n }: { n: number[] }) => n.length * 2);
      const report = task('report', async (_ctx, i: { total: number; source: string; note?: string }) => `${i.source}${i.total}`);
      const e = extract();
      expectTypeOf(e.rows).toEqualTypeOf<Output<number[]>>();
      expectTypeOf(e.nested.n).toEqualTypeOf<Output<number>>();
      const total = double({ n: e.rows });
      expectTypeOf(total).toEqualTypeOf<Output<number>>();
      expectTypeOf(report({ total, source: e.source })).toEqualTypeOf<Output<string>>();

      const list = task('list', async () => ['a', 'b']);
      const each = task('each', async (_ctx, i: { prefix: string; file: string }) => i.prefix.length + i.file.length);
      const l = list();
      expectTypeOf(each.partial({ prefix: 'p/' }).expand({ file: l })).toEqualTypeOf<Output<number[]>>();
      expectTypeOf(zip(l, e.rows)).toEqualTypeOf<Output<[string, number][]>>();
      expectTypeOf(l.map((s) => s.length)).toEqualTypeOf<Output<number[]>>();
    });
    expect(d.spec.tasks).toHaveLength(5);
  });
});

/** Never run: each line is a wiring tsc must refuse. */
export function wrongWirings(): void {
  dag('wrong', {}, ({ task }) => {
    const extract = task('extract', async () => ({ rows: [1, 2], source: 'db' }));
    const double = task('double', async (_ctx, { n }: { n: number[] }) => n.length);
    const report = task('report', async (_ctx, i: { total: number; source: string }) => i);
    const none = task('none', async () => 1);
    const e = extract();
    // @ts-expect-error a string[] is not a number[]
    double({ n: e.source });
    // @ts-expect-error a missing input
    report({ total: 1 });
    // @ts-expect-error an input the function does not take
    report({ total: 1, source: 's', extra: true });
    // @ts-expect-error a literal of the wrong type
    report({ total: 'one', source: 's' });
    // @ts-expect-error a task without inputs takes none
    none({ x: 1 });
    // @ts-expect-error a property the output does not have
    double({ n: e.rowz });
    // @ts-expect-error inputs are named: an output alone is not an object of inputs
    double(e.rows);
    const each = task('each', async (_ctx, i: { prefix: string; file: string }) => i);
    const list = task('list', async () => [1, 2]);
    // @ts-expect-error numbers to map over where the function takes strings
    each.partial({ prefix: 'p' }).expand({ file: list() });
    // @ts-expect-error a partial key that is not an input
    each.partial({ prefx: 'p' });
    // @ts-expect-error expandKwargs elements must be the remaining inputs
    each.partial({ prefix: 'p' }).expandKwargs(list().map((n) => ({ file: n })));
    // @ts-expect-error .map() exists on array outputs only
    e.source.map((x: string) => x);
  });
}
