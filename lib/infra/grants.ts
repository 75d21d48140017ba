/**
 * Exactly what each function's deployed code sends to the state tables: one list of
 * DynamoDB actions per function and table, nothing granted "in case". Each action is
 * either used by a rehearsal scenario (`npx airless rehearse --scenario least-privilege`
 * proves it needed: the call is denied without it) or sits in the rehearsal's allow-list
 * of grants no scenario reaches (lib/rehearsal/grant-allowlist.ts), with its reason.
 * See docs/adr/0007-rehearsal.md ("least privilege").
 *
 * The store's calls, for reading these lists (lib/adapters/aws/dynamo-store.ts):
 * Get/Put/Update/DeleteItem one item each; Query for listRuns, listTasks, listDueTasks and
 * the trigger lists; Scan for listDags and the runs' `active` index; a slot move
 * (`maxActiveTasks`) is a TransactWriteItems whose items IAM authorizes as UpdateItem on
 * the task and on its run, then a GetItem of the task. No code sends ConditionCheckItem
 * (a slot move always has an update), BatchGet/BatchWrite, DescribeTable or streams.
 */
import * as iam from 'aws-cdk-lib/aws-iam';
import { acknowledgeWildcardResource } from './nag.js';
import type { StateTables } from './state-tables.js';
import type { TableId } from '../adapters/aws/stack-contract.js';

export type DynamoAction = 'GetItem' | 'PutItem' | 'UpdateItem' | 'DeleteItem' | 'Query' | 'Scan';
export type FunctionKey = 'tick' | 'worker' | 'poker' | 'registerBundle' | 'events';

/** Per function, per table: the actions its code paths send. */
export const TABLE_ACCESS: Readonly<Record<FunctionKey, Partial<Record<TableId, readonly DynamoAction[]>>>> = {
  // reconcile: list DAGs and active runs, create due runs, advance them, expire leases
  // (with the slot read-back), time out sensors (their trigger row read and deleted).
  tick: {
    dags: ['GetItem', 'UpdateItem', 'Scan'],
    runs: ['GetItem', 'PutItem', 'UpdateItem', 'Query', 'Scan'],
    tasks: ['GetItem', 'PutItem', 'UpdateItem', 'Query'],
    // Query: the poker check looks for sensors in shards whose poker is off (flow/poker-schedule.ts).
    triggers: ['GetItem', 'PutItem', 'DeleteItem', 'Query'],
    // pool and per-task counters given back by an expired lease (one transaction with the
    // task); the poker schedule states.
    kv: ['GetItem', 'UpdateItem'],
  },
  // a task try: claim, XCom, defer/wait rows, runs a DAG schedule creates, fast follow.
  worker: {
    dags: ['GetItem', 'UpdateItem'],
    runs: ['GetItem', 'PutItem', 'UpdateItem', 'Query'],
    tasks: ['GetItem', 'PutItem', 'UpdateItem', 'Query'],
    triggers: ['PutItem', 'DeleteItem'],
    // XCom, pool counters, mapped-instance counts, callback claims, a failed try's custom XCom keys cleared.
    kv: ['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem'],
    // outlet events (put, queued with a transaction), asset-triggered runs (queue read and consumed), ctx.triggeringAssetEvents.
    assets: ['GetItem', 'PutItem', 'UpdateItem'],
  },
  // one shard: list and claim sensor rows, settle sensors and their downstream (a
  // downstream sensor registers its row), end a run whose last task was a sensor (its
  // tasks listed, the DAG's active-run count moved, a queued run started: its root tasks created).
  poker: {
    dags: ['GetItem', 'UpdateItem'],
    runs: ['GetItem', 'UpdateItem', 'Query'],
    tasks: ['GetItem', 'PutItem', 'UpdateItem', 'Query'],
    triggers: ['PutItem', 'UpdateItem', 'DeleteItem', 'Query'],
    kv: ['GetItem', 'UpdateItem'],
  },
  // an event: kept under its keys (kv), the waits under them listed (byEvent index), each
  // matching task resumed (annotate, then queued: with its run's slot counter when
  // maxActiveTasks binds), and its wait's row deleted.
  events: {
    runs: ['GetItem', 'UpdateItem'],
    tasks: ['GetItem', 'UpdateItem'],
    triggers: ['DeleteItem', 'Query'],
    kv: ['UpdateItem'],
  },
  // the DAG registry: upsert, list, delete DAGs a new bundle no longer has (and their specs in kv).
  registerBundle: {
    dags: ['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem', 'Scan'],
    // specs, and the pools a bundle declares (definePool).
    kv: ['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem'],
    // the asset registry and watcher index; the queues of removed DAGs and of assets a schedule dropped.
    assets: ['Query', 'PutItem', 'DeleteItem', 'UpdateItem'],
  },
};

/**
 * One statement per table with the function's actions on it (and on its indexes when it
 * has any and the function queries or scans).
 *
 * @example
 * grantTables(state, worker, TABLE_ACCESS.worker);
 */
export function grantTables(state: StateTables, grantee: iam.IGrantable, access: Partial<Record<TableId, readonly DynamoAction[]>>): void {
  for (const [id, actions] of Object.entries(access) as [TableId, readonly DynamoAction[]][]) {
    const table = state.tables[id];
    if (!table || actions.length === 0) continue;
    const resources = [table.tableArn];
    const readsIndexes = state.hasIndexes(id) && actions.some((a) => a === 'Query' || a === 'Scan');
    if (readsIndexes) resources.push(`${table.tableArn}/index/*`);
    grantee.grantPrincipal.addToPrincipalPolicy(new iam.PolicyStatement({ actions: actions.map((a) => `dynamodb:${a}`), resources }));
    if (readsIndexes) acknowledgeWildcardResource(grantee, `${table.tableArn}/index/*`, 'Queries the secondary indexes of this table only (index names are fixed by dynamo-schema.ts).');
  }
}

/**
 * Send to a queue: `sqs:SendMessage` only (CDK's grantSendMessages adds GetQueueUrl and
 * GetQueueAttributes, which the functions never call: they get the queue URL in their environment).
 *
 * @example
 * grantSend(tick, readyQueue.queue.queueArn);
 */
export function grantSend(grantee: iam.IGrantable, queueArn: string): void {
  grantee.grantPrincipal.addToPrincipalPolicy(new iam.PolicyStatement({ actions: ['sqs:SendMessage'], resources: [queueArn] }));
}

/**
 * What Lambda's SQS event source mapping calls with the function's role (AWS's managed
 * policy AWSLambdaSQSQueueExecutionRole): receive, delete, and read the queue's attributes.
 *
 * @example
 * grantEventSource(worker, readyQueue.queue.queueArn);
 */
export function grantEventSource(grantee: iam.IGrantable, queueArn: string): void {
  grantee.grantPrincipal.addToPrincipalPolicy(
    new iam.PolicyStatement({ actions: ['sqs:ReceiveMessage', 'sqs:DeleteMessage', 'sqs:GetQueueAttributes'], resources: [queueArn] }),
  );
}
