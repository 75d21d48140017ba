/**
 * `airless connections set|get|list|delete`: Airflow connections (URI or JSON form) in the
 * local file or a deployed stack. `get` never prints the password.
 */
import { fileConnection } from '../../adapters/secrets-local.js';
import { connectionUri, parseConnection } from '../../adapters/secrets-parse.js';
import { maskFields, type Connection } from '../../engine/index.js';
import { UsageError } from '../output.js';
import type { Command } from '../registry.js';
import { backendFor, checkKey, SECRET_OPTIONS, type SecretsIo } from '../secrets-backend.js';

type Handler = (args: string[], o: Record<string, any>, io: SecretsIo) => Promise<number>;

function command(verb: string, args: Command['args'], summary: string, run: Handler): Command {
  return { words: ['connections', verb], args, summary, group: 'local', options: { ...SECRET_OPTIONS }, run: (a, o, io) => run(a, o, io) };
}

/**
 * The connection as shown: the password masked, and in the extras every value under one
 * of Airflow's sensitive field names (keyfile_dict, service_account, password... at any
 * depth: maskFields), as Airflow's masker shows them.
 */
function shown(c: Connection): Connection {
  const masked: Connection = { ...c, ...(c.password !== undefined ? { password: '***' } : {}) };
  masked.extra = maskFields(c.extra) as Connection['extra'];
  return masked;
}

export const connectionsSet = command('set', [{ name: 'id' }, { name: 'uri' }], "set a connection from Airflow's URI (postgres://user:pass@host:5432/schema) or JSON form", async ([id, text], o, { env, out }) => {
  checkKey('connection id', id!);
  parseConnection(id!, text!);
  const b = await backendFor('connections', o, env);
  if (b.where === 'local') await b.file.set(id!, text!.trimStart().startsWith('{') ? JSON.parse(text!) : text!);
  else await b.aws.setConnection(id!, text!);
  out(o.json ? JSON.stringify({ id, set: true }) : `connection ${id} set${b.where === 'local' ? ` in ${b.file.file}` : ''}`);
  return 0;
});

export const connectionsGet = command('get', [{ name: 'id' }], 'show a connection (password masked)', async ([id], o, { env, out }) => {
  checkKey('connection id', id!);
  const b = await backendFor('connections', o, env);
  let c: Connection | undefined;
  if (b.where === 'local') {
    const v = (await b.file.read())[id!];
    c = v === undefined ? undefined : fileConnection(id!, v);
  } else c = await b.aws.connection(id!);
  if (!c) throw new UsageError(`connection "${id}" is not defined`);
  const s = shown(c);
  if (o.json) out(JSON.stringify(s));
  else {
    out(`uri: ${connectionUri(s)}`);
    for (const k of ['connType', 'host', 'port', 'login', 'password', 'schema'] as const) if (s[k] !== undefined) out(`${k}: ${s[k]}`);
    if (Object.keys(s.extra).length) out(`extra: ${JSON.stringify(s.extra)}`);
  }
  return 0;
});

export const connectionsList = command('list', [], 'list connection ids', async (_a, o, { env, out }) => {
  const b = await backendFor('connections', o, env);
  const ids = b.where === 'local' ? Object.keys(await b.file.read()).sort() : await b.aws.listConnections();
  out(o.json ? JSON.stringify(ids) : ids.join('\n'));
  return 0;
});

export const connectionsDelete = command('delete', [{ name: 'id' }], 'delete a connection', async ([id], o, { env, out }) => {
  checkKey('connection id', id!);
  const b = await backendFor('connections', o, env);
  const existed = b.where === 'local' ? await b.file.delete(id!) : await b.aws.deleteConnection(id!);
  if (!existed) throw new UsageError(`connection "${id}" is not defined`);
  out(o.json ? JSON.stringify({ id, deleted: true }) : `connection ${id} deleted`);
  return 0;
});
