/**
 * The files `airless init` writes: a project a team would commit. Kept as text here
 * (not a template folder) so the compiled package needs no extra files and the
 * scaffold's tests in this repository read exactly what users get.
 */

export interface ScaffoldVersions {
  /** How the project depends on airless (`^0.1.0`, or `file:...tgz`). */
  airless: string;
  /** Versions this airless release was built and tested with. */
  dev: Record<string, string>;
}

const EXAMPLE_DAG = `/**
 * An example DAG: extract -> transform -> load, with a retry and XCom.
 * Run it: npx airless run dags --dag example --time-warp
 */
import { dag } from 'airless';

export default dag('example', {
  schedule: '@daily',
  startDate: '2026-01-01',
  params: { multiplier: 2 },
  defaultArgs: { retries: 2, retryDelay: '30s' },
}, ({ task }) => {
  const extract = task('extract', async (ctx) => {
    ctx.log.info(\`extracting rows for \${ctx.ds}\`);
    return { rows: 21 };
  });
  // A task's second parameter is its inputs; calling a task with them wires the edges.
  const transform = task('transform', async (ctx, { rows }: { rows: number }) => rows * Number(ctx.params.multiplier));
  const load = task('load', async (_ctx, { total }: { total: number }) => \`loaded \${total} rows\`);
  load({ total: transform({ rows: extract().rows }) });
});
`;

const EXAMPLE_TEST = `/**
 * Tests the example DAG in process: no database, no AWS, virtual time.
 */
import { describe, expect, it } from 'vitest';
import { assertRunState, assertTaskStates, testDag } from 'airless/testing';
import example from '../dags/example.js';

describe('example DAG', () => {
  it('runs extract, transform and load', async () => {
    const r = await testDag(example, { logicalDate: '2026-01-01' });
    assertRunState(r, 'success');
    assertTaskStates(r, { extract: 'success', transform: 'success', load: 'success' });
    expect(r.xcom('transform')).toBe(42);
    expect(r.taskLogs('extract')).toContain('extracting rows for 2026-01-01');
  });

  it('retries a failing extract on the virtual clock', async () => {
    let calls = 0;
    const r = await testDag(example, {
      mocks: { extract: async () => { calls += 1; if (calls === 1) throw new Error('flaky'); return { rows: 1 }; } },
    });
    assertRunState(r, 'success');
    expect(r.tasks.extract.tries).toBe(2);
    expect(r.xcom('load')).toBe('loaded 2 rows');
  });
});
`;

const CDK_APP = `/**
 * The deployment: one stack with Airless (DynamoDB, SQS, Lambda, EventBridge Scheduler, S3).
 * npx cdk synth   (offline)   |   npx cdk deploy && npx airless push dags
 * Settings as CDK context: npx cdk deploy -c alarmEmail=ops@example.com -c shards=16
 */
import { App } from 'aws-cdk-lib';
import { AirlessStack } from 'airless/infra';

const app = new App();
const context = (key: string): string | undefined => app.node.tryGetContext(key)?.toString();
const shards = context('shards');
new AirlessStack(app, 'Airless', {
  env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION },
  airless: {
    alarmEmail: context('alarmEmail'),
    // Poker shards (default 8); airless rehearse synthesizes with -c shards=2, which rehearses faster.
    shards: shards === undefined ? undefined : Number(shards),
  },
});
app.synth();
`;

const TSCONFIG = {
  compilerOptions: {
    target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true,
    esModuleInterop: true, skipLibCheck: true, resolveJsonModule: true, noEmit: true, types: ['node'],
    // DAGs, tests and the CDK app run on Node: without the DOM's declarations a check parses 40 % less.
    lib: ['ES2022'],
    // DAG files written against Airflow's TypeScript SDK: its surface, as airless build resolves it.
    paths: {
      'apache-airflow-ts-sdk': ['./node_modules/airless/dist/lib/sdk/airflow-ts-sdk/index.d.ts'],
      '@apache-airflow/ts-sdk': ['./node_modules/airless/dist/lib/sdk/airflow-ts-sdk/index.d.ts'],
    },
  },
  include: ['dags', 'test', 'infra'],
};

const GITIGNORE = `node_modules/
cdk.out/
.airless/
dist/
*.tgz
`;

function readme(name: string): string {
  return `# ${name}

Workflows on [Airless](https://www.npmjs.com/package/airless): Apache Airflow semantics, serverless on AWS.

| | |
|---|---|
| \`dags/\` | DAG files (\`export default dag(...)\`); every \`*.ts\` here is a DAG file, \`_helpers.ts\` are not |
| \`test/\` | tests with \`airless/testing\` (no database, no AWS) |
| \`infra/app.ts\` | the CDK app that deploys Airless |

\`\`\`sh
npm test                                          # the DAG tests
npx tsc --noEmit                                  # types (airless build checks them too)
npx airless run dags --dag example --time-warp    # one run, in process, virtual time
npx airless dev dags                              # schedules on real time
npx cdk synth                                     # the CloudFormation template, offline
npx cdk deploy && npx airless push dags           # deploy, then upload the DAGs
\`\`\`

\`npx airless --help\` lists every command. Local state and builds go to \`.airless/\` (ignored by git).
`;
}

/**
 * Every file of a new project, by relative path.
 *
 * @example
 * scaffoldFiles('my-flows', { airless: '^0.1.0', dev: { typescript: '5.9.3' } });
 */
export function scaffoldFiles(name: string, v: ScaffoldVersions): Record<string, string> {
  const pick = (names: string[]) => Object.fromEntries(names.filter((n) => v.dev[n]).map((n) => [n, v.dev[n]]));
  const pkg = {
    name, version: '0.1.0', private: true, type: 'module',
    engines: { node: '>=20' },
    scripts: {
      test: 'vitest run', typecheck: 'tsc --noEmit', build: 'airless build dags',
      example: 'airless run dags --dag example --time-warp', dev: 'airless dev dags',
      synth: 'cdk synth', deploy: 'cdk deploy && airless push dags',
    },
    dependencies: { airless: v.airless, ...pick(['aws-cdk-lib', 'constructs']) },
    devDependencies: pick(['@types/node', 'aws-cdk', 'tsx', 'typescript', 'vitest']),
  };
  return {
    'package.json': `${JSON.stringify(pkg, null, 2)}\n`,
    'tsconfig.json': `${JSON.stringify(TSCONFIG, null, 2)}\n`,
    'cdk.json': `${JSON.stringify({ app: 'npx tsx infra/app.ts', notices: false, context: { 'cli-telemetry': false } }, null, 2)}\n`,
    '.gitignore': GITIGNORE,
    'README.md': readme(name),
    'dags/example.ts': EXAMPLE_DAG,
    'test/example.test.ts': EXAMPLE_TEST,
    'infra/app.ts': CDK_APP,
  };
}
