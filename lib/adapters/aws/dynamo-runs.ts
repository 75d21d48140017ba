/**
 * Listing runs on DynamoDB. The sparse `active` index of the runs table holds queued runs
 * and a backfill's runs that have not ended (keys only: a backfill's run holds its slot on
 * its backfill's item, not on its DAG's); any other running run holds a maxActiveRuns slot on its DAG's item
 * (dynamo-run-slots.ts), which is where it is found. So creating, starting and ending a
 * run writes no index entry unless the run had to wait (docs/adr/0020). Runs running before
 * that change still carry their index entry and are found there too.
 */
import { ScanCommand } from '@aws-sdk/client-dynamodb';
import type { DagRun, RunState } from '../../engine/index.js';
import { isRunTerminal } from '../../engine/index.js';
import { Expr, stateIs, type Item } from './dynamo-codec.js';
import { getItem } from './dynamo-cas.js';
import type { DynamoRequests } from './dynamo-requests.js';
import { SLOTS_ATTR } from './dynamo-run-slots.js';
import type { TableNames } from './dynamo-schema.js';

type RunKey = { dagId: string; runId: string };
const newestFirst = (a: DagRun, b: DagRun) => b.logicalDate - a.logicalDate || (a.runId < b.runId ? 1 : -1);

/**
 * @example
 * const lists = new DynamoRunLists(requests, tables, getRun, decodeRun);
 * await lists.listRuns('etl', { states: ['queued'] });
 */
export class DynamoRunLists {
  constructor(
    private readonly r: DynamoRequests,
    private readonly t: TableNames,
    private readonly getRun: (dagId: string, runId: string) => Promise<DagRun | undefined>,
    private readonly decodeRun: (i: Item) => Promise<DagRun>,
  ) {}

  async listRuns(dagId: string, opts: { states?: readonly RunState[]; limit?: number } = {}): Promise<DagRun[]> {
    const x = new Expr();
    // Queued or running only: the index and the DAG's slot holders, however many finished
    // runs the DAG has (this runs whenever a full DAG may start a queued run).
    const onlyActive = opts.states !== undefined && opts.states.every((st) => !isRunTerminal(st));
    if (onlyActive) {
      const items = await this.r.queryAll({
        TableName: this.t.runs, IndexName: 'active', KeyConditionExpression: `${x.name('activeDag')} = ${x.value({ S: dagId })}`,
        ScanIndexForward: false, ...x.params(),
      });
      const ids = new Set(items.map((i) => String(i['runId']?.S)));
      if (opts.states!.includes('running')) {
        for (const id of Object.keys((await getItem(this.r, this.t.dags, { dagId: { S: dagId } }))?.[SLOTS_ATTR]?.M ?? {})) ids.add(id);
      }
      // The index is eventually consistent: each run is read from the table.
      const runs = (await Promise.all([...ids].map((id) => this.getRun(dagId, id))))
        .filter((r): r is DagRun => r !== undefined && opts.states!.includes(r.state))
        .sort(newestFirst);
      return opts.limit === undefined ? runs : runs.slice(0, opts.limit);
    }
    // History (the CLI, rarely): the DAG's partition, newest logical date first. No index
    // by logical date: it would cost a write unit on every run write, for a rare read.
    const items = await this.r.queryAll({
      TableName: this.t.runs, KeyConditionExpression: `${x.name('dagId')} = ${x.value({ S: dagId })}`,
      FilterExpression: opts.states ? stateIs(x, opts.states) : undefined, ConsistentRead: true, ...x.params(),
    });
    const runs = (await Promise.all(items.map((i) => this.decodeRun(i)))).sort(newestFirst);
    return opts.limit === undefined ? runs : runs.slice(0, opts.limit);
  }

  async listActiveRuns(): Promise<DagRun[]> {
    const keys = new Map<string, RunKey>();
    const add = (dagId: string, runId: string) => keys.set(`${dagId}\u0000${runId}`, { dagId, runId });
    for (const i of await this.scan({ TableName: this.t.runs, IndexName: 'active' })) add(String(i['dagId']?.S), String(i['runId']?.S));
    const x = new Expr();
    for (const d of await this.scan({ TableName: this.t.dags, ProjectionExpression: `${x.name('dagId')}, ${x.name(SLOTS_ATTR)}`, ...x.params() })) {
      for (const runId of Object.keys(d[SLOTS_ATTR]?.M ?? {})) add(String(d['dagId']?.S), runId);
    }
    // Keys only: each run is read from the table (which also drops runs that have ended).
    const runs = await Promise.all([...keys.values()].map((k) => this.getRun(k.dagId, k.runId)));
    return runs.filter((r): r is DagRun => r !== undefined && !isRunTerminal(r.state));
  }

  private async scan(input: { TableName: string; IndexName?: string; ProjectionExpression?: string; ExpressionAttributeNames?: Record<string, string> }): Promise<Item[]> {
    const items: Item[] = [];
    let start: Item | undefined;
    do {
      const page = await this.r.send<{ Items?: Item[]; LastEvaluatedKey?: Item }>(
        new ScanCommand({ ...input, ExclusiveStartKey: start, ReturnConsumedCapacity: 'TOTAL' }),
        'read',
      );
      items.push(...(page.Items ?? []));
      start = page.LastEvaluatedKey;
    } while (start);
    return items;
  }
}
