/**
 * The API's variable and connection stores over the backends `airless variables` uses (secrets-backend.ts):
 * the local files, or SSM Parameter Store and Secrets Manager for a stack, so the REST API,
 * the CLI and the tasks read and write the same variables and connections.
 */
import { fileConnection, variableText } from '../adapters/secrets-local.js';
import type { ConnectionStore } from '../api/routes-connections.js';
import type { VariableStore } from '../api/routes-variables.js';
import { isSensitiveKey, type Connection } from '../engine/index.js';
import { backendFor } from './secrets-backend.js';

/**
 * @example
 * const variables = await variableStore({}, process.env); // .airless/variables.json
 */
export async function variableStore(o: { stack?: string; endpoint?: string }, env: Record<string, string | undefined>): Promise<VariableStore> {
  const b = await backendFor('variables', o, env);
  if (b.where === 'local') {
    const f = b.file;
    return {
      encrypted: () => false,
      list: async () => Object.keys(await f.read()).sort(),
      get: async (key) => {
        const all = await f.read();
        return Object.hasOwn(all, key) ? variableText(all[key]) : undefined;
      },
      set: (key, value) => f.set(key, value),
      delete: (key) => f.delete(key),
    };
  }
  const aws = b.aws;
  return {
    // setVariable keeps a sensitive key as a SecureString (KMS-encrypted).
    encrypted: (key) => isSensitiveKey(key),
    list: () => aws.listVariables(),
    get: (key) => aws.variable(key),
    set: (key, value) => aws.setVariable(key, value),
    delete: (key) => aws.deleteVariable(key),
  };
}

/** Airflow's JSON form of a connection, as `airless connections set` accepts it. */
function jsonForm(c: Connection): Record<string, unknown> {
  return {
    conn_type: c.connType, host: c.host, login: c.login, password: c.password, schema: c.schema, port: c.port,
    ...(Object.keys(c.extra).length ? { extra: c.extra } : {}),
  };
}

/**
 * @example
 * const connections = await connectionStore({ stack: 'Airless' }, process.env); // Secrets Manager
 */
export async function connectionStore(o: { stack?: string; endpoint?: string }, env: Record<string, string | undefined>): Promise<ConnectionStore> {
  const b = await backendFor('connections', o, env);
  if (b.where === 'local') {
    const f = b.file;
    return {
      list: async () => Object.keys(await f.read()).sort(),
      get: async (id) => {
        const all = await f.read();
        return Object.hasOwn(all, id) ? fileConnection(id, all[id]) : undefined;
      },
      set: (c) => f.set(c.connId, JSON.parse(JSON.stringify(jsonForm(c)))),
      delete: (id) => f.delete(id),
    };
  }
  const aws = b.aws;
  return {
    list: () => aws.listConnections(),
    get: (id) => aws.connection(id),
    set: (c) => aws.setConnection(c.connId, JSON.stringify(jsonForm(c))),
    delete: (id) => aws.deleteConnection(id),
  };
}
