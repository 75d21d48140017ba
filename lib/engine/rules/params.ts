/**
 * Params with a JSON Schema (Airflow's `Param` and `ParamsDict`, task-sdk
 * definitions/param.py): a run's params are the DAG's defaults overlaid with its conf, and
 * each param declared with a schema must satisfy it, or the run is refused naming the
 * param (Airflow's "Invalid input for param {k}: ..."). A param with a schema and no
 * default must be given by the conf ("No value passed and Param has no default value").
 *
 * The validator is @cfworker/json-schema (drafts 4 to 2020-12, with formats): it
 * interprets schemas instead of generating code, so it is deterministic and needs no
 * `new Function`, and it adds 23 KB to a Lambda bundle where ajv adds 125 KB (ADR 0025).
 */
import { Validator } from '@cfworker/json-schema';
import { InvalidInputError } from '../model/errors.js';
import type { DagSpec, ParamSchema } from '../model/types.js';

/** A run's conf breaks a param's schema (Airflow's ParamValidationError): exit 2 in the CLI, 400 in the API. */
export class ParamValidationError extends InvalidInputError {}

const JSON_TYPES = new Set(['null', 'boolean', 'object', 'array', 'number', 'string', 'integer']);
const NUMBER_KEYWORDS = ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf', 'minLength', 'maxLength', 'minItems', 'maxItems'];
const TEXT_KEYWORDS = ['title', 'description', 'format', 'pattern'];

// Compiled once per schema object: specs are long-lived (cached per bundle version).
const validators = new WeakMap<ParamSchema, Validator>();

function validatorOf(schema: ParamSchema): Validator {
  let v = validators.get(schema);
  if (!v) {
    // A copy: the validator writes bookkeeping keys (__absolute_uri__) into the schema it
    // is given, and the spec's schema is frozen and serialized into manifests.
    v = new Validator(structuredClone(schema) as never, '2020-12', false);
    validators.set(schema, v);
  }
  return v;
}

/**
 * Why `value` breaks `schema`, in one line, or undefined. The most specific error is
 * named (the deepest place in the value).
 *
 * @example
 * valueProblem({ type: 'integer', minimum: 3 }, 1); // '1 is less than 3'
 */
export function valueProblem(schema: ParamSchema, value: unknown): string | undefined {
  const { valid, errors } = validatorOf(schema).validate(value);
  if (valid) return undefined;
  const e = errors.reduce((a, b) => (b.instanceLocation.length >= a.instanceLocation.length ? b : a));
  const where = e.instanceLocation === '#' ? '' : ` at ${e.instanceLocation.slice(1)}`;
  const pattern = e.keyword === 'pattern' ? ` ${String(keywordAt(schema, e.keywordLocation))}` : '';
  return `${e.error.replace(/\.$/, '')}${pattern}${where}`;
}

function keywordAt(schema: ParamSchema, pointer: string): unknown {
  let v: unknown = schema;
  for (const part of pointer.replace(/^#\/?/, '').split('/').filter(Boolean)) v = (v as Record<string, unknown> | undefined)?.[part.replace(/~1/g, '/').replace(/~0/g, '~')];
  return v;
}

/**
 * The first param of a run that breaks its schema, as Airflow words it, or undefined.
 * `conf` overlays the DAG's defaults; conf keys without a schema are taken as they are.
 *
 * @example
 * runParamsProblem({ params: { n: 5 }, paramSchemas: { n: { type: 'integer', minimum: 3 } } }, { n: 1 });
 * // 'Invalid input for param "n": 1 is less than 3'
 */
export function runParamsProblem(spec: Pick<DagSpec, 'params' | 'paramSchemas'>, conf: Record<string, unknown> | undefined): string | undefined {
  const schemas = spec.paramSchemas;
  if (!schemas) return undefined;
  for (const [name, schema] of Object.entries(schemas)) {
    const given = conf !== undefined && Object.hasOwn(conf, name);
    if (!given && !Object.hasOwn(spec.params, name)) return `Invalid input for param "${name}": No value passed and Param has no default value`;
    const problem = valueProblem(schema, given ? conf[name] : spec.params[name]);
    if (problem) return `Invalid input for param "${name}": ${problem}`;
  }
  return undefined;
}

/**
 * Refuses a run whose params break their schemas, before anything is stored.
 *
 * @example
 * checkRunParams(dag.spec, opts.conf); // throws ParamValidationError naming the param
 * @throws ParamValidationError
 */
export function checkRunParams(spec: Pick<DagSpec, 'params' | 'paramSchemas'>, conf: Record<string, unknown> | undefined): void {
  const problem = runParamsProblem(spec, conf);
  if (problem) throw new ParamValidationError(problem);
}

/**
 * What is wrong with a DAG's param declarations (checked at build): a schema that is not
 * one, a default that breaks its own schema, or (as Airflow's
 * `validate_schedule_and_params`) a scheduled DAG with a param that has no default.
 *
 * @example
 * paramSpecProblem({ ...spec, params: { n: 2 }, paramSchemas: { n: { minimum: 3 } } }); // 'param "n": its default 2 breaks its schema: 2 is less than 3'
 */
export function paramSpecProblem(spec: Pick<DagSpec, 'params' | 'paramSchemas' | 'schedule'>): string | undefined {
  if (spec.params === null || typeof spec.params !== 'object' || Array.isArray(spec.params)) return 'params must be an object';
  const schemas = spec.paramSchemas;
  if (schemas === undefined) return undefined;
  if (schemas === null || typeof schemas !== 'object' || Array.isArray(schemas)) return 'paramSchemas must be an object';
  for (const [name, schema] of Object.entries(schemas)) {
    const bad = schemaProblem(schema);
    if (bad) return `param "${name}": its schema ${bad}`;
    if (!Object.hasOwn(spec.params, name)) {
      if (spec.schedule) return `param "${name}" has no default, so a scheduled run could not start: give it a default, or make the DAG manual (schedule: null)`;
      continue;
    }
    const problem = valueProblem(schema, spec.params[name]);
    if (problem) return `param "${name}": its default ${preview(spec.params[name])} breaks its schema: ${problem}`;
  }
  return undefined;
}

function schemaProblem(schema: unknown): string | undefined {
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) return 'must be an object';
  const s = schema as Record<string, unknown>;
  const types = s.type === undefined ? [] : Array.isArray(s.type) ? s.type : [s.type];
  const unknown = types.find((t) => !JSON_TYPES.has(t as string));
  if (unknown !== undefined) return `has type ${JSON.stringify(unknown)} (types are ${[...JSON_TYPES].join(', ')})`;
  if (s.enum !== undefined && !Array.isArray(s.enum)) return 'has an enum that is not a list';
  for (const k of NUMBER_KEYWORDS) if (s[k] !== undefined && typeof s[k] !== 'number') return `has ${k} ${JSON.stringify(s[k])}, not a number`;
  for (const k of TEXT_KEYWORDS) if (s[k] !== undefined && typeof s[k] !== 'string') return `has ${k} ${JSON.stringify(s[k])}, not a string`;
  if (typeof s.pattern === 'string') {
    try {
      new RegExp(s.pattern, 'u');
    } catch (e) {
      return `has pattern ${JSON.stringify(s.pattern)}, which is not a regular expression (${(e as Error).message})`;
    }
  }
  return undefined;
}

function preview(v: unknown): string {
  const text = JSON.stringify(v) ?? String(v);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}
