/**
 * The Store port on DynamoDB. Every transition is one conditional write built from named
 * sub-conditions; a failed condition returns the item as it is (`ALL_OLD`) as a lost race.
 * Transactions are used only where a counter moves with a task write (maxActiveTasks, pools).
 * Tables, keys and indexes: dynamo-schema.ts and docs/adr/0002-dynamodb-state-model.md.
 */
import { UpdateItemCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { DagRecord, DagRun, SignalRecord, TaskInstance, TaskKey, TriggerRecord, XcomKey } from '../../engine/index.js';
import type { Cas, LimitMove, Metrics, PoolSpec, PoolState, RunPatch, SlotChange, Store, TaskExpect, TaskPatch } from '../../engine/index.js';
import { isRunTerminal, isTerminal, parseRunState, parseTaskState, type RunState, type UpstreamOutcome } from '../../engine/index.js';
import type { BlobStore } from './blob.js';
import {
  Expr, and, checkState, decodeFields, encodeFields, encodeJson, encodeValue, exists,
  ownerIs, stateIs, tryIs, type Item,
} from './dynamo-codec.js';
import { casPut, casUpdate, casWithSlot, counterUpdate, getItem } from './dynamo-cas.js';
import { DynamoRequests, type DynamoUsage } from './dynamo-requests.js';
import { casWithLimits, getPool, listWaiters, registerPool } from './dynamo-limits.js';
import { DynamoMapCounts } from './dynamo-mapping.js';
import { DynamoTriggers } from './dynamo-triggers.js';
import { DynamoPokerStates } from './dynamo-poker-state.js';
import { DynamoRunEnds } from './dynamo-run-ends.js';
import { DynamoRunSlots } from './dynamo-run-slots.js';
import { DynamoRunLists } from './dynamo-runs.js';
import { DynamoBackfills } from './dynamo-backfills.js';
import { DynamoPrevSuccess } from './dynamo-prev-success.js';
import { DynamoImportErrors } from './dynamo-import-errors.js';
import { DynamoAuditLog } from './dynamo-audit-log.js';
import { DynamoRunDeletes } from './dynamo-run-delete.js';
import type { Backfill, BackfillPatch, BackfillStep, StepRun } from '../../engine/index.js';
import type { PokerState } from '../../engine/index.js';
import type { RunSuccessMark } from '../../engine/index.js';
import type { AuditEvent } from '../../engine/index.js';
import { DynamoAssets } from './dynamo-assets.js';
import { DynamoDags } from './dynamo-dags.js';
import { DynamoValues } from './dynamo-values.js';
import type { AssetEventRecord, AssetQueue, AssetRecord, AssetWatcherEntry, QueueOutcome } from '../../engine/index.js';
import { DynamoKeptEvents } from './dynamo-events.js';
import type { KeptEvent, MapOutcome, MapShardState, RunEndEntry, RunEndShard, RunRef, RunSlotTake } from '../../engine/index.js';
import { INDEX_SHARDS, UPSTREAM_PREFIX, shardOf, tableNames, type TableNames } from './dynamo-schema.js';

export interface DynamoStoreOptions {
  client: DynamoDBClient;
  /** Table names are prefix + suffix (see TABLES) unless given in `tableNames`. */
  tablePrefix: string;
  tableNames?: Partial<TableNames>;
  metrics?: Metrics;
  /** Where XCom values and run conf over ~350 KB go; without it they are refused. */
  blobs?: BlobStore;
}

type Rec = Record<string, unknown>;
const SHARDS = Array.from({ length: INDEX_SHARDS }, (_, i) => i);
const NO_RETURN = { ReturnConsumedCapacity: 'TOTAL' } as const;
/** What a record looks like once stored: JSON values copied, absent fields dropped. */
const plain = <T>(rec: T): T => JSON.parse(JSON.stringify(rec)) as T;
const runKeyOf = (dagId: string, runId: string): string => `${dagId}/${runId}`;
const sortKeyOf = (t: TaskKey): string => `${t.dagId}\u0000${t.runId}\u0000${t.taskId}`;
const blobPath = (...parts: string[]): string => parts.map(encodeURIComponent).join('/');

/**
 * DynamoDB {@link Store}.
 *
 * @example
 * const store = new DynamoStore({ client: new DynamoDBClient({}), tablePrefix: 'airless-prod-', metrics });
 * const r = await store.updateTask(key, { state: 'queued', tryNumber: 1 }, { state: 'running', owner }, { delta: 1, max: 8 });
 */
export class DynamoStore implements Store {
  readonly usage: DynamoUsage;
  private readonly r: DynamoRequests;
  private readonly t: TableNames;
  private readonly blobs?: BlobStore;

  constructor(opts: DynamoStoreOptions) {
    this.r = new DynamoRequests(opts.client, opts.metrics);
    this.usage = this.r.usage;
    this.t = tableNames(opts.tablePrefix, opts.tableNames);
    this.blobs = opts.blobs;
    this.maps = new DynamoMapCounts(this.r, this.t.kv, this.t.tasks, (i) => this.decodeTask(i));
    this.triggers = new DynamoTriggers(this.r, this.t);
    this.pokerStates = new DynamoPokerStates(this.r, this.t);
    this.runEnds = new DynamoRunEnds(this.r, this.t.kv);
    this.slots = new DynamoRunSlots(this.r, this.t.dags);
    this.runLists = new DynamoRunLists(this.r, this.t, (d, r) => this.getRun(d, r), (i) => this.decodeRun(i));
    this.backfills = new DynamoBackfills(this.r, this.t.kv, {
      runsTable: this.t.runs, runItem: (run) => this.runItem(run),
      runPatch: (x, patch, dagId, runId) => this.patchInto(x, patch, { conf: [blobPath('conf', dagId, runId), `conf of run ${dagId}/${runId}`] }),
    });
    this.assets = new DynamoAssets(this.r, this.t.assets);
    this.kept = new DynamoKeptEvents(this.r, this.t.kv);
    this.dags = new DynamoDags(this.r, this.t, opts.blobs, (x, patch) => this.patchInto(x, patch));
    this.values = new DynamoValues(this.r, this.t.kv, opts.blobs);
  }

  // Poker schedule states (dynamo-poker-state.ts).
  private readonly pokerStates: DynamoPokerStates;
  getPokerState(shard: number) { return this.pokerStates.getPokerState(shard); }
  putPokerState(next: PokerState) { return this.pokerStates.putPokerState(next); }
  hasSensorTriggers(virtualShard: number) { return this.pokerStates.hasSensorTriggers(virtualShard); }
  // The DAGs' latest-success marks (dynamo-prev-success.ts).
  private get prevSuccess() { return new DynamoPrevSuccess(this.r, this.t); }
  putLastSuccess(dagId: string, mark: RunSuccessMark) { return this.prevSuccess.putLastSuccess(dagId, mark); }
  getLastSuccess(dagId: string) { return this.prevSuccess.getLastSuccess(dagId); }
  // DAG files whose last build failed (dynamo-import-errors.ts).
  private get importErrors() { return new DynamoImportErrors(this.r, this.t); }
  putImportError(file: string, message: string, at: number) { return this.importErrors.putImportError(file, message, at); }
  clearImportErrors(keep?: readonly string[]) { return this.importErrors.clearImportErrors(keep); }
  listImportErrors() { return this.importErrors.listImportErrors(); }
  // The API's audit log (dynamo-audit-log.ts).
  private get auditLog() { return new DynamoAuditLog(this.r, this.t); }
  appendAuditEvent(e: Omit<AuditEvent, 'id'>) { return this.auditLog.appendAuditEvent(e); }
  getAuditEvent(id: number) { return this.auditLog.getAuditEvent(id); }
  listAuditEvents() { return this.auditLog.listAuditEvents(); }
  // Deleting finished runs and task instances (dynamo-run-delete.ts).
  deleteRun(dagId: string, runId: string) { return new DynamoRunDeletes(this.r, this.t).deleteRun(dagId, runId); }
  deleteTask(key: TaskKey) { return new DynamoRunDeletes(this.r, this.t).deleteTask(key); }
  deleteXcom(key: XcomKey) { return new DynamoRunDeletes(this.r, this.t).deleteXcom(key); }

  // Backfills (dynamo-backfills.ts).
  private readonly backfills: DynamoBackfills;
  nextBackfillId(): Promise<number> { return this.backfills.nextBackfillId(); }
  createBackfill(b: Backfill) { return this.backfills.createBackfill(b); }
  getBackfill(id: number) { return this.backfills.getBackfill(id); }
  listBackfills(dagId: string) { return this.backfills.listBackfills(dagId); }
  listOpenBackfills() { return this.backfills.listOpenBackfills(); }
  updateBackfill(id: number, patch: BackfillPatch, expect?: { open?: true; clearing?: string }) { return this.backfills.updateBackfill(id, patch, expect); }
  stepBackfill(id: number, step: BackfillStep, run?: StepRun) { return this.backfills.stepBackfill(id, step, run); }
  completeBackfill(id: number, now: number, cancelled?: true) { return this.backfills.completeBackfill(id, now, cancelled); }
  takeBackfillSlot(id: number, runId: string, now: number) { return this.backfills.takeBackfillSlot(id, runId, now); }
  releaseBackfillSlot(id: number, runId: string) { return this.backfills.releaseBackfillSlot(id, runId); }
  backfillSlotHolders(id: number) { return this.backfills.backfillSlotHolders(id); }

  // Events kept for waits stored after them (dynamo-events.ts).
  private readonly kept: DynamoKeptEvents;
  keepEvent(key: string, kept: KeptEvent, exp: number): Promise<void> { return this.kept.keepEvent(key, kept, exp); }
  keptEvents(key: string, now: number): Promise<KeptEvent[]> { return this.kept.keptEvents(key, now); }

  // Dynamic task mapping's counts and instances (dynamo-mapping.ts).
  private readonly maps: DynamoMapCounts;
  initMapCounts(k: TaskKey, n: number, exp?: number): Promise<void> { return this.maps.initMapCounts(k, n, exp); }
  countMapped(k: TaskKey, s: number, i: number, o: MapOutcome): Promise<MapShardState> { return this.maps.countMapped(k, s, i, o); }
  uncountMapped(k: TaskKey, s: number, i: number): Promise<void> { return this.maps.uncountMapped(k, s, i); }
  closeMapShard(k: TaskKey, s: number) { return this.maps.closeMapShard(k, s); }
  getMapSummary(k: TaskKey) { return this.maps.getMapSummary(k); }
  getMapShards(k: TaskKey, s: readonly number[]) { return this.maps.getMapShards(k, s); }
  listMapped(k: TaskKey): Promise<TaskInstance[]> { return this.maps.listMapped(k); }
  // Run-end counts of counted runs (dynamo-run-ends.ts).
  private readonly runEnds: DynamoRunEnds;
  countRunEnds(r: RunRef, s: number, e: readonly RunEndEntry[], exp?: number): Promise<RunEndShard> { return this.runEnds.countRunEnds(r, s, e, exp); }
  uncountRunEnds(r: RunRef, s: number, i: readonly number[]): Promise<void> { return this.runEnds.uncountRunEnds(r, s, i); }
  closeRunEndShard(r: RunRef, s: number, exp?: number): Promise<number> { return this.runEnds.closeRunEndShard(r, s, exp); }
  getRunEnds(r: RunRef, s: readonly number[]): Promise<Map<number, RunEndShard>> { return this.runEnds.getRunEnds(r, s); }
  // maxActiveRuns slots on the DAG item (dynamo-run-slots.ts), and the run listings that read them (dynamo-runs.ts).
  private readonly slots: DynamoRunSlots;
  private readonly runLists: DynamoRunLists;
  takeRunSlot(dagId: string, runId: string, max: number, now: number): Promise<RunSlotTake> { return this.slots.take(dagId, runId, max, now); }
  releaseRunSlot(dagId: string, runId: string): Promise<number | undefined> { return this.slots.release(dagId, runId); }

  // DAG registry (dynamo-dags.ts).
  private readonly dags: DynamoDags;
  putDag(rec: DagRecord): Promise<void> { return this.dags.putDag(rec); }
  getDag(dagId: string): Promise<DagRecord | undefined> { return this.dags.getDag(dagId); }
  listDags(): Promise<DagRecord[]> { return this.dags.listDags(); }
  updateDag(dagId: string, patch: Partial<Omit<DagRecord, 'dagId'>>, expectNextTickAt?: number | null): Promise<Cas<DagRecord>> { return this.dags.updateDag(dagId, patch, expectNextTickAt); }
  deleteDag(dagId: string): Promise<void> { return this.dags.deleteDag(dagId); }

  // ------------------------------------------------------------------------- runs

  async createRun(run: DagRun): Promise<Cas<DagRun>> {
    return casPut(this.r, this.t.runs, await this.runItem(run), 'dagId', plain(run), (i) => this.decodeRun(i));
  }

  private async runItem(run: DagRun): Promise<Item> {
    parseRunState(run.state);
    const item = encodeFields(run, new Set(['conf']));
    item['conf'] = await encodeJson(run.conf, blobPath('conf', run.dagId, run.runId), `conf of run ${run.dagId}/${run.runId}`, this.blobs);
    // Queued runs are in the `active` index, and so is a backfill's run while it has not ended:
    // it holds its slot on its backfill, not on the DAG's item (dynamo-runs.ts finds running runs there).
    if (run.state === 'queued' || (run.backfillId !== undefined && !isRunTerminal(run.state))) item['activeDag'] = { S: run.dagId };
    return item;
  }

  async getRun(dagId: string, runId: string, opts: { eventually?: boolean } = {}): Promise<DagRun | undefined> {
    const item = await getItem(this.r, this.t.runs, { dagId: { S: dagId }, runId: { S: runId } }, opts.eventually);
    return item && this.decodeRun(item);
  }

  async updateRun(
    dagId: string,
    runId: string,
    expect: { state: RunState | readonly RunState[] },
    patch: RunPatch,
  ): Promise<Cas<DagRun>> {
    if (patch.state != null) parseRunState(patch.state);
    const key = { dagId: { S: dagId }, runId: { S: runId } };
    const x = new Expr();
    const cond = and(exists(x, 'dagId'), stateIs(x, expect.state));
    await this.patchInto(x, patch, { conf: [blobPath('conf', dagId, runId), `conf of run ${dagId}/${runId}`] });
    // Only queued runs are in the `active` index: a running run is found through its DAG's slot
    // holders; a backfill's running run (its patch names the backfill) stays in the index.
    if (patch.state != null) {
      if (patch.state === 'queued' || (patch.state === 'running' && patch.backfillId != null)) x.set('activeDag', { S: dagId });
      else x.remove('activeDag');
    }
    return casUpdate(this.r, this.t.runs, key, x, cond, (i: Item) => this.decodeRun(i));
  }

  /** Runs of one DAG: queued ones from the `active` index, running ones from its slot holders, history from its partition (dynamo-runs.ts). */
  listRuns(dagId: string, opts: { states?: readonly RunState[]; limit?: number } = {}): Promise<DagRun[]> {
    return this.runLists.listRuns(dagId, opts);
  }

  /** Queued runs (the `active` index) and running runs (every DAG's slot holders). */
  listActiveRuns(): Promise<DagRun[]> {
    return this.runLists.listActiveRuns();
  }

  // ---------------------------------------------------------------- task instances

  async putTask(ti: TaskInstance): Promise<Cas<TaskInstance>> {
    parseTaskState(ti.state);
    const terminal = isTerminal(ti.state);
    const item = encodeFields(ti, new Set(terminal ? ['upstream', 'dueAt'] : ['upstream']));
    for (const [u, outcome] of Object.entries(ti.upstream)) item[UPSTREAM_PREFIX + u] = { S: outcome };
    item['runKey'] = { S: runKeyOf(ti.dagId, ti.runId) };
    item['dueShard'] = { N: String(shardOf(sortKeyOf(ti))) };
    const stored = plain(ti);
    if (terminal) delete stored.dueAt;
    return casPut(this.r, this.t.tasks, item, 'runKey', stored, (i) => this.decodeTask(i));
  }

  async getTask(key: TaskKey): Promise<TaskInstance | undefined> {
    const item = await getItem(this.r, this.t.tasks, this.taskKey(key));
    return item && this.decodeTask(item);
  }

  async listTasks(dagId: string, runId: string): Promise<TaskInstance[]> {
    const x = new Expr();
    const items = await this.r.queryAll({
      TableName: this.t.tasks,
      KeyConditionExpression: `${x.name('runKey')} = ${x.value({ S: runKeyOf(dagId, runId) })}`,
      ConsistentRead: true,
      ...x.params(),
    });
    return Promise.all(items.map((i) => this.decodeTask(i)));
  }

  async updateTask(key: TaskKey, expect: TaskExpect, patch: TaskPatch, slot?: SlotChange, limits?: readonly LimitMove[]): Promise<Cas<TaskInstance>> {
    return this.writeTask(key, expect, patch, slot, [], limits);
  }

  private async writeTask(
    key: TaskKey, expect: TaskExpect, patch: TaskPatch, slot: SlotChange | undefined, forget: readonly string[], limits?: readonly LimitMove[],
  ): Promise<Cas<TaskInstance>> {
    if (patch.state != null) parseTaskState(patch.state);
    if ('upstream' in patch) throw new Error('upstream outcomes are written by recordUpstream and cleared by clearTask, not patched');
    const x = new Expr();
    const cond = and(
      exists(x, 'runKey'),
      stateIs(x, expect.state),
      expect.tryNumber !== undefined && tryIs(x, expect.tryNumber),
      expect.owner !== undefined && ownerIs(x, expect.owner),
    );
    // A terminal task leaves the due index: its dueAt goes, whatever the patch says.
    const terminal = patch.state != null && isTerminal(patch.state);
    await this.patchInto(x, terminal ? { ...patch, dueAt: null } : patch);
    for (const u of forget) x.remove(UPSTREAM_PREFIX + u);
    const decode = (i: Item) => this.decodeTask(i);
    if (limits?.length) {
      const run = slot && { item: counterUpdate(this.t.runs, { dagId: { S: key.dagId }, runId: { S: key.runId } }, 'dagId', 'activeTasks', slot), release: slot.delta < 0 };
      const mine = { table: this.t.tasks, key: this.taskKey(key), x, cond };
      return casWithLimits(this.r, mine, this.t.kv, run, limits, decode, (keepRun, moves) => this.updateTask(key, expect, patch, keepRun ? slot : undefined, moves));
    }
    if (!slot) return casUpdate(this.r, this.t.tasks, this.taskKey(key), x, cond, decode);
    const counter = counterUpdate(this.t.runs, { dagId: { S: key.dagId }, runId: { S: key.runId } }, 'dagId', 'activeTasks', slot);
    return casWithSlot(this.r, { table: this.t.tasks, key: this.taskKey(key), x, cond }, counter, slot, decode, () => this.updateTask(key, expect, patch));
  }

  async clearTask(key: TaskKey, expect: TaskExpect, patch: TaskPatch, forgetUpstream: readonly string[]): Promise<Cas<TaskInstance>> {
    return this.writeTask(key, expect, patch, undefined, forgetUpstream);
  }

  async recordUpstream(key: TaskKey, upstreamTaskId: string, outcome: UpstreamOutcome): Promise<TaskInstance> {
    const x = new Expr();
    x.set(UPSTREAM_PREFIX + upstreamTaskId, { S: outcome })
      .set('dagId', { S: key.dagId })
      .set('runId', { S: key.runId })
      .set('dueShard', { N: String(shardOf(sortKeyOf(key))) })
      .setRaw(`${x.name('state')} = if_not_exists(${x.name('state')}, ${x.value({ S: 'scheduled' })})`)
      .setRaw(`${x.name('tryNumber')} = if_not_exists(${x.name('tryNumber')}, ${x.value({ N: '0' })})`);
    const out = await this.r.send<{ Attributes?: Item }>(
      new UpdateItemCommand({ TableName: this.t.tasks, Key: this.taskKey(key), UpdateExpression: x.update(), ...x.params(), ReturnValues: 'ALL_NEW', ...NO_RETURN }),
      'write',
    );
    return this.decodeTask(out.Attributes!);
  }

  async listDueTasks(now: number, limit: number): Promise<TaskInstance[]> {
    const pages = await Promise.all(
      SHARDS.map((s) => {
        const x = new Expr();
        const kc = `${x.name('dueShard')} = ${x.value({ N: String(s) })} AND ${x.name('dueAt')} <= ${x.value({ N: String(now) })}`;
        return this.r.queryAll({ TableName: this.t.tasks, IndexName: 'due', KeyConditionExpression: kc, Limit: limit, ...x.params() }, limit);
      }),
    );
    const tasks = (await Promise.all(pages.flat().map((i) => this.decodeTask(i)))).filter((t) => !isTerminal(t.state));
    tasks.sort((a, b) => a.dueAt! - b.dueAt! || (sortKeyOf(a) < sortKeyOf(b) ? -1 : 1));
    return tasks.slice(0, limit);
  }


  // ---------------------------------------------------------- triggers, poke claims (dynamo-triggers.ts)

  private readonly triggers: DynamoTriggers;
  putTrigger(t: TriggerRecord): Promise<Cas<TriggerRecord>> { return this.triggers.putTrigger(t); }
  getTrigger(id: string): Promise<TriggerRecord | undefined> { return this.triggers.getTrigger(id); }
  deleteTrigger(id: string): Promise<void> { return this.triggers.deleteTrigger(id); }
  updateTrigger(id: string, patch: Partial<Omit<TriggerRecord, 'id'>>): Promise<void> { return this.triggers.updateTrigger(id, patch); }
  listSensorTriggers(shard: number, dueBefore: number): Promise<TriggerRecord[]> { return this.triggers.listSensorTriggers(shard, dueBefore); }
  listEventTriggers(eventKey: string): Promise<TriggerRecord[]> { return this.triggers.listEventTriggers(eventKey); }
  claimPoke(hashcode: string, cycle: number, expiresAtSec?: number): Promise<boolean> { return this.triggers.claimPoke(hashcode, cycle, expiresAtSec); }

  // XCom values and signals: kv items whose values may be offloaded (dynamo-values.ts).
  private readonly values: DynamoValues;
  putXcom(key: XcomKey, value: unknown, expiresAt?: number): Promise<void> { return this.values.putXcom(key, value, expiresAt); }
  getXcom(key: XcomKey): Promise<unknown> { return this.values.getXcom(key); }
  clearXcoms(task: TaskKey): Promise<void> { return this.values.clearXcoms(task); }
  putSignal(sig: SignalRecord): Promise<void> { return this.values.putSignal(sig); }
  getSignal(key: string, now: number): Promise<SignalRecord | undefined> { return this.values.getSignal(key, now); }

  async registerPool(pool: PoolSpec): Promise<void> {
    return registerPool(this.r, this.t.kv, pool);
  }

  async getPool(name: string): Promise<PoolState | undefined> {
    return getPool(this.r, this.t.kv, name);
  }

  async listWaiters(waitKey: string, limit: number): Promise<TaskKey[]> {
    return listWaiters(this.r, this.t.tasks, waitKey, limit);
  }

  // ---------------------------------------------------------------------- helpers

  private taskKey(k: TaskKey): Item {
    return { runKey: { S: runKeyOf(k.dagId, k.runId) }, taskId: { S: k.taskId } };
  }

  private async decodeTask(item: Item): Promise<TaskInstance> {
    const rec = await decodeFields(item, this.blobs);
    checkState('task', rec, `${item['runKey']?.S}/${item['taskId']?.S}`);
    rec['upstream'] ??= {};
    return rec as unknown as TaskInstance;
  }

  private async decodeRun(item: Item): Promise<DagRun> {
    const rec = await decodeFields(item, this.blobs);
    checkState('run', rec, `${item['dagId']?.S}/${item['runId']?.S}`);
    return rec as unknown as DagRun;
  }

  /** Adds a patch to an update: `null` removes, `undefined` is ignored; `json` fields may offload. */
  private async patchInto(x: Expr, patch: object, json: Record<string, [blobKey: string, what: string]> = {}): Promise<void> {
    for (const [k, v] of Object.entries(patch as Rec)) {
      if (v === undefined) continue;
      if (v === null) x.remove(k);
      else if (json[k]) x.set(k, await encodeJson(v, json[k][0], json[k][1], this.blobs));
      else x.set(k, encodeValue(k, v));
    }
  }

  // ------------------------------------------------------------------ assets (dynamo-assets.ts)

  private readonly assets: DynamoAssets;
  putAssetRecord(rec: AssetRecord): Promise<void> { return this.assets.putAssetRecord(rec); }
  getAssetRecord(uri: string): Promise<AssetRecord | undefined> { return this.assets.getAssetRecord(uri); }
  listAssetRecords(): Promise<AssetRecord[]> { return this.assets.listAssetRecords(); }
  putAssetWatcher(w: AssetWatcherEntry): Promise<void> { return this.assets.putAssetWatcher(w); }
  deleteAssetWatcher(w: AssetWatcherEntry): Promise<void> { return this.assets.deleteAssetWatcher(w); }
  listAssetWatchers(source: string): Promise<AssetWatcherEntry[]> { return this.assets.listAssetWatchers(source); }
  putAssetEvent(e: AssetEventRecord) { return this.assets.putAssetEvent(e); }
  getAssetEvents(refs: readonly string[]): Promise<AssetEventRecord[]> { return this.assets.getAssetEvents(refs); }
  listAssetEvents(uri: string, o: { limit: number; after?: number; before?: number }) { return this.assets.listAssetEvents(uri, o); }
  markAssetEventsConsumed(refs: readonly string[], runKey: string): Promise<void> { return this.assets.markAssetEventsConsumed(refs, runKey); }
  queueAssetEvent(dagId: string, uri: string, ref: string, now: number, cap: number): Promise<QueueOutcome> { return this.assets.queueAssetEvent(dagId, uri, ref, now, cap); }
  getAssetQueue(dagId: string): Promise<AssetQueue | undefined> { return this.assets.getAssetQueue(dagId); }
  consumeAssetQueue(dagId: string, gen: number, refs: Readonly<Record<string, readonly string[]>>, now: number) { return this.assets.consumeAssetQueue(dagId, gen, refs, now); }
  clearAssetQueue(dagId: string, uri?: string): Promise<void> { return this.assets.clearAssetQueue(dagId, uri); }
}
