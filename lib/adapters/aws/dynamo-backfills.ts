/**
 * The backfill operations of the Store port on DynamoDB (lib/engine/model/backfill-store.ts).
 * Items live in the kv table: `b:<id>` the backfill (under 1 KB: conf and the schedule as
 * JSON, the rest numbers), `B:<dagId>` the DAG's open backfill (`open`) and its backfill
 * ids (a number set), `BA` the ids of every open backfill (what the tick reads), `bseq`
 * the id counter. A step is one UpdateItem on `b:<id>`, or a TransactWriteItems of that
 * update and the run's put or update; creation and completion move `B:<dagId>` and `BA`
 * in the same transaction, so a DAG never has two open backfills and the tick never
 * misses one. docs/adr/0019-backfill.md.
 */
import { UpdateItemCommand, type TransactWriteItem } from '@aws-sdk/client-dynamodb';
import type { Backfill, BackfillPatch, BackfillSlotTake, BackfillStep, Cas, DagRun, RunPatch, StepResult, StepRun } from '../../engine/index.js';
import { casUpdate, getItem } from './dynamo-cas.js';
import { Expr, and, decodeFields, encodeFields, encodeValue, exists, notExists, stateIs, type Item } from './dynamo-codec.js';
import type { DynamoRequests } from './dynamo-requests.js';

const CC = { ReturnConsumedCapacity: 'TOTAL' } as const;
const backfillKey = (id: number): Item => ({ pk: { S: `b:${id}` } });
const dagKey = (dagId: string): Item => ({ pk: { S: `B:${dagId}` } });
const OPEN_KEY: Item = { pk: { S: 'BA' } };
const SEQ_KEY: Item = { pk: { S: 'bseq' } };

/** What the store lends this adapter: its run encoding, so a step's run item is the one createRun writes. */
export interface DynamoRunEncoding {
  runsTable: string;
  /** The item createRun puts for a run. */
  runItem(run: DagRun): Promise<Item>;
  /** Adds a run patch's SET/REMOVE clauses to `x` (conf offloaded as createRun does). */
  runPatch(x: Expr, patch: RunPatch, dagId: string, runId: string): Promise<void>;
}

/** The map on a backfill's item of the runs holding one of its slots (run id -> when taken); `active` is their number. */
const HOLDERS = 'slots';
const isCondFail = (err: unknown): boolean => (err as Error).name === 'ConditionalCheckFailedException';

export class DynamoBackfills {
  constructor(
    private readonly r: DynamoRequests,
    private readonly kv: string,
    private readonly runs: DynamoRunEncoding,
  ) {}

  private decode = async (item: Item): Promise<Backfill> => {
    const { [HOLDERS]: _holders, ...rest } = item;
    return (await decodeFields(rest)) as unknown as Backfill;
  };

  async nextBackfillId(): Promise<number> {
    const x = new Expr();
    const out = await this.r.send<{ Attributes?: Item }>(
      new UpdateItemCommand({ TableName: this.kv, Key: SEQ_KEY, UpdateExpression: `ADD ${x.name('n')} ${x.value({ N: '1' })}`, ReturnValues: 'UPDATED_NEW', ...x.params(), ...CC }),
      'write',
    );
    return Number(out.Attributes?.['n']?.N);
  }

  async createBackfill(b: Backfill): Promise<Cas<Backfill>> {
    const put = new Expr();
    const lock = new Expr();
    const open = new Expr();
    const ids = { NS: [String(b.id)] };
    const res = await this.r.transact([
      { Put: { TableName: this.kv, Item: { ...backfillKey(b.id), ...encodeFields(b), [HOLDERS]: { M: {} } }, ConditionExpression: notExists(put, 'pk'), ...put.params() } },
      {
        Update: {
          TableName: this.kv, Key: dagKey(b.dagId), ConditionExpression: notExists(lock, 'open'),
          UpdateExpression: `SET ${lock.name('open')} = ${lock.value({ N: String(b.id) })} ADD ${lock.name('ids')} ${lock.value(ids)}`, ...lock.params(),
        },
      },
      { Update: { TableName: this.kv, Key: OPEN_KEY, UpdateExpression: `ADD ${open.name('ids')} ${open.value(ids)}`, ...open.params() } },
    ]);
    if (res.ok) return { ok: true, item: b };
    this.r.lostRace();
    const holder = await getItem(this.r, this.kv, dagKey(b.dagId));
    const openId = holder?.['open']?.N;
    return { ok: false, current: openId === undefined ? undefined : await this.getBackfill(Number(openId)), reason: 'condition' };
  }

  async getBackfill(id: number): Promise<Backfill | undefined> {
    const item = await getItem(this.r, this.kv, backfillKey(id));
    return item && this.decode(item);
  }

  async listBackfills(dagId: string): Promise<Backfill[]> {
    const holder = await getItem(this.r, this.kv, dagKey(dagId));
    const ids = (holder?.['ids']?.NS ?? []).map(Number).sort((a, b) => a - b);
    const all = await Promise.all(ids.map((id) => this.getBackfill(id)));
    return all.filter((b): b is Backfill => b !== undefined);
  }

  async listOpenBackfills(): Promise<number[]> {
    const item = await getItem(this.r, this.kv, OPEN_KEY);
    return (item?.['ids']?.NS ?? []).map(Number).sort((a, b) => a - b);
  }

  async updateBackfill(id: number, patch: BackfillPatch, expect: { open?: true; clearing?: string } = {}): Promise<Cas<Backfill>> {
    const x = new Expr();
    for (const [k, v] of Object.entries(patch)) {
      if (v === undefined) continue;
      if (v === null) x.remove(k);
      else x.set(k, encodeValue(k, v));
    }
    const cond = and(
      exists(x, 'pk'),
      expect.open && notExists(x, 'completedAt'),
      expect.clearing !== undefined && `${x.name('clearing')} = ${x.value({ S: expect.clearing })}`,
    );
    return casUpdate(this.r, this.kv, backfillKey(id), x, cond, this.decode);
  }

  async stepBackfill(id: number, step: BackfillStep, run?: StepRun): Promise<StepResult> {
    const x = new Expr();
    const takesSlot = step.outcome !== 'skipped';
    const cond = and(
      exists(x, 'pk'),
      notExists(x, 'completedAt'),
      `${x.name('paused')} = ${x.value({ BOOL: false })}`,
      step.from === undefined ? notExists(x, 'cursor') : `${x.name('cursor')} = ${x.value({ N: String(step.from) })}`,
      takesSlot && `${x.name('active')} < ${x.name('maxActiveRuns')}`,
      step.clearing !== undefined && notExists(x, 'clearing'),
    );
    const one = x.value({ N: '1' });
    const add = (attr: string) => `${x.name(attr)} = ${x.name(attr)} + ${one}`;
    x.set('cursor', { N: String(step.to) }).set('updatedAt', { N: String(step.now) }).setRaw(add('handled')).setRaw(add(step.outcome));
    if (takesSlot && run) {
      x.setRaw(add('active'));
      x.setRaw(`${x.name(HOLDERS)}.${x.name('put' in run ? run.put.runId : run.reopen.runId)} = ${x.value({ N: String(step.now) })}`);
    }
    if (step.clearing !== undefined) x.set('clearing', { S: step.clearing }).set('clearingAt', { N: String(step.now) });
    const update = { TableName: this.kv, Key: backfillKey(id), ConditionExpression: cond, UpdateExpression: x.update(), ...x.params() };
    if (!run) {
      const r = await casUpdate(this.r, this.kv, backfillKey(id), x, cond, this.decode);
      return r.ok ? r : { ok: false, reason: 'backfill', current: r.current };
    }
    const res = await this.r.transact([{ Update: { ...update, ReturnValuesOnConditionCheckFailure: 'ALL_OLD' } }, await this.runWrite(run)]);
    if (res.ok) {
      const item = await this.getBackfill(id);
      return item ? { ok: true, item } : { ok: false, reason: 'backfill' };
    }
    this.r.lostRace();
    const [mine] = res.reasons;
    if (mine?.Code !== 'ConditionalCheckFailed') return { ok: false, reason: 'run', current: await this.getBackfill(id) };
    const current = mine.Item && (await this.decode(mine.Item));
    // The backfill's condition failed: only the slot, or it moved on (or paused, or completed).
    const onlySlots = current !== undefined && current.completedAt === undefined && !current.paused && current.cursor === step.from &&
      (step.clearing === undefined || current.clearing === undefined);
    return { ok: false, reason: onlySlots ? 'slots' : 'backfill', current };
  }

  private async runWrite(run: StepRun): Promise<TransactWriteItem> {
    if ('put' in run) {
      const x = new Expr();
      return { Put: { TableName: this.runs.runsTable, Item: await this.runs.runItem(run.put), ConditionExpression: notExists(x, 'dagId'), ...x.params() } };
    }
    const { dagId, runId, expectState, patch } = run.reopen;
    const x = new Expr();
    const cond = and(exists(x, 'dagId'), stateIs(x, expectState));
    await this.runs.runPatch(x, patch, dagId, runId);
    // The sparse `active` index holds queued and running runs (dynamo-schema.ts).
    x.set('activeDag', { S: dagId });
    return { Update: { TableName: this.runs.runsTable, Key: { dagId: { S: dagId }, runId: { S: runId } }, ConditionExpression: cond, UpdateExpression: x.update(), ...x.params() } };
  }

  async completeBackfill(id: number, now: number, cancelled?: true): Promise<Cas<Backfill>> {
    const b = await this.getBackfill(id);
    if (!b || b.completedAt !== undefined) return { ok: false, current: b, reason: 'condition' };
    const x = new Expr();
    const cond = and(
      exists(x, 'pk'),
      notExists(x, 'completedAt'),
      !cancelled && `${x.name('handled')} >= ${x.name('total')} AND ${x.name('active')} <= ${x.value({ N: '0' })}`,
    );
    x.set('completedAt', { N: String(now) }).set('updatedAt', { N: String(now) });
    if (cancelled) x.set('cancelled', { BOOL: true }).set('paused', { BOOL: true });
    const lock = new Expr();
    const open = new Expr();
    const ids = { NS: [String(id)] };
    const res = await this.r.transact([
      { Update: { TableName: this.kv, Key: backfillKey(id), ConditionExpression: cond, UpdateExpression: x.update(), ...x.params() } },
      {
        Update: {
          TableName: this.kv, Key: dagKey(b.dagId),
          ConditionExpression: `${lock.name('open')} = ${lock.value({ N: String(id) })} OR ${notExists(lock, 'open')}`,
          UpdateExpression: `REMOVE ${lock.name('open')}`, ...lock.params(),
        },
      },
      { Update: { TableName: this.kv, Key: OPEN_KEY, UpdateExpression: `DELETE ${open.name('ids')} ${open.value(ids)}`, ...open.params() } },
    ]);
    const after = await this.getBackfill(id);
    if (!res.ok) {
      this.r.lostRace();
      return { ok: false, current: after, reason: 'condition' };
    }
    return after ? { ok: true, item: after } : { ok: false, current: undefined, reason: 'condition' };
  }

  async takeBackfillSlot(id: number, runId: string, now: number): Promise<BackfillSlotTake> {
    const x = new Expr();
    const mine = `${x.name(HOLDERS)}.${x.name(runId)}`;
    const cond = and(exists(x, 'pk'), `attribute_not_exists(${mine})`, `${x.name('active')} < ${x.name('maxActiveRuns')}`, `${x.name('paused')} = ${x.value({ BOOL: false })}`);
    x.setRaw(`${x.name('active')} = ${x.name('active')} + ${x.value({ N: '1' })}`).setRaw(`${mine} = ${x.value({ N: String(now) })}`);
    try {
      await this.r.send(new UpdateItemCommand({
        TableName: this.kv, Key: backfillKey(id), ConditionExpression: cond, UpdateExpression: x.update(), ...x.params(),
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD', ...CC,
      }), 'write');
      return 'taken';
    } catch (err) {
      if (!isCondFail(err)) throw err;
      const old = (err as { Item?: Item }).Item;
      if (!old) return 'gone';
      if (old[HOLDERS]?.M?.[runId]) return 'held';
      this.r.lostRace();
      return 'full';
    }
  }

  async releaseBackfillSlot(id: number, runId: string): Promise<void> {
    const x = new Expr();
    const mine = `${x.name(HOLDERS)}.${x.name(runId)}`;
    x.setRaw(`${x.name('active')} = ${x.name('active')} - ${x.value({ N: '1' })}`);
    try {
      await this.r.send(new UpdateItemCommand({
        TableName: this.kv, Key: backfillKey(id), ConditionExpression: `attribute_exists(${mine})`, UpdateExpression: `${x.update()} REMOVE ${mine}`, ...x.params(), ...CC,
      }), 'write');
    } catch (err) {
      // Given back already (or never held): idempotent.
      if (!isCondFail(err)) throw err;
    }
  }

  async backfillSlotHolders(id: number): Promise<string[]> {
    const item = await getItem(this.r, this.kv, backfillKey(id));
    return Object.keys(item?.[HOLDERS]?.M ?? {}).sort();
  }
}
