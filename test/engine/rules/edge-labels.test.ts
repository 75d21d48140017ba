/**
 * Edge labels (issue 23 §2; Airflow's `Label`): `a.before(b, { label })` and
 * `b.after(a, { label })` label every edge of the call; the spec check refuses a label on a
 * pair that is not an edge, and a label that is not a short string.
 */
import { describe, expect, it } from 'vitest';
import { validateDagSpec } from '../../../lib/engine/index.js';
import { dag } from '../../../lib/sdk/index.js';

describe('edge labels', () => {
  it('label each edge a before/after call makes, groups and task groups included', () => {
    const d = dag('labels', {}, ({ task, group }) => {
      const a = task('a', () => 1);
      const [b, c] = [task('b', () => 2), task('c', () => 3)];
      a.before([b, c], { label: 'fan out' });
      const g = group('g', ({ task: t }) => { t('x', () => 4); });
      g.after(b, { label: 'into g' });
      task('d', () => 5).after(c);
    });
    expect(d.spec.edgeLabels).toEqual({ a: { b: 'fan out', c: 'fan out' }, b: { 'g.x': 'into g' } });
    expect(d.spec.tasks.find((t) => t.taskId === 'c')!.downstream).toEqual(['d']);
  });

  it('a DAG without labels has no edgeLabels field', () => {
    expect(dag('plain', {}, ({ task }) => { task('a', () => 1).before(task('b', () => 2)); }).spec.edgeLabels).toBeUndefined();
  });

  it('the spec check refuses a label on a pair that is no edge, or one that is not a short string', () => {
    const spec = structuredClone(dag('chk', {}, ({ task }) => { task('a', () => 1).before(task('b', () => 2), { label: 'ok' }); }).spec);
    expect(() => validateDagSpec(spec)).not.toThrow();
    expect(() => validateDagSpec({ ...spec, edgeLabels: { b: { a: 'back' } } })).toThrow('edge label b -> a: there is no such edge');
    expect(() => validateDagSpec({ ...spec, edgeLabels: { a: { b: '' } } })).toThrow('edge label a -> b: a label is a string of 1 to 200 characters');
    expect(() => dag('chk2', {}, ({ task }) => { task('a', () => 1).before(task('b', () => 2), { label: 7 as unknown as string }); })).toThrow(/a label is a string/);
  });
});
