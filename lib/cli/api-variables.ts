/**
 * The API's variable store over the backends `airless variables` uses (secrets-backend.ts):
 * the local file, or SSM Parameter Store for a stack, so the REST API, the CLI and the
 * tasks read and write the same variables.
 */
import { variableText } from '../adapters/secrets-local.js';
import type { VariableStore } from '../api/routes-variables.js';
import { isSensitiveKey } from '../engine/index.js';
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
