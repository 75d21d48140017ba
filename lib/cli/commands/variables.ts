/**
 * `airless variables set|get|list|delete`: Airflow variables in the local file or a deployed stack.
 */
import { isSensitiveKey } from '../../engine/index.js';
import { variableText } from '../../adapters/secrets-local.js';
import { UsageError } from '../output.js';
import type { Command } from '../registry.js';
import { backendFor, checkKey, SECRET_OPTIONS, type SecretsIo } from '../secrets-backend.js';

type Handler = (args: string[], o: Record<string, any>, io: SecretsIo) => Promise<number>;

function command(verb: string, args: Command['args'], summary: string, run: Handler): Command {
  return { words: ['variables', verb], args, summary, group: 'local', options: { ...SECRET_OPTIONS }, run: (a, o, io) => run(a, o, io) };
}

export const variablesSet = command('set', [{ name: 'key' }, { name: 'value' }], 'set an Airflow variable (local .airless/variables.json, or --stack)', async ([key, value], o, { env, out }) => {
  checkKey('variable key', key!);
  const b = await backendFor('variables', o, env);
  if (b.where === 'local') await b.file.set(key!, value!);
  else await b.aws.setVariable(key!, value!);
  out(o.json ? JSON.stringify({ key, set: true }) : `variable ${key} set${b.where === 'local' ? ` in ${b.file.file}` : ''}`);
  return 0;
});

export const variablesGet = command('get', [{ name: 'key' }], 'print a variable (with --json a secret one is masked)', async ([key], o, { env, out }) => {
  checkKey('variable key', key!);
  const b = await backendFor('variables', o, env);
  const raw = b.where === 'local' ? (await b.file.read())[key!] : await b.aws.variable(key!);
  if (raw === undefined) throw new UsageError(`variable "${key}" does not exist`);
  const text = variableText(raw);
  out(o.json ? JSON.stringify({ key, value: isSensitiveKey(key!) ? '***' : text }) : text);
  return 0;
});

export const variablesList = command('list', [], 'list variable keys', async (_a, o, { env, out }) => {
  const b = await backendFor('variables', o, env);
  const keys = b.where === 'local' ? Object.keys(await b.file.read()).sort() : await b.aws.listVariables();
  out(o.json ? JSON.stringify(keys) : keys.join('\n'));
  return 0;
});

export const variablesDelete = command('delete', [{ name: 'key' }], 'delete a variable', async ([key], o, { env, out }) => {
  checkKey('variable key', key!);
  const b = await backendFor('variables', o, env);
  const existed = b.where === 'local' ? await b.file.delete(key!) : await b.aws.deleteVariable(key!);
  if (!existed) throw new UsageError(`variable "${key}" does not exist`);
  out(o.json ? JSON.stringify({ key, deleted: true }) : `variable ${key} deleted`);
  return 0;
});
