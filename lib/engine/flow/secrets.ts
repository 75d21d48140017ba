/**
 * Variables and connections as tasks, sensors and templates see them: `ctx.variables`,
 * `ctx.connections`, `{{ var.value.key }}`, `{{ var.json.key.path }}`, `{{ conn.id.host }}`.
 * Values come from the runtime's {@link SecretsSource} (environment and a file locally;
 * SSM Parameter Store and Secrets Manager on AWS); templates stay synchronous because the
 * values they name are resolved first ({@link withSecretVars}). Every secret read is
 * registered for masking (secrets-mask.ts).
 */
import { InvalidInputError, NotFoundError } from '../model/errors.js';
import { varsFor, type RunCtx } from '../rules/dag-index.js';
import type { Connection, Ports, SecretsSource } from '../model/ports.js';
import { isSensitiveKey, maskSecret, maskSensitiveFields } from '../rules/secrets-mask.js';
import type { TemplateVars } from '../rules/template.js';
import { mentionsPrevSuccess, prevSuccessVars } from './prev-success.js';

/** Variable keys and connection ids: letters, digits, `_ - .` and `/` (a path under the prefix). */
const KEY = /^[A-Za-z0-9_.\-/]{1,250}$/;

function checkKey(what: string, key: unknown): string {
  if (typeof key !== 'string' || !KEY.test(key)) {
    throw new InvalidInputError(`${what} ${JSON.stringify(key)} is not valid (use 1 to 250 letters, digits, _ - . /)`);
  }
  return key;
}

export interface VariableGetOptions<T> {
  /** Returned when the variable does not exist (without it a missing variable throws). */
  default?: T;
  /** Parse the value as JSON (Airflow's `deserialize_json`). */
  deserializeJson?: boolean;
}

/** `ctx.variables`: one lookup per key per try (cached), secrets registered for masking. */
export class Variables {
  private readonly cache = new Map<string, Promise<string | undefined>>();
  constructor(private readonly source: SecretsSource | undefined) {}

  /**
   * @example
   * const bucket = await ctx.variables.get('bucket', { default: 'dev-bucket' });
   * const cfg = await ctx.variables.get<{ rows: number }>('etl_config', { deserializeJson: true });
   */
  async get<T = string>(key: string, opts: VariableGetOptions<T> = {}): Promise<T> {
    checkKey('variable key', key);
    let p = this.cache.get(key);
    if (!p) {
      p = this.source ? this.source.variable(key) : Promise.resolve(undefined);
      this.cache.set(key, p);
    }
    const raw = await p;
    if (raw === undefined) {
      if (opts && 'default' in opts) return opts.default as T;
      throw new NotFoundError(`variable "${key}" does not exist (set it with \`airless variables set ${key} VALUE\` or AIRLESS_VAR_${envKey(key)})`);
    }
    if (isSensitiveKey(key)) maskSecret(raw);
    if (!opts?.deserializeJson) return raw as T;
    const parsed = parseJsonVariable(key, raw);
    if (isSensitiveKey(key)) maskSensitiveFields(parsed, true);
    else maskSensitiveFields(parsed);
    return parsed as T;
  }
}

/** `ctx.connections`: Airflow's `BaseHook.get_connection`. */
export class Connections {
  private readonly cache = new Map<string, Promise<Connection | undefined>>();
  constructor(private readonly source: SecretsSource | undefined) {}

  /**
   * @example
   * const { host, port, login, password } = await ctx.connections.get('warehouse');
   */
  async get(connId: string): Promise<Connection> {
    checkKey('connection id', connId);
    let p = this.cache.get(connId);
    if (!p) {
      p = this.source ? this.source.connection(connId) : Promise.resolve(undefined);
      this.cache.set(connId, p);
    }
    const c = await p;
    if (!c) throw new NotFoundError(`connection "${connId}" is not defined (set it with \`airless connections set ${connId} URI\` or AIRLESS_CONN_${envKey(connId)})`);
    maskSecret(c.password);
    maskSensitiveFields(c.extra);
    return c;
  }
}

/** The environment name of a key (`AIRLESS_VAR_<KEY>`): upper case, other characters as `_`. */
export function envKey(key: string): string {
  return key.toUpperCase().replace(/[^A-Z0-9_]/g, '_');
}

function parseJsonVariable(key: string, raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch (e) {
    throw new InvalidInputError(`variable "${key}" is not JSON: ${(e as Error).message}`);
  }
}

const EXPR = /\{\{\s*([^{}]*?)\s*\}\}/g;

/** The variables and connections a value's string leaves name in templates. */
export function secretRefs(value: unknown, out = { vars: new Set<string>(), json: new Set<string>(), conns: new Set<string>() }) {
  if (typeof value === 'string') {
    if (!value.includes('{{')) return out;
    for (const m of value.matchAll(EXPR)) {
      const [head, kind, name] = m[1].split('.');
      if (head === 'var' && name && (kind === 'value' || kind === 'json')) (kind === 'value' ? out.vars : out.json).add(name);
      else if (head === 'conn' && kind) out.conns.add(kind);
    }
  } else if (Array.isArray(value)) {
    for (const v of value) secretRefs(v, out);
  } else if (value !== null && typeof value === 'object') {
    for (const v of Object.values(value)) secretRefs(v, out);
  }
  return out;
}

/** A connection as templates see it (Airflow's attribute names, and ours). */
function templateConn(c: Connection): Record<string, unknown> {
  return {
    ...c, conn_id: c.connId, conn_type: c.connType, extra_dejson: c.extra,
  };
}

/**
 * The template variables plus the `var` and `conn` entries that `values` name, read
 * through `vars` and `conns` (a task's accessors, so a try reads each once). Without
 * references nothing is read and `base` is returned as it is.
 *
 * @example
 * const vars = await withSecretVars(varsFor(rc, taskId), pokeContext, new Variables(p.secrets), new Connections(p.secrets));
 * renderDeep(pokeContext, vars);
 */
export async function withSecretVars(base: TemplateVars, values: unknown, vars: Variables, conns: Connections): Promise<TemplateVars> {
  const refs = secretRefs(values);
  if (refs.vars.size + refs.json.size + refs.conns.size === 0) return base;
  const value: Record<string, string> = {};
  const json: Record<string, unknown> = {};
  const conn: Record<string, Record<string, unknown>> = {};
  await Promise.all([
    ...[...refs.vars].map(async (k) => { value[k] = await vars.get(k); }),
    ...[...refs.json].map(async (k) => { json[k] = await vars.get(k, { deserializeJson: true }); }),
    ...[...refs.conns].map(async (k) => { conn[k] = templateConn(await conns.get(k)); }),
  ]);
  return { ...base, var: { value, json }, conn };
}

/**
 * The template variables of a task of a run, with the variables and connections that
 * `values` name read through the runtime's secrets source.
 *
 * @example
 * renderDeep(s.pokeContext, await secretVarsFor(p, rc, ti.taskId, s.pokeContext));
 */
export async function secretVarsFor(p: Ports, rc: RunCtx, taskId: string, values: unknown): Promise<TemplateVars> {
  const base = mentionsPrevSuccess(values) ? { ...varsFor(rc, taskId), ...(await prevSuccessVars(p, rc.run)) } : varsFor(rc, taskId);
  return withSecretVars(base, values, new Variables(p.secrets), new Connections(p.secrets));
}
