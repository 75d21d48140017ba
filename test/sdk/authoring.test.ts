/**
 * The SDK's side of issue 23 §2: `schedule` as a Timetable object, `param(default, schema)`,
 * `displayName` and `doc` on DAGs and tasks, each refused at build with one line when wrong.
 */
import { describe, expect, it } from 'vitest';
import { InvalidDagError, validateDagSpec } from '../../lib/engine/index.js';
import { dag, param } from '../../lib/sdk/index.js';
import type { DagOptions } from '../../lib/sdk/index.js';

const build = (options: DagOptions, taskOpts: Record<string, unknown> = {}) => dag('d', options, ({ task }) => { task('t', () => 1, taskOpts); });
const refused = (f: () => unknown) => {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(InvalidDagError);
    return (e as Error).message;
  }
  throw new Error('not refused');
};

describe('schedule as a Timetable', () => {
  it('{ cron } is a cron trigger; createDataIntervals makes runs cover the interval; its timezone wins', () => {
    expect(build({ schedule: { cron: '0 2 * * *' } }).spec).toMatchObject({ schedule: { kind: 'cron', expr: '0 2 * * *', timezone: 'UTC' } });
    expect(build({ schedule: { cron: '0 2 * * *' } }).spec.createDataIntervals).toBeUndefined();
    const s = build({ schedule: { cron: '@daily', timezone: 'Europe/Berlin', createDataIntervals: true }, timezone: 'UTC' }).spec;
    expect(s.schedule).toEqual({ kind: 'cron', expr: '0 0 * * *', timezone: 'Europe/Berlin' });
    expect(s.createDataIntervals).toBe(true);
    expect(s.timezone).toBe('UTC');
  });

  it('refuses a Timetable with unknown keys, a rate or @once, or a second different createDataIntervals', () => {
    expect(refused(() => build({ schedule: { cron: '@daily', every: 2 } as never }))).toMatch(/a Timetable has cron, timezone and createDataIntervals, not every/);
    expect(refused(() => build({ schedule: { cron: '@once' } }))).toMatch(/a Timetable's cron must be a cron or a preset/);
    expect(refused(() => build({ schedule: { cron: 'rate(5 minutes)' } }))).toMatch(/a Timetable's cron must be a cron/);
    expect(refused(() => build({ schedule: { cron: 5 } as never }))).toMatch(/a Timetable needs a cron string/);
    expect(refused(() => build({ schedule: { cron: '@daily', createDataIntervals: true }, createDataIntervals: false }))).toMatch(/set it once/);
  });

  it("'@once' builds", () => {
    expect(build({ schedule: '@once' }).spec.schedule).toEqual({ kind: 'once' });
  });
});

describe('param(default, schema)', () => {
  it('keeps the default in params and the schema in paramSchemas; a plain value stays plain', () => {
    const d = build({ params: { n: param(5, { type: 'integer', minimum: 1 }), tag: 'x', ticket: param<string>(undefined as unknown as string, { type: 'string' }) } });
    expect(d.spec.params).toEqual({ n: 5, tag: 'x' });
    expect(d.spec.paramSchemas).toEqual({ n: { type: 'integer', minimum: 1 }, ticket: { type: 'string' } });
    expect(build({ params: { tag: 'x' } }).spec.paramSchemas).toBeUndefined();
  });

  it('refuses a default that breaks its own schema, naming the DAG and the param', () => {
    expect(refused(() => build({ params: { n: param(0, { type: 'integer', minimum: 1 }) } }))).toMatch(/^dag d: param "n": its default 0 breaks its schema: /);
    expect(refused(() => build({ params: { r: param('mars', { enum: ['eu', 'us'] }) } }))).toMatch(/param "r": its default "mars" breaks its schema/);
  });

  it('refuses a schema that is not one, and a scheduled DAG with a param without a default', () => {
    expect(refused(() => build({ params: { n: param(1, { type: 'int' }) } }))).toMatch(/param "n": its schema has type "int"/);
    expect(refused(() => build({ params: { n: param(1, { minimum: '1' }) } }))).toMatch(/has minimum "1", not a number/);
    expect(refused(() => build({ params: { s: param('a', { pattern: '(' }) } }))).toMatch(/is not a regular expression/);
    expect(refused(() => build({ schedule: '@daily', params: { t: param<string>(undefined as unknown as string, {}) } }))).toMatch(/param "t" has no default, so a scheduled run could not start/);
  });

  it('a manifest read back passes the same checks', () => {
    const spec = build({ params: { n: param(5, { minimum: 1 }) } }).spec;
    expect(() => validateDagSpec({ ...spec, params: { n: 0 } })).toThrow(/param "n": its default 0 breaks its schema/);
  });
});

describe('displayName and doc', () => {
  it('are kept on the DAG and on tasks; defaultArgs do not give every task the same name', () => {
    const d = dag('shown', { displayName: 'Shown 📊', doc: '# Doc', defaultArgs: { displayName: 'Everyone', doc: 'shared' } as never }, ({ task }) => {
      task('a', () => 1, { displayName: 'Task A', doc: 'does **a**' });
      task('b', () => 1);
    });
    expect(d.spec).toMatchObject({ displayName: 'Shown 📊', doc: '# Doc' });
    expect(d.spec.tasks.find((t) => t.taskId === 'a')).toMatchObject({ displayName: 'Task A', doc: 'does **a**' });
    expect(d.spec.tasks.find((t) => t.taskId === 'b')?.displayName).toBeUndefined();
  });

  it('refuses an empty or non-string one, naming the task', () => {
    expect(refused(() => build({ displayName: '' }))).toMatch(/displayName must be a non-empty string/);
    expect(refused(() => build({}, { doc: 3 }))).toMatch(/task t.*doc must be a non-empty string|doc must be a non-empty string/);
  });
});
