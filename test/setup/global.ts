/**
 * vitest globalSetup of the projects that need a real DynamoDB (`dynamodb` and `slow`, see
 * vitest.config.ts; `fast` has none, so the inner loop starts no Java): one DynamoDB Local for
 * the whole run, passed to tests as `inject('dynamodbEndpoint')`.
 * Without Java or the jar: CI fails the run; a laptop gets '' and the DynamoDB suites skip.
 *
 * vitest runs a project's globalSetup once per project, in its main process. Both projects
 * share one server: the first setup starts it, each teardown releases it, the last stops it.
 */
import type { TestProject } from 'vitest/node';
import { startDynamoDbLocal, type DynamoDbLocal } from '../../lib/runtime/dynamodb-local.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** DynamoDB Local endpoint, or '' when it could not be started outside CI. */
    dynamodbEndpoint: string;
  }
}

interface Shared {
  /** The server being started or running; '' endpoint when it could not start. */
  started: Promise<DynamoDbLocal | undefined>;
  users: number;
}

// On globalThis, not in a module variable: each project loads this file through its own
// module runner, so module state is not shared between projects; the process is.
const KEY = Symbol.for('airless.test.dynamodbLocal');
const slot = globalThis as unknown as Record<symbol, Shared | undefined>;

async function start(): Promise<DynamoDbLocal | undefined> {
  try {
    return await startDynamoDbLocal();
  } catch (err) {
    if (process.env.CI) throw err;
    console.warn(`[airless] DynamoDB Local unavailable, DynamoDB tests will be skipped: ${(err as Error).message}`);
    return undefined;
  }
}

export default async function setup({ provide }: Pick<TestProject, 'provide'>): Promise<() => Promise<void>> {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  const shared = (slot[KEY] ??= { started: start(), users: 0 });
  shared.users++;
  const ddb = await shared.started;
  provide('dynamodbEndpoint', ddb?.endpoint ?? '');
  return async () => {
    if (--shared.users > 0) return;
    slot[KEY] = undefined;
    await ddb?.stop();
  };
}
