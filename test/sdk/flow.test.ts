/**
 * `chain` and `chainLinear` as Airflow's `chain` and `chain_linear` link: a task or group next
 * to a list broadcasts, two adjacent lists link pairwise (`chain`) or every-to-every
 * (`chainLinear`), and the refusals name the DAG.
 */
import { describe, expect, it } from 'vitest';
import { chain, chainLinear, dag } from 'airless';
import type { TaskHandle } from 'airless';
import { InvalidDagError } from '../../lib/engine/index.js';
import { dagError, edges } from '../helpers/dag-spec.js';

type Tasks = Record<string, TaskHandle>;
/** A DAG with tasks a..g (or the ids given) linked by `link`. */
const build = (id: string, link: (t: Tasks) => void, ids = ['a', 'b', 'c', 'd', 'e', 'f', 'g']) =>
  dag(id, {}, ({ task }) => link(Object.fromEntries(ids.map((x) => [x, task(x, () => x)]))));

describe('chain (Airflow chain)', () => {
  it('links two adjacent lists pairwise, as Airflow: chain(a, [b, c], [d, e], f)', () => {
    const d = build('pairwise', ({ a, b, c, d: dd, e, f }) => chain(a, [b, c], [dd, e], f));
    expect(edges(d)).toEqual(['a>b', 'a>c', 'b>d', 'c>e', 'd>f', 'e>f']);
  });

  it('broadcasts a single task or group next to a list, and links singles in sequence', () => {
    const d = build('broadcast', ({ a, b, c, d: dd }) => chain(a, [b, c], dd));
    expect(edges(d)).toEqual(['a>b', 'a>c', 'b>d', 'c>d']);
    expect(edges(build('straight', ({ a, b, c }) => chain(a, b, c)))).toEqual(['a>b', 'b>c']);
    const g = dag('with_group', {}, ({ task, group }) => {
      const a = task('a', () => 1);
      const load = group('load', ({ task }) => { task('p', () => 1); task('q', () => 1); });
      chain([a], load, [task('x', () => 1), task('y', () => 1)]);
    });
    expect(edges(g)).toEqual(['a>load.p', 'a>load.q', 'load.p>x', 'load.p>y', 'load.q>x', 'load.q>y']);
  });

  it('three lists in a row stay parallel lanes', () => {
    const d = build('lanes', ({ a, b, c, d: dd, e, f }) => chain([a, b], [c, dd], [e, f]));
    expect(edges(d)).toEqual(['a>c', 'b>d', 'c>e', 'd>f']);
  });

  it('refuses adjacent lists of different lengths at build, naming the DAG and the lists', () => {
    const e = dagError(() => build('uneven', ({ a, b, c, d: dd, e }) => chain(a, [b, c], [dd, e, a])));
    expect(e.dagId).toBe('uneven');
    expect(e.message).toContain('got 2 [b, c] and 3 [d, e, a]');
    expect(e.message).toContain('chainLinear');
  });

  it('empty lists link nothing and nothing at all is no error (as Airflow)', () => {
    expect(edges(build('empty', ({ a, b }) => chain(a, [], b)))).toEqual([]);
    expect(() => chain()).not.toThrow();
    expect(() => chain([], [])).not.toThrow();
  });

  it('refuses a string where a handle belongs', () => {
    expect(() => chain('a' as unknown as TaskHandle)).toThrow(/a string; link the handle/);
    const e = dagError(() => build('stringy', ({ a }) => chain(a, 'b' as unknown as TaskHandle)));
    expect(e.dagId).toBe('stringy');
  });
});

describe('chainLinear (Airflow chain_linear)', () => {
  it('links every task of each element to every task of the next', () => {
    const d = build('linear', ({ a, b, c, d: dd, e, f, g }) => chainLinear(a, [b, c], [dd, e, f], g));
    expect(edges(d)).toEqual(['a>b', 'a>c', 'b>d', 'b>e', 'b>f', 'c>d', 'c>e', 'c>f', 'd>g', 'e>g', 'f>g']);
  });

  it('refuses a call that links nothing, naming the DAG', () => {
    const e = dagError(() => build('lonely', ({ a, b }) => chainLinear([a, b])));
    expect(e.dagId).toBe('lonely');
    expect(e.message).toContain('chainLinear(...tasks)');
    expect(() => chainLinear()).toThrow(InvalidDagError);
  });
});
