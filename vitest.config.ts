import { defineConfig } from 'vitest/config';
import { fileURLToPath } from 'node:url';
import { availableParallelism } from 'node:os';

/** The engine suites: run once on the memory store and once on DynamoDB Local. */
const ENGINE_SUITES = ['test/unit/engine-*.test.ts', 'test/unit/poker-*.test.ts'];
// Engine behaviour tests that mirror lib/engine's folders (DESIGN.md's layout).
ENGINE_SUITES.push('test/engine/**/*.test.ts');
// The API driven by a client generated from Airflow's spec (issue 24), on both stores.
ENGINE_SUITES.push('test/api/client.test.ts');
// The API's store-backed writes (XCom, deletes, /wait, event logs) and DAG versions (issue 24).
ENGINE_SUITES.push('test/api/writes.test.ts', 'test/api/versions.test.ts');
/** Suites about the engine's code, not its behaviour on a store: memory project only. */
const STORE_INDEPENDENT = ['test/unit/engine-purity.test.ts', 'test/unit/engine-layout.test.ts', 'test/unit/engine-handler-edge.test.ts'];

const shared = {
  resolve: {
    alias: {
      airless: fileURLToPath(new URL('./lib/sdk/index.ts', import.meta.url)),
      'apache-airflow-ts-sdk': fileURLToPath(new URL('./lib/sdk/airflow-ts-sdk/index.ts', import.meta.url)),
      '@apache-airflow/ts-sdk': fileURLToPath(new URL('./lib/sdk/airflow-ts-sdk/index.ts', import.meta.url)),
    },
  },
};

export default defineConfig({
  ...shared,
  test: {
    globalSetup: ['test/setup/global.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Vitest's default is one worker per core less one: a single worker on CI's 2 cores, where
    // most of a file's time is spent waiting on child processes, DynamoDB Local and sockets.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    projects: [
      {
        ...shared,
        extends: true,
        test: {
          name: 'memory',
          include: ['test/**/*.test.ts'],
          env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true', AIRLESS_TEST_STORE: 'memory' },
        },
      },
      {
        ...shared,
        extends: true,
        test: {
          name: 'dynamodb',
          include: ENGINE_SUITES,
          exclude: STORE_INDEPENDENT,
          testTimeout: 60_000,
          env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true', AIRLESS_TEST_STORE: 'dynamodb' },
        },
      },
    ],
  },
});
