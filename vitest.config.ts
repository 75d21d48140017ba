import { configDefaults, defineConfig } from 'vitest/config';
import { fileURLToPath } from 'node:url';
import { availableParallelism } from 'node:os';

/** The engine suites: run once on the memory store and once on DynamoDB Local. */
// Engine behaviour tests mirror lib/engine's folders (DESIGN.md's layout).
const ENGINE_SUITES = ['test/engine/**/*.test.ts'];
// The API driven by a client generated from Airflow's spec (issue 24), on both stores.
ENGINE_SUITES.push('test/api/client.test.ts');
// The API's store-backed writes (XCom, deletes, /wait, event logs) and DAG versions (issue 24).
ENGINE_SUITES.push('test/api/writes.test.ts', 'test/api/versions.test.ts');
// get_dag_source over a local versions folder (issue 24).
ENGINE_SUITES.push('test/api/dag-sources.test.ts');
/** Suites about the engine's code, not its behaviour on a store: memory project only. */
const STORE_INDEPENDENT = ['test/engine/purity.test.ts', 'test/engine/layout.test.ts', 'test/engine/handlers/edge.test.ts', 'test/engine/rules/**/*.test.ts', 'test/engine/flow/secrets.test.ts'];

// Pure rules and messages (moved from test/unit and test/adapters): no store, so fast only.
STORE_INDEPENDENT.push('test/engine/rules/{duration,template,timetable,validate,pool-limits}.test.ts', 'test/engine/model/messages.test.ts');

/**
 * Tests that need DynamoDB Local without being engine suites: the store contract on it, and
 * the API over a DynamoDB store. They run in the `dynamodb` project only.
 */
const DYNAMODB_ONLY = ['test/contract/dynamodb.test.ts', 'test/contract/assets.test.ts', 'test/runtime/dynamodb-local.test.ts', 'test/api/backends.test.ts'];

/**
 * The `slow` tier: whole processes, DAG folders built (TypeScript, esbuild), synthesis, the
 * browser, the rehearsal. Everything else under test/ is `fast`: pure and memory-store tests, in process
 * (an adapter's in-process local-aws-sqs or s3rver included: they answer in milliseconds).
 */
const SLOW = [
  'test/e2e/**/*.test.ts', // the CLI and the handlers as whole processes, the package, chaos
  'test/rehearsal/**/*.test.ts', // the synthesized stack on local servers
  'test/ui/**/*.test.ts', // headless Chromium
  'test/infra/**/*.test.ts', // cdk synth and cdk-nag
  'test/isolation/**/*.test.ts', // tries in worker threads and child processes
  'test/build/**/*.test.ts', // DAG folders type-checked by TypeScript and bundled by esbuild
  'test/cli/run-quiet.test.ts', // `airless run` in process: bundles a DAG folder, tries in threads
  'test/cli/tasks-test.test.ts', // `airless tasks test` in process: bundles a DAG folder
  'test/cli/aws-push.test.ts', // push against s3rver and a registration loop
  'test/cli/secrets.test.ts', // bin/airless.mjs as a child process per command
  'test/api/dev-cli.test.ts', // `airless dev` as a child process
  'test/cli/dev-import-errors.test.ts', // dev's reload recording: builds a DAG folder
];

const shared = {
  resolve: {
    alias: {
      airless: fileURLToPath(new URL('./lib/sdk/index.ts', import.meta.url)),
      'apache-airflow-ts-sdk': fileURLToPath(new URL('./lib/sdk/airflow-ts-sdk/index.ts', import.meta.url)),
      '@apache-airflow/ts-sdk': fileURLToPath(new URL('./lib/sdk/airflow-ts-sdk/index.ts', import.meta.url)),
    },
  },
};
const env = (store: 'memory' | 'dynamodb') => ({ AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true', AIRLESS_TEST_STORE: store });
/** Starts DynamoDB Local once for the projects that list it (test/setup/global.ts). */
const DYNAMODB_LOCAL = ['test/setup/global.ts'];

export default defineConfig({
  ...shared,
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Vitest's default is one worker per core less one: a single worker on CI's 2 cores, where
    // most of a file's time is spent waiting on child processes, DynamoDB Local and sockets.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    // Three tiers by speed; `npm test` runs all three, `npm run test:fast` the first.
    projects: [
      {
        ...shared,
        extends: true,
        test: {
          name: 'fast',
          include: ['test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...SLOW, ...DYNAMODB_ONLY],
          env: env('memory'),
        },
      },
      {
        ...shared,
        extends: true,
        test: {
          name: 'dynamodb',
          include: [...ENGINE_SUITES, ...DYNAMODB_ONLY],
          exclude: STORE_INDEPENDENT,
          globalSetup: DYNAMODB_LOCAL,
          testTimeout: 60_000,
          env: env('dynamodb'),
        },
      },
      {
        ...shared,
        extends: true,
        test: {
          name: 'slow',
          include: SLOW,
          globalSetup: DYNAMODB_LOCAL,
          env: env('memory'),
        },
      },
    ],
  },
});
