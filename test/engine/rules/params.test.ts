/**
 * Params with a JSON Schema (issue 23 §2, docs/adr/0025; Airflow's Param and ParamsDict):
 * a run whose conf breaks a param's schema is refused naming the param, before anything
 * is stored; tasks see the defaults overlaid with the conf. Runs on both stores.
 */
import { describe, expect, it } from 'vitest';
import { InvalidInputError, ParamValidationError, runParamsProblem, scheduleDag, valueProblem } from '../../../lib/engine/index.js';
import { dag, param } from '../../../lib/sdk/index.js';
import { makeRuntime, runOnce, T0 } from '../../helpers/runtime.js';

const report = dag('report', {
  params: {
    count: param(5, { type: 'integer', minimum: 1, maximum: 100, title: 'Rows' }),
    region: param('eu', { enum: ['eu', 'us'], description: 'Where to read from' }),
    ticket: param<string>(undefined as unknown as string, { type: 'string', pattern: '^OPS-[0-9]+$' }),
    plain: 'kept',
  },
}, ({ task }) => {
  task('show', (ctx) => ctx.params);
});

describe('valueProblem and runParamsProblem', () => {
  it('say in one line why a value breaks a schema, naming the param', () => {
    expect(valueProblem({ type: 'integer', minimum: 3 }, 1)).toMatch(/1.*3/);
    expect(valueProblem({ type: 'integer' }, 'x')).toMatch(/integer/);
    expect(valueProblem({ pattern: '^a+$' }, 'b')).toContain('^a+$');
    expect(valueProblem({ type: 'integer', minimum: 3 }, 3)).toBeUndefined();
    const spec = report.spec;
    expect(runParamsProblem(spec, { ticket: 'OPS-1' })).toBeUndefined();
    expect(runParamsProblem(spec, {})).toBe('Invalid input for param "ticket": No value passed and Param has no default value');
    expect(runParamsProblem(spec, { ticket: 'OPS-1', count: 0 })).toMatch(/^Invalid input for param "count": /);
    expect(runParamsProblem(spec, { ticket: 'OPS-1', region: 'ap' })).toMatch(/^Invalid input for param "region": /);
    expect(runParamsProblem(spec, { ticket: 'ops-1' })).toMatch(/^Invalid input for param "ticket": .*\^OPS-\[0-9\]\+\$/);
    // A conf key without a schema is taken as it is, as Airflow's ParamsDict.
    expect(runParamsProblem(spec, { ticket: 'OPS-1', plain: 42, extra: [1] })).toBeUndefined();
  });
});

describe('triggerRun with params that have schemas', () => {
  it('refuses a conf that breaks a schema, naming the param, and stores nothing', async () => {
    const { rt } = await makeRuntime([report]);
    for (const [conf, name] of [[{}, 'ticket'], [{ ticket: 'OPS-1', count: 101 }, 'count'], [{ ticket: 'OPS-1', count: 2.5 }, 'count'], [{ ticket: 'X' }, 'ticket'], [{ ticket: 'OPS-1', region: 'mars' }, 'region']] as const) {
      const err = await rt.trigger('report', { conf }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ParamValidationError);
      expect(err).toBeInstanceOf(InvalidInputError);
      expect((err as Error).message).toMatch(new RegExp(`^Invalid input for param "${name}": `));
    }
    expect(await rt.ports.store.listRuns('report', {})).toEqual([]);
  });

  it('runs a conf that fits, the tasks seeing the defaults overlaid with it', async () => {
    const { rt } = await makeRuntime([report]);
    const { states, run } = await runOnce(rt, 'report', { conf: { ticket: 'OPS-7', count: 100 } });
    expect(states).toEqual({ show: 'success' });
    const shown = await rt.ports.store.getXcom({ dagId: 'report', runId: run.runId, taskId: 'show', key: 'return_value' });
    expect(shown).toEqual({ count: 100, region: 'eu', ticket: 'OPS-7', plain: 'kept' });
  });

  it('a scheduled run takes the defaults, which the build checked against their schemas', async () => {
    const nightly = dag('nightly_params', { schedule: '@daily', startDate: '2026-01-01', params: { days: param(3, { type: 'integer', minimum: 1 }) } }, ({ task }) => {
      task('t', (ctx) => ctx.params.days);
    });
    const { rt, clock } = await makeRuntime([nightly], { start: T0 + 3_600_000 });
    clock.advanceTo(T0 + 86_400_000 + 1);
    await scheduleDag(rt.ports, 'nightly_params');
    const [run] = await rt.ports.store.listRuns('nightly_params', {});
    expect(run.runType).toBe('scheduled');
    expect(await rt.runToCompletion('nightly_params', run.runId)).toBe('done');
    expect(await rt.ports.store.getXcom({ dagId: 'nightly_params', runId: run.runId, taskId: 't', key: 'return_value' })).toBe(3);
  });
});
