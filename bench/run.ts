/**
 * `npm run bench`: the four scenarios of issue 6 (scheduler shapes, sensors, cost, HA), and later ones (mapping, UI, jobs),
 * a table for a person, and with `--json` the results in bench/results/latest.json and
 * as the last line of stdout. Method and latest figures: docs/performance.md.
 *
 * npm run bench -- [--quick] [--json] [--only shapes,sensors,cost,ha,mapping,ui,backfill,inner-loop,jobs,assets] [--memory-only] [--dynamodb-endpoint URL]
 * (`--only backfill --update-cost-model` also writes lib/engine/rules/cost-model.ts)
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { LOCAL_AWS, startDynamoDbLocal, type DynamoDbLocal } from '../lib/runtime/dynamodb-local.js';
import { formatReport, type BenchReport } from './report.js';
import { costBench } from './scenarios/cost.js';
import { haBench } from './scenarios/ha.js';
import { shapeBench } from './scenarios/shapes.js';
import { sensorBench } from './sensors.js';

export interface BenchOptions {
  quick: boolean;
  only: ReadonlySet<'shapes' | 'sensors' | 'cost' | 'ha' | 'ui' | 'mapping' | 'backfill' | 'idle' | 'scale' | 'inner-loop' | 'jobs' | 'assets'>;
  /** Write the backfill scenario's figures into lib/engine/rules/cost-model.ts. */
  updateCostModel?: boolean;
  /** Skip every scenario that needs DynamoDB Local (the smoke test). */
  memoryOnly: boolean;
  dynamodbEndpoint?: string;
  /** Progress lines (to stderr). */
  progress?: (line: string) => void;
}

const SCENARIOS = ['shapes', 'sensors', 'cost', 'ha', 'ui', 'mapping', 'backfill', 'idle', 'scale', 'inner-loop', 'jobs', 'assets'] as const;

/**
 * Runs the selected scenarios and returns the report.
 *
 * @example
 * const report = await runBench({ quick: true, only: new Set(['shapes']), memoryOnly: true });
 * report.shapes.length; // 8 (four shapes, in process and isolated)
 */
export async function runBench(opts: BenchOptions): Promise<BenchReport> {
  const t0 = performance.now();
  const scale = opts.quick ? 0.1 : 1;
  const say = opts.progress ?? (() => {});
  const report: BenchReport = {
    machine: {
      cores: availableParallelism(), node: process.version, platform: `${process.platform}-${process.arch}`,
      loadAvg1m: loadavg()[0]!, quick: opts.quick, startedAt: new Date().toISOString(),
    },
    shapes: [],
    durationMs: 0,
  };
  const needsDynamo = !opts.memoryOnly && (opts.only.has('shapes') || opts.only.has('cost') || opts.only.has('ha') || opts.only.has('mapping') || opts.only.has('backfill') || opts.only.has('idle') || opts.only.has('jobs') || opts.only.has('assets'));
  let ddb: DynamoDbLocal | undefined;
  let client: DynamoDBClient | undefined;
  let endpoint = opts.dynamodbEndpoint;
  try {
    if (needsDynamo) {
      if (!endpoint) {
        say('starting DynamoDB Local');
        ddb = await startDynamoDbLocal();
        endpoint = ddb.endpoint;
      }
      client = new DynamoDBClient({ endpoint, ...LOCAL_AWS });
    }
    if (opts.only.has('shapes')) {
      say('scheduler shapes');
      report.shapes = await shapeBench({ scale, concurrency: 32, dynamodb: client });
    }
    if (opts.only.has('sensors')) {
      say('sensors');
      const sensors = Math.round(20_000 * scale);
      // 40 % of the sensors share a poke context with another one.
      const distinct = Math.round(sensors * 0.6);
      const batched = await sensorBench({ sensors, distinct, shards: 8, pokeMs: 50 });
      const naive = await sensorBench({ sensors, distinct: sensors, shards: 8, pokeMs: 50 });
      report.sensors = {
        sensors, distinct, shards: 8, pokesPerCycle: batched.pokesPerCycle, naivePokesPerCycle: batched.naivePokesPerCycle,
        cycleMs: batched.cycleMs, naiveCycleMs: naive.cycleMs, slowestShardMs: batched.slowestShardMs,
      };
    }
    if (client && endpoint && opts.only.has('cost')) {
      say('cost');
      report.cost = await costBench(client, endpoint, say);
    }
    // issue 22: one run of 1,000 and one of 10,000 independent tasks, embedded (bench/scenarios/scale.ts)
    if (opts.only.has('scale')) {
      say('scale: runs of 1,000 and 10,000 independent tasks');
      const { scaleBench } = await import('./scenarios/scale.js');
      report.scale = await scaleBench();
    }
    if (client && endpoint && opts.only.has('ha')) {
      say('HA');
      report.ha = await haBench({ runs: Math.round(100 * scale), dynamodb: client, ddbEndpoint: endpoint });
    }
    // issue 13: one expand of 10,000 (--quick: 1,000), bench/scenarios/mapping.ts
    if (opts.only.has('mapping')) {
      say('dynamic task mapping');
      const { mappingBench } = await import('./scenarios/mapping.js');
      const mapping = await mappingBench({ n: opts.quick ? 1_000 : 10_000, concurrency: 32, dynamodb: client, progress: say });
      report.mapping = mapping;
    }
    // issue 21: requests per backfilled run, and the dry run's cost model (bench/scenarios/backfill.ts)
    if (client && opts.only.has('backfill')) {
      say('backfill');
      const { backfillBench, writeCostModel } = await import('./scenarios/backfill.js');
      report.backfill = await backfillBench(client);
      if (opts.updateCostModel) writeCostModel(report.backfill.measured);
    }
    // issue 22 §4: the idle bill (bench/scenarios/idle.ts, bench/idle-bill.ts)
    if (client && endpoint && opts.only.has('idle')) {
      say('idle bill');
      const { idleBench } = await import('./scenarios/idle.js');
      report.idle = await idleBench(client, endpoint);
    }
    // issue 20: the requests of one operator's job (bench/scenarios/jobs.ts)
    if (client && opts.only.has('jobs')) {
      say('jobs');
      const { jobsBench } = await import('./scenarios/jobs.js');
      report.jobs = await jobsBench(client);
    }
    // issue 21: what one asset event costs (bench/scenarios/assets.ts)
    if (client && opts.only.has('assets')) {
      say('asset events');
      const { assetCostBench, formatAssetCost } = await import('./scenarios/assets.js');
      const assets = await assetCostBench(client);
      (report as BenchReport & { assets?: unknown }).assets = assets;
      say(formatAssetCost(assets));
    }
    // issue 14: the UI scenario lives in bench/ui.ts (needs Debian's chromium)
    if (opts.only.has('ui')) {
      say('UI grid and graph');
      const { uiBench, formatUiBench } = await import('./ui.js');
      const ui = await uiBench({ runs: Math.round(100 * scale) || 10 });
      (report as BenchReport & { ui?: unknown }).ui = ui;
      say(formatUiBench(ui));
    }
    // issue 19: first and second `airless run` of the scaffold's DAG, bench/inner-loop.ts
    if (opts.only.has('inner-loop')) {
      say('inner loop (airless run, twice)');
      const { innerLoopBench } = await import('./inner-loop.js');
      report.innerLoop = await innerLoopBench();
    }
  } finally {
    client?.destroy();
    await ddb?.stop();
  }
  report.durationMs = Math.round(performance.now() - t0);
  return report;
}

/** Where `--json` writes. */
export const RESULTS_FILE = fileURLToPath(new URL('./results/latest.json', import.meta.url));

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  const { values } = parseArgs({
    options: {
      quick: { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
      only: { type: 'string' },
      'memory-only': { type: 'boolean', default: false },
      'dynamodb-endpoint': { type: 'string' },
      'update-cost-model': { type: 'boolean', default: false },
    },
  });
  const only = new Set((values.only ?? SCENARIOS.join(',')).split(',').map((s) => s.trim()));
  for (const s of only) {
    if (!(SCENARIOS as readonly string[]).includes(s)) {
      console.error(`unknown scenario "${s}"; choose from ${SCENARIOS.join(', ')}`);
      process.exit(2);
    }
  }
  const report = await runBench({
    quick: values.quick!, only: only as BenchOptions['only'], memoryOnly: values['memory-only']!,
    dynamodbEndpoint: values['dynamodb-endpoint'], progress: (l) => process.stderr.write(`bench: ${l}...\n`),
    updateCostModel: values['update-cost-model'],
  });
  console.log(formatReport(report));
  if (values.json) {
    mkdirSync(new URL('./results/', import.meta.url), { recursive: true });
    writeFileSync(RESULTS_FILE, `${JSON.stringify(report, null, 2)}\n`);
    console.log(JSON.stringify(report));
  }
}
