/**
 * The trigger form's fields, drawn from each param's JSON Schema (as Airflow's trigger
 * form): `enum` is a select, `boolean` a checkbox, `integer`/`number` a number input with
 * `minimum`/`maximum`, `pattern` checked by the browser; `title` labels the field and
 * `description` explains it. The server checks every schema again (rules/params.ts).
 */
import { esc } from './dom.js';

/** A param as `GET /api/v2/dags/{id}/details` serves it. */
export interface ParamInfo {
  value: unknown;
  description: string | null;
  schema: Record<string, unknown>;
}

const typeOf = (s: Record<string, unknown>): string | undefined => (Array.isArray(s.type) ? s.type.find((t) => t !== 'null') : s.type) as string | undefined;

/**
 * One labelled field of the form, named `param:<name>`.
 *
 * @example
 * paramField('rows', { value: 5, description: null, schema: { type: 'integer', minimum: 1 } }); // '<label>rows <input type="number" ...'
 */
export function paramField(name: string, p: ParamInfo): string {
  const s = p.schema ?? {};
  const label = esc(typeof s.title === 'string' ? s.title : name);
  const help = p.description ? `<small>${esc(p.description)}</small>` : '';
  const field = `name="param:${esc(name)}" data-testid="param-${esc(name)}"`;
  const type = typeOf(s);
  let input: string;
  if (Array.isArray(s.enum)) {
    input = `<select ${field}>${s.enum.map((v) => `<option value="${esc(JSON.stringify(v))}"${JSON.stringify(v) === JSON.stringify(p.value) ? ' selected' : ''}>${esc(typeof v === 'string' ? v : JSON.stringify(v))}</option>`).join('')}</select>`;
  } else if (type === 'boolean') {
    input = `<input type="checkbox" ${field}${p.value === true ? ' checked' : ''}>`;
  } else if (type === 'integer' || type === 'number') {
    const bounds = ['minimum', 'maximum'].map((k) => (typeof s[k] === 'number' ? ` ${k.slice(0, 3)}="${s[k]}"` : '')).join('');
    input = `<input type="number" step="${type === 'integer' ? '1' : 'any'}"${bounds} ${field} value="${p.value === null || p.value === undefined ? '' : esc(p.value)}">`;
  } else if (type === 'string') {
    const pattern = typeof s.pattern === 'string' ? ` pattern="${esc(s.pattern)}"` : '';
    input = `<input ${field}${pattern} value="${typeof p.value === 'string' ? esc(p.value) : ''}">`;
  } else {
    input = `<input ${field} value="${p.value === null || p.value === undefined ? '' : esc(JSON.stringify(p.value))}" placeholder="JSON">`;
  }
  return `<label>${label} ${input}${help}</label>`;
}

/**
 * The conf value of a field as the form gives it, or undefined to leave the param out
 * (an empty field: the DAG's default applies, or the server names the missing param).
 *
 * @example
 * paramValue('7', { schema: { type: 'integer' } } as ParamInfo, false); // 7
 */
export function paramValue(raw: string | null, p: ParamInfo, checked: boolean): unknown {
  const s = p.schema ?? {};
  const type = typeOf(s);
  if (type === 'boolean' && !Array.isArray(s.enum)) return checked;
  if (raw === null || raw === '') return undefined;
  if (Array.isArray(s.enum) || (type !== 'string')) {
    try {
      return JSON.parse(raw);
    } catch {
      return raw;
    }
  }
  return raw;
}
