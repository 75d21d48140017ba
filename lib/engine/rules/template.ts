/**
 * `{{ ds }}`-style templates for task arguments and sensor poke contexts. A small, closed
 * language on purpose: variables and dotted paths, no expressions, no filters; the date
 * macros ds_add and ds_format are the one kind of call (rules/macros.ts), and a datetime
 * plus or minus `macros.timedelta(...)` with `.strftime()`/`.isoformat()` the one
 * expression (rules/date-math.ts).
 */
import { InvalidInputError } from '../model/errors.js';
import { macroCall } from './macros.js';
import { DATETIME_VARS, dateExpr } from './date-math.js';

/** Variables available in templates (Airflow names). */
export interface TemplateVars {
  /** Logical date, UTC, `YYYY-MM-DD`. */
  ds: string;
  ds_nodash: string;
  /** Logical date as Airflow's `isoformat()`: `2026-01-01T00:00:00+00:00` (`.123000` when it has milliseconds). */
  ts: string;
  /** `20260101T000000`. */
  ts_nodash: string;
  /** `20260101T000000+0000`. */
  ts_nodash_with_tz: string;
  /**
   * As Airflow renders a datetime (`str()`, UTC): `2026-01-01 00:00:00+00:00`. Date.parse
   * and every ISO-8601 reader accept it.
   */
  logical_date: string;
  data_interval_start: string;
  data_interval_end: string;
  run_id: string;
  dag_id: string;
  task_id: string;
  /** `manual`, `scheduled`, `backfill`... (absent where the run is not known). */
  run_type?: string;
  /** `dag_id__task_id__ds_nodash`, as Airflow. */
  task_instance_key_str: string;
  params: Record<string, unknown>;
  conf: Record<string, unknown>;
  /** `{{ var.value.key }}`, `{{ var.json.key.path }}`: present when resolved first (secrets.ts). */
  var?: { value: Record<string, string>; json: Record<string, unknown> };
  /** `{{ conn.id.host }}`: present when resolved first (secrets.ts). */
  conn?: Record<string, Record<string, unknown>>;
  /**
   * The DAG's latest successful run before this one (Airflow's names; `null`: none), as
   * `logical_date` renders: present when resolved first (flow/prev-success.ts).
   */
  prev_data_interval_start_success?: string | null;
  prev_data_interval_end_success?: string | null;
  prev_start_date_success?: string | null;
  prev_end_date_success?: string | null;
}

const EXPR = /\{\{\s*([^{}]*?)\s*\}\}/g;
const PATH = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z0-9_-]+)*$/;

function lookup(path: string, vars: TemplateVars, template: string): unknown {
  if (!PATH.test(path)) {
    throw new InvalidInputError(`template "${template}": "${path}" is not a variable (use names like ds, params.x)`);
  }
  const [head, ...rest] = path.split('.');
  if (!Object.prototype.hasOwnProperty.call(vars, head)) {
    if (/^prev_.*_success$/.test(head) && DATETIME_VARS.has(head)) {
      throw new InvalidInputError(`template "${template}": "${head}" is read from the store, so it is known in task arguments, sensor contexts and an isolated task's ctx.render, not in an in-process ctx.render or a callback`);
    }
    throw new InvalidInputError(`template "${template}": unknown variable "${head}"`);
  }
  let value: unknown = (vars as unknown as Record<string, unknown>)[head];
  for (let i = 0; i < rest.length; i++) {
    if (value === null || typeof value !== 'object' || !Object.prototype.hasOwnProperty.call(value, rest[i])) {
      throw new InvalidInputError(`template "${template}": unknown variable "${[head, ...rest.slice(0, i + 1)].join('.')}"`);
    }
    value = (value as Record<string, unknown>)[rest[i]];
  }
  return value;
}

/**
 * Renders every `{{ name }}` / `{{ params.a.b }}` in a string. Objects render as JSON.
 *
 * @example
 * renderTemplate('/data/{{ ds }}/{{params.table}}.csv', vars); // '/data/2026-01-01/orders.csv'
 * @throws InvalidInputError naming an unknown variable or path.
 */
export function renderTemplate(str: string, vars: TemplateVars): string {
  if (!str.includes('{{')) return str;
  return str.replace(EXPR, (_m, path: string) => {
    const date = dateExpr(path, (arg) => lookup(arg, vars, str), str);
    if (date !== undefined) return date;
    const call = macroCall(path, (arg) => lookup(arg, vars, str), str);
    if (call !== undefined) return call;
    const v = lookup(path, vars, str);
    if (v === undefined || v === null) return '';
    return typeof v === 'object' ? JSON.stringify(v) : String(v);
  });
}

/**
 * Renders every string leaf of a value (objects and arrays walked, other leaves kept).
 *
 * @example
 * renderDeep({ path: '/in/{{ ds_nodash }}.csv', retries: 3 }, vars); // { path: '/in/20260101.csv', retries: 3 }
 */
export function renderDeep<T>(value: T, vars: TemplateVars): T {
  if (typeof value === 'string') return renderTemplate(value, vars) as T;
  if (Array.isArray(value)) return value.map((v) => renderDeep(v, vars)) as T;
  if (value !== null && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = renderDeep(v, vars);
    return out as T;
  }
  return value;
}

/** What {@link templateVars} needs; dates as epoch ms or ISO strings. */
export interface TemplateInput {
  dagId: string;
  runId: string;
  taskId: string;
  logicalDate: number | string;
  dataIntervalStart: number | string;
  dataIntervalEnd: number | string;
  params?: Record<string, unknown>;
  conf?: Record<string, unknown>;
  runType?: string;
}

function iso(value: number | string, name: string): string {
  const d = new Date(value);
  if (Number.isNaN(d.getTime())) throw new InvalidInputError(`${name} ${JSON.stringify(value)} is not a date`);
  return d.toISOString();
}

/**
 * A UTC ISO string as Python prints an aware datetime: `sep` between date and time,
 * microseconds only when non-zero, `+00:00` (Airflow 3's task context holds such datetimes).
 */
function pythonIso(isoUtc: string, sep: 'T' | ' '): string {
  const ms = isoUtc.slice(20, 23);
  return `${isoUtc.slice(0, 10)}${sep}${isoUtc.slice(11, 19)}${ms === '000' ? '' : `.${ms}000`}+00:00`;
}

/**
 * Builds the template variables of one task try. `ds` is the UTC date of the logical date,
 * as in Airflow; `params` are the DAG params overlaid with the run's conf.
 *
 * @example
 * templateVars({ dagId: 'etl', runId: 'scheduled__2026-01-01T00:00:00Z', taskId: 'load',
 *   logicalDate: Date.parse('2026-01-01T00:00:00Z'), dataIntervalStart: 0, dataIntervalEnd: 0 }).ds; // '2026-01-01'
 */
export function templateVars(input: TemplateInput): TemplateVars {
  // As Airflow 3's RuntimeTaskInstance.get_template_context (task-sdk/src/airflow/sdk/
  // execution_time/task_runner.py): ds = strftime('%Y-%m-%d'), ts = isoformat(),
  // ts_nodash = strftime('%Y%m%dT%H%M%S'), ts_nodash_with_tz = ts without '-' and ':';
  // logical_date and the interval are datetimes, which a template renders with str().
  const logical = iso(input.logicalDate, 'logicalDate');
  const ds = logical.slice(0, 10);
  const ts = pythonIso(logical, 'T');
  const conf = input.conf ?? {};
  return {
    ds,
    ds_nodash: ds.replaceAll('-', ''),
    ts,
    ts_nodash: logical.slice(0, 19).replaceAll('-', '').replaceAll(':', ''),
    ts_nodash_with_tz: ts.replaceAll('-', '').replaceAll(':', ''),
    logical_date: pythonIso(logical, ' '),
    data_interval_start: pythonIso(iso(input.dataIntervalStart, 'dataIntervalStart'), ' '),
    data_interval_end: pythonIso(iso(input.dataIntervalEnd, 'dataIntervalEnd'), ' '),
    run_id: input.runId,
    dag_id: input.dagId,
    task_id: input.taskId,
    ...(input.runType !== undefined ? { run_type: input.runType } : {}),
    task_instance_key_str: `${input.dagId}__${input.taskId}__${ds.replaceAll('-', '')}`,
    params: { ...(input.params ?? {}), ...conf },
    conf,
  };
}
