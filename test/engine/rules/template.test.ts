import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../../../lib/engine/index.js';
import { renderDeep, renderTemplate, templateVars } from '../../../lib/engine/index.js';

const vars = templateVars({
  dagId: 'etl',
  runId: 'scheduled__2026-03-05T23:30:00Z',
  taskId: 'load',
  logicalDate: Date.parse('2026-03-05T23:30:00Z'),
  dataIntervalStart: Date.parse('2026-03-04T23:30:00Z'),
  dataIntervalEnd: '2026-03-05T23:30:00Z',
  params: { table: 'orders', nested: { a: { b: 7 } }, region: 'eu' },
  conf: { region: 'us', full: true },
});

describe('templateVars', () => {
  // As Airflow 3's RuntimeTaskInstance.get_template_context (task-sdk/src/airflow/sdk/
  // execution_time/task_runner.py): ts = isoformat(), ts_nodash = strftime('%Y%m%dT%H%M%S'),
  // ts_nodash_with_tz = ts without '-' and ':'; datetimes render with Python's str().
  it('builds Airflow variables, ds in UTC, dates in the forms Airflow renders', () => {
    expect(vars).toMatchObject({
      ds: '2026-03-05',
      ds_nodash: '20260305',
      ts: '2026-03-05T23:30:00+00:00',
      ts_nodash: '20260305T233000',
      ts_nodash_with_tz: '20260305T233000+0000',
      logical_date: '2026-03-05 23:30:00+00:00',
      data_interval_start: '2026-03-04 23:30:00+00:00',
      data_interval_end: '2026-03-05 23:30:00+00:00',
      run_id: 'scheduled__2026-03-05T23:30:00Z',
      dag_id: 'etl',
      task_id: 'load',
    });
  });

  it('prints milliseconds as Python prints microseconds, and only when there are some', () => {
    const v = templateVars({ dagId: 'd', runId: 'r', taskId: 't', logicalDate: Date.parse('2026-03-05T23:30:07.250Z'), dataIntervalStart: 0, dataIntervalEnd: 0 });
    expect(v.ts).toBe('2026-03-05T23:30:07.250000+00:00');
    expect(v.ts_nodash).toBe('20260305T233007');
    expect(v.ts_nodash_with_tz).toBe('20260305T233007.250000+0000');
    expect(v.logical_date).toBe('2026-03-05 23:30:07.250000+00:00');
    expect(v.data_interval_start).toBe('1970-01-01 00:00:00+00:00');
    expect(Date.parse(v.logical_date)).toBe(Date.parse('2026-03-05T23:30:07.250Z'));
  });

  it('overlays conf on params', () => {
    expect(vars.params.region).toBe('us');
    expect(vars.params.table).toBe('orders');
  });

  it('rejects a bad date', () => {
    expect(() => templateVars({ ...{ dagId: 'd', runId: 'r', taskId: 't' }, logicalDate: 'never', dataIntervalStart: 0, dataIntervalEnd: 0 })).toThrow(
      'logicalDate "never" is not a date',
    );
  });
});

describe('renderTemplate', () => {
  it('renders variables with or without spaces', () => {
    expect(renderTemplate('/in/{{ ds }}/{{ds_nodash}}/{{  dag_id  }}.{{ task_id }}', vars)).toBe('/in/2026-03-05/20260305/etl.load');
    expect(renderTemplate('{{ run_id }} {{ ts }} {{ logical_date }}', vars)).toBe(
      'scheduled__2026-03-05T23:30:00Z 2026-03-05T23:30:00+00:00 2026-03-05 23:30:00+00:00',
    );
    expect(renderTemplate('{{ data_interval_start }}..{{ data_interval_end }}', vars)).toBe(
      '2026-03-04 23:30:00+00:00..2026-03-05 23:30:00+00:00',
    );
  });

  it('renders params, nested params and conf', () => {
    expect(renderTemplate('{{ params.table }} {{ params.nested.a.b }} {{ conf.full }}', vars)).toBe('orders 7 true');
    expect(renderTemplate('{{ params.nested }}', vars)).toBe('{"a":{"b":7}}');
  });

  it('leaves text without templates alone', () => {
    expect(renderTemplate('plain { text }', vars)).toBe('plain { text }');
  });

  it.each([
    ['{{ nope }}', 'unknown variable "nope"'],
    ['{{ params.missing }}', 'unknown variable "params.missing"'],
    ['{{ params.table.x }}', 'unknown variable "params.table.x"'],
    ['{{ conf.x }}', 'unknown variable "conf.x"'],
    ['{{ ds + 1 }}', '"ds + 1" is not a variable'],
  ])('%s throws naming it', (tpl, fragment) => {
    expect(() => renderTemplate(tpl, vars)).toThrow(InvalidInputError);
    expect(() => renderTemplate(tpl, vars)).toThrow(fragment);
  });
});

describe('renderDeep', () => {
  it('renders string leaves of objects and arrays and keeps other leaves', () => {
    const input = { path: '/in/{{ ds }}.csv', n: 3, flags: [true, '{{ params.table }}'], deep: { x: '{{ dag_id }}' }, none: null };
    expect(renderDeep(input, vars)).toEqual({ path: '/in/2026-03-05.csv', n: 3, flags: [true, 'orders'], deep: { x: 'etl' }, none: null });
    expect(input.path).toBe('/in/{{ ds }}.csv');
  });
});
