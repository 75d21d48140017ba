/**
 * Variables and connections of the embedded runtime: the environment first
 * (`AIRLESS_VAR_<KEY>`, `AIRLESS_CONN_<ID>`, as Airflow's `AIRFLOW_VAR_*`/`AIRFLOW_CONN_*`),
 * then two JSON files in `.airless/` under the working directory (or `AIRLESS_SECRETS_DIR`):
 * `variables.json` (`{ "key": "value" }`; a non-string value is the variable's JSON) and
 * `connections.json` (`{ "id": "postgres://..." }` or `{ "id": { "conn_type": ... } }`).
 * `airless variables|connections set/get/list/delete` edit the same files.
 */
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { InvalidInputError, type Connection, type SecretsSource } from '../engine/index.js';
import { parseConnection, parseConnectionJson } from './secrets-parse.js';

export type SecretKind = 'variables' | 'connections';

/** `AIRLESS_SECRETS_DIR`, else `.airless` in the working directory. */
export function secretsDir(env: Record<string, string | undefined> = process.env, cwd = process.cwd()): string {
  return env.AIRLESS_SECRETS_DIR ? path.resolve(cwd, env.AIRLESS_SECRETS_DIR) : path.join(cwd, '.airless');
}

/** The environment name of a key: upper case, other characters as `_`. */
export function envName(kind: SecretKind, key: string): string {
  return `${kind === 'variables' ? 'AIRLESS_VAR_' : 'AIRLESS_CONN_'}${key.toUpperCase().replace(/[^A-Z0-9_]/g, '_')}`;
}

/** One of the two JSON files: read whole, written whole (atomically, by rename). */
export class SecretsFile {
  readonly file: string;
  constructor(readonly dir: string, readonly kind: SecretKind) {
    this.file = path.join(dir, `${kind}.json`);
  }

  async read(): Promise<Record<string, unknown>> {
    let text: string;
    try {
      text = await readFile(this.file, 'utf8');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return {};
      throw e;
    }
    let v: unknown;
    try {
      v = JSON.parse(text);
    } catch (e) {
      throw new InvalidInputError(`${this.file} is not JSON: ${(e as Error).message}`);
    }
    if (v === null || typeof v !== 'object' || Array.isArray(v)) throw new InvalidInputError(`${this.file} must hold a JSON object of ${this.kind} by key`);
    return v as Record<string, unknown>;
  }

  async write(all: Record<string, unknown>): Promise<void> {
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    const tmp = `${this.file}.${process.pid}.tmp`;
    const sorted = Object.fromEntries(Object.entries(all).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
    // Owner-only: the file holds passwords.
    await writeFile(tmp, `${JSON.stringify(sorted, null, 2)}\n`, { mode: 0o600 });
    await rename(tmp, this.file);
  }

  async set(key: string, value: unknown): Promise<void> {
    const all = await this.read();
    all[key] = value;
    await this.write(all);
  }

  /** True when the key existed. */
  async delete(key: string): Promise<boolean> {
    const all = await this.read();
    if (!(key in all)) return false;
    delete all[key];
    await this.write(all);
    return true;
  }
}

/** A variable's text from a file entry: strings as they are, anything else as its JSON. */
export function variableText(v: unknown): string {
  return typeof v === 'string' ? v : JSON.stringify(v);
}

/** A connection from a file entry: a URI or Airflow's JSON form. */
export function fileConnection(connId: string, v: unknown): Connection {
  return typeof v === 'string' ? parseConnection(connId, v) : parseConnectionJson(connId, v);
}

/**
 * @example
 * const secrets = new LocalSecrets({ env: process.env, dir: secretsDir() });
 * await secrets.variable('bucket');
 */
export class LocalSecrets implements SecretsSource {
  private readonly env: Record<string, string | undefined>;
  private readonly vars: SecretsFile;
  private readonly conns: SecretsFile;
  constructor(opts: { env?: Record<string, string | undefined>; dir?: string } = {}) {
    this.env = opts.env ?? process.env;
    const dir = opts.dir ?? secretsDir(this.env);
    this.vars = new SecretsFile(dir, 'variables');
    this.conns = new SecretsFile(dir, 'connections');
  }

  async variable(key: string): Promise<string | undefined> {
    const fromEnv = this.env[envName('variables', key)];
    if (fromEnv !== undefined) return fromEnv;
    const v = (await this.vars.read())[key];
    return v === undefined ? undefined : variableText(v);
  }

  async connection(connId: string): Promise<Connection | undefined> {
    const fromEnv = this.env[envName('connections', connId)];
    if (fromEnv !== undefined) return parseConnection(connId, fromEnv);
    const v = (await this.conns.read())[connId];
    return v === undefined ? undefined : fileConnection(connId, v);
  }
}
