/**
 * Date macros and run variables in templates (issue 23 §2; Airflow's macros.ds_add,
 * macros.ds_format, `run_type`, `task_instance_key_str`) and `ctx.runType`. The engine
 * part runs on both stores.
 */
import { describe, expect, it } from 'vitest';
import { badDateTemplate, InvalidInputError, renderTemplate, scheduleDag, templateVars } from '../../../lib/engine/index.js';
import { dag } from '../../../lib/sdk/index.js';
import { makeRuntime, runOnce, T0 } from '../../helpers/runtime.js';

const vars = { ...templateVars({ dagId: 'etl', runId: 'r1', taskId: 'load', logicalDate: Date.parse('2026-03-01T06:00:00Z'), dataIntervalStart: 0, dataIntervalEnd: 0, params: { days: -1, fmt: '%d.%m.%Y' }, runType: 'scheduled' }) };

describe('ds_add and ds_format', () => {
  it('add days to ds (across month ends and leap days) and reformat it, as Airflow', () => {
    expect(renderTemplate('{{ macros.ds_add(ds, 5) }}', vars)).toBe('2026-03-06');
    expect(renderTemplate('{{ macros.ds_add(ds, params.days) }}', vars)).toBe('2026-02-28');
    expect(renderTemplate("{{ ds_add('2024-02-28', 1) }}", vars)).toBe('2024-02-29');
    expect(renderTemplate("{{ macros.ds_add('2026-12-31', 1) }}", vars)).toBe('2027-01-01');
    expect(renderTemplate("{{ macros.ds_format(ds, '%Y-%m-%d', '%d.%m.%Y') }}", vars)).toBe('01.03.2026');
    expect(renderTemplate("{{ macros.ds_format(ds, '%Y-%m-%d', params.fmt) }}", vars)).toBe('01.03.2026');
    expect(renderTemplate("{{ macros.ds_format('1/5/26', '%m/%d/%y', '%Y%m%d %H:%M %%') }}", vars)).toBe('20260105 00:00 %');
    expect(renderTemplate("/in/{{ macros.ds_format(ds, '%Y-%m-%d', '%Y/%m') }}/{{ ds_nodash }}", vars)).toBe('/in/2026/03/20260301');
  });

  it('refuse unknown macros, bad dates and formats in one line naming the template', () => {
    for (const [t, why] of [
      ['{{ macros.ds_sub(ds, 1) }}', /ds_sub\(\): unknown macro/],
      ["{{ macros.ds_add('2026-02-30', 1) }}", /"2026-02-30" is not a date/],
      ['{{ macros.ds_add(ds, 1.5) }}', /days must be an integer/],
      ["{{ macros.ds_format(ds, '%Y-%m-%d', '%A') }}", /uses %A; supported/],
      ["{{ macros.ds_format(ds, '%d/%m/%Y', '%Y') }}", /does not match the format/],
      ['{{ macros.ds_add(nope, 1) }}', /unknown variable "nope"/],
    ] as const) {
      expect(() => renderTemplate(t, vars)).toThrow(InvalidInputError);
      expect(() => renderTemplate(t, vars)).toThrow(why);
    }
  });

  it('run_type and task_instance_key_str', () => {
    expect(renderTemplate('{{ run_type }} {{ task_instance_key_str }}', vars)).toBe('scheduled etl__load__20260301');
  });
});

describe('in a running task', () => {
  const d = dag('macros_dag', { schedule: '@daily', startDate: '2026-01-01' }, ({ task }) => {
    task('show', (ctx) => ({ runType: ctx.runType, text: ctx.render('{{ run_type }}|{{ task_instance_key_str }}|{{ macros.ds_add(ds, -1) }}') }));
  });

  it('ctx.runType and the templates see the run type, manual and scheduled', async () => {
    const { rt, clock } = await makeRuntime([d]);
    const manual = await runOnce(rt, 'macros_dag', { logicalDate: Date.parse('2026-01-10T00:00:00Z') });
    const key = (runId: string) => ({ dagId: 'macros_dag', runId, taskId: 'show', key: 'return_value' });
    expect(await rt.ports.store.getXcom(key(manual.run.runId))).toEqual({ runType: 'manual', text: 'manual|macros_dag__show__20260110|2026-01-09' });
    clock.advanceTo(T0 + 86_400_000 + 1);
    await scheduleDag(rt.ports, 'macros_dag');
    const scheduled = (await rt.ports.store.listRuns('macros_dag', {})).find((r) => r.runType === 'scheduled')!;
    expect(await rt.runToCompletion('macros_dag', scheduled.runId)).toBe('done');
    expect(await rt.ports.store.getXcom(key(scheduled.runId))).toEqual({ runType: 'scheduled', text: 'scheduled|macros_dag__show__20260102|2026-01-01' });
  });
});

describe('datetime arithmetic (macros.timedelta, strftime, isoformat)', () => {
  const dv = templateVars({ dagId: 'etl', runId: 'r1', taskId: 'load', logicalDate: Date.parse('2026-03-01T06:00:00Z'), dataIntervalStart: Date.parse('2026-03-01T00:00:00Z'), dataIntervalEnd: Date.parse('2026-03-02T00:00:00Z'), params: { n: 2, fmt: '%Y/%m/%d' } });

  it('adds and subtracts timedeltas from datetime variables and formats them as Airflow', () => {
    expect(renderTemplate("{{ (data_interval_start - macros.timedelta(days=1)).strftime('%Y-%m-%d') }}", dv)).toBe('2026-02-28');
    expect(renderTemplate('{{ logical_date + macros.timedelta(hours=6, minutes=30) }}', dv)).toBe('2026-03-01 12:30:00+00:00');
    expect(renderTemplate('{{ (data_interval_end - timedelta(weeks=1) + timedelta(seconds=1.5)).isoformat() }}', dv)).toBe('2026-02-23T00:00:01.500000+00:00');
    expect(renderTemplate('{{ data_interval_end.isoformat() }}', dv)).toBe('2026-03-02T00:00:00+00:00');
    expect(renderTemplate('/in/{{ (logical_date + macros.timedelta(days=params.n)).strftime(params.fmt) }}.csv', dv)).toBe('/in/2026/03/03.csv');
    expect(renderTemplate("{{ data_interval_start.strftime('%d.%m.%Y') }}", dv)).toBe('01.03.2026');
  });

  it('refuses anything else in one line naming the template', () => {
    for (const [t, why] of [
      ['{{ ds - macros.timedelta(days=1) }}', /"ds" is not a datetime/],
      ['{{ logical_date * macros.timedelta(days=1) }}', /is not "\+ macros.timedelta/],
      ['{{ logical_date - macros.timedelta(months=1) }}', /"months=1" is not one of weeks=n/],
      ["{{ logical_date - macros.timedelta(days='x') }}", /days must be a number/],
      ["{{ logical_date - macros.timedelta(days=1).strftime('%Y') }}", /parentheses/],
      ["{{ (logical_date).strftime('%A') }}", /uses %A/],
      ['{{ logical_date.isoformat(1) }}', /takes no argument/],
      ["{{ logical_date.__class__.strftime('%Y') }}", /not a datetime|not "\+ macros/],
      ['{{ prev_data_interval_start_success + macros.timedelta(days=1) }}', /is read from the store/],
    ] as const) {
      expect(() => renderTemplate(t, dv)).toThrow(InvalidInputError);
      expect(() => renderTemplate(t, dv)).toThrow(why);
    }
  });
});

describe('date arithmetic checked at build', () => {
  it('refuses a wrong shape in static templates, leaves what depends on run values to render time', () => {
    expect(badDateTemplate({ conf: { a: 'x', b: ['{{ ds }}', "{{ (logical_date - macros.timedelta(days=1)).strftime('%Y') }}"] } })).toBeUndefined();
    expect(badDateTemplate(['{{ logical_date + macros.timedelta(days=params.n) }}', '{{ logical_date.strftime(params.fmt) }}'])).toBeUndefined();
    expect(badDateTemplate({ path: "/in/{{ logical_date.strftime('%A') }}" })).toMatch(/uses %A/);
    expect(badDateTemplate([undefined, { input: { d: '{{ logical_date - macros.timedelta(months=1) }}' } }])).toMatch(/"months=1" is not one of/);
  });
});
