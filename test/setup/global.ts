/**
 * vitest globalSetup: one DynamoDB Local for the whole run, shared by the contract
 * suite and any test that needs a real DynamoDB (`inject('dynamodbEndpoint')`).
 * Without Java or the jar: CI fails the run; a laptop gets '' and the DynamoDB suites skip.
 */
import type { TestProject } from 'vitest/node';
import { startDynamoDbLocal } from '../../lib/runtime/dynamodb-local.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** DynamoDB Local endpoint, or '' when it could not be started outside CI. */
    dynamodbEndpoint: string;
  }
}

export default async function setup({ provide }: Pick<TestProject, 'provide'>): Promise<() => Promise<void>> {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  try {
    const ddb = await startDynamoDbLocal();
    provide('dynamodbEndpoint', ddb.endpoint);
    return () => ddb.stop();
  } catch (err) {
    if (process.env.CI) throw err;
    console.warn(`[airless] DynamoDB Local unavailable, DynamoDB tests will be skipped: ${(err as Error).message}`);
    provide('dynamodbEndpoint', '');
    return async () => {};
  }
}
