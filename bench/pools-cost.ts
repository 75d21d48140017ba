/**
 * What a pool costs: DynamoDB capacity per task instance for a fan-out of 20 tasks,
 * plain, in a pool with room for all (no waiting), and in a 2-slot pool (18 wait), counted
 * by the real DynamoStore on DynamoDB Local (the embedded runtime drives the engine).
 *
 * npx tsx bench/pools-cost.ts [--dynamodb-endpoint URL]
 */
import { parseArgs } from 'node:util';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { VirtualClock } from '../lib/adapters/clock.js';
import { createTables } from '../lib/adapters/aws/dynamo-schema.js';
import { DynamoStore } from '../lib/adapters/aws/dynamo-store.js';
import { dag, definePool } from '../lib/sdk/index.js';
import type { TaskOptions } from '../lib/sdk/types.js';
import { EmbeddedRuntime } from '../lib/runtime/embedded.js';
import { InlineBundleSource } from '../lib/runtime/inline-bundles.js';
import { LOCAL_AWS, startDynamoDbLocal } from '../lib/runtime/dynamodb-local.js';

const FAN = 20;

async function measure(client: DynamoDBClient, name: string, opts: TaskOptions, pools: ReturnType<typeof definePool>[]) {
  // maxActiveTasks above the fan-out, so the run's own counter does not bind: only the pool's cost shows.
  const d = dag(`cost_${name}`, { maxActiveTasks: 64 }, ({ task }) => {
    const start = task('start', () => 1, { isolation: 'none' });
    start.before(Array.from({ length: FAN }, (_, i) => task(`t${i}`, () => i, { isolation: 'none', ...opts, priorityWeight: i % 5 })));
  });
  const store = new DynamoStore({ client, tablePrefix: `pc${process.pid}-${name}-` });
  await createTables(client, `pc${process.pid}-${name}-`);
  const bundles = new InlineBundleSource([d], [], pools);
  const rt = new EmbeddedRuntime({ store, bundles, clock: new VirtualClock(Date.parse('2026-01-01T00:00:00Z')), schedules: false, concurrency: 8 });
  await rt.register(bundles.version);
  const before = { ...store.usage };

  const run = await rt.trigger(d.spec.dagId);
  const outcome = await rt.runToCompletion(d.spec.dagId, run.runId);
  const tasks = FAN + 1;
  const per = (k: 'wcu' | 'rcu' | 'requests') => Math.round(((store.usage[k] - before[k]) / tasks) * 100) / 100;
  return { name, outcome, tasks, wcuPerTask: per('wcu'), rcuPerTask: per('rcu'), requestsPerTask: per('requests') };
}

const { values } = parseArgs({ options: { 'dynamodb-endpoint': { type: 'string' } } });
let endpoint = values['dynamodb-endpoint'];
const local = endpoint ? undefined : await startDynamoDbLocal();
endpoint ??= local!.endpoint;
const client = new DynamoDBClient({ endpoint, ...LOCAL_AWS });
try {
  const roomy = definePool('roomy', { slots: 100 });
  const narrow = definePool('narrow', { slots: 2 });
  const results = [
    await measure(client, 'plain', {}, []),
    await measure(client, 'pool_free', { pool: roomy }, [roomy]),
    await measure(client, 'pool_2_slots', { pool: narrow }, [narrow]),
    await measure(client, 'per_dag_limit', { maxActiveTisPerDag: 2 }, []),
  ];
  console.log(JSON.stringify(results, null, 2));
} finally {
  client.destroy();
  await local?.stop();
}
