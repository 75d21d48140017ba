/**
 * The Store port in process: the embedded runtime, unit tests and benchmarks use it.
 * Semantics match the DynamoDB store exactly (test/contract runs one suite on both):
 * every write is a compare-and-set returning `Cas<T>`; a terminal task state removes
 * `dueAt`; `null` in a patch removes the attribute; JSON-valued fields (conf, spec,
 * kwargs, payloads, XCom values) round-trip through JSON as they do in DynamoDB;
 * returned objects never alias stored state.
 *
 */
import type { DagRecord, DagRun, SignalRecord, TaskInstance, TaskKey, TriggerRecord, XcomKey } from '../../engine/index.js';
import type { Cas, LimitMove, PoolSpec, PoolState, RunPatch, SlotChange, Store, TaskExpect, TaskPatch } from '../../engine/index.js';
import { deepFreeze, isRunTerminal, isTerminal, parseRunState, parseTaskState, type RunState, type UpstreamOutcome } from '../../engine/index.js';
import { decodeXcom, encodeXcom } from '../xcom-codec.js';
import { clearMemoryXcoms } from './xcom-clear.js';
import { MinHeap } from './min-heap.js';
import { MemoryLimits } from './limits.js';
import { MemoryMapCounts } from './mapping.js';
import { MemoryRunEnds } from './run-ends.js';
import { MemoryRunSlots } from './run-slots.js';
import { MemoryBackfills } from './backfills.js';
import { MemoryPokerStates } from './poker-state.js';
import { MemoryPrevSuccess } from './prev-success.js';
import { MemoryImportErrors } from './import-errors.js';
import { MemoryAuditLog } from './audit-log.js';
import { deleteMemoryRun, deleteMemoryTask, deleteMemoryXcom } from './run-delete.js';
import { MemoryTriggers } from './triggers.js';
import { MemorySignals } from './signals.js';
import type { Backfill, BackfillPatch, BackfillStep, StepRun } from '../../engine/index.js';
import type { PokerState } from '../../engine/index.js';
import type { RunSuccessMark } from '../../engine/index.js';
import type { AuditEvent } from '../../engine/index.js';
import { MemoryAssets } from './assets.js';
import { MemoryKeptEvents } from './events.js';
import type { KeptEvent, MapOutcome, MapShardState, RunEndEntry, RunEndShard, RunRef, RunSlotTake } from '../../engine/index.js';

import { applyPatch, cloneDag, cloneRun, compact, conditionFailed, frozenTask, newStoredTask, runKey, stateMatches, taskKey, withPatch, xcomKey } from './records.js';

const DUE_NULL = Object.freeze({ dueAt: null });
const NO_PATCH = Object.freeze({});

/**
 * In-process {@link Store}.
 *
 * @example
 * const store = new MemoryStore();
 * await store.createRun(run);
 * const r = await store.updateTask(key, { state: 'queued', tryNumber: 1 }, { state: 'running' }, { delta: 1, max: 4 });
 */
export class MemoryStore extends MemoryAssets implements Store {
  private readonly dags = new Map<string, DagRecord>();
  private readonly runs = new Map<string, Map<string, DagRun>>();
  private readonly activeRuns = new Map<string, DagRun>();
  /** Non-terminal runs by DAG: starting queued runs must not scan finished ones. */
  private readonly activeByDag = new Map<string, Map<string, DagRun>>();
  private readonly tasks = new Map<string, Map<string, TaskInstance>>();
  /** Non-terminal tasks with a dueAt: key -> dueAt (the heap may hold stale entries). */
  private readonly dueLive = new Map<string, number>();
  private readonly dueHeap = new MinHeap();
  private readonly xcoms = new Map<string, string>();
  /** Pools, per-task limit counters and their waiters (limits.ts). */
  readonly limits = new MemoryLimits();
  /** Dynamic task mapping's counts (mapping.ts). */
  private readonly mapCounts = new MemoryMapCounts((dagId, runId) => this.listTasks(dagId, runId));

  initMapCounts(k: TaskKey, n: number): Promise<void> { return this.mapCounts.initMapCounts(k, n); }
  countMapped(k: TaskKey, s: number, i: number, o: MapOutcome): Promise<MapShardState> { return this.mapCounts.countMapped(k, s, i, o); }
  uncountMapped(k: TaskKey, s: number, i: number): Promise<void> { return this.mapCounts.uncountMapped(k, s, i); }
  closeMapShard(k: TaskKey, s: number) { return this.mapCounts.closeMapShard(k, s); }
  getMapSummary(k: TaskKey) { return this.mapCounts.getMapSummary(k); }
  getMapShards(k: TaskKey, s: readonly number[]) { return this.mapCounts.getMapShards(k, s); }
  listMapped(k: TaskKey): Promise<TaskInstance[]> { return this.mapCounts.listMapped(k); }
  /** Run-end counts of counted runs (run-ends.ts). */
  private readonly runEnds = new MemoryRunEnds();
  countRunEnds(r: RunRef, s: number, e: readonly RunEndEntry[]): Promise<RunEndShard> { return this.runEnds.countRunEnds(r, s, e); }
  uncountRunEnds(r: RunRef, s: number, i: readonly number[]): Promise<void> { return this.runEnds.uncountRunEnds(r, s, i); }
  closeRunEndShard(r: RunRef, s: number): Promise<number> { return this.runEnds.closeRunEndShard(r, s); }
  getRunEnds(r: RunRef, s: readonly number[]): Promise<Map<number, RunEndShard>> { return this.runEnds.getRunEnds(r, s); }
  /** maxActiveRuns slots (run-slots.ts). */
  private readonly slots = new MemoryRunSlots();
  async takeRunSlot(dagId: string, runId: string, max: number, now: number): Promise<RunSlotTake> { return this.slots.take(this.dags.has(dagId), dagId, runId, max, now); }
  async releaseRunSlot(dagId: string, runId: string): Promise<number | undefined> { return this.slots.release(this.dags.has(dagId), dagId, runId); }

  /** Poker schedule states (poker-state.ts). */
  private readonly pokerStates = new MemoryPokerStates((v) => this.triggers.hasSensors(v));
  getPokerState(shard: number) { return this.pokerStates.getPokerState(shard); }
  putPokerState(next: PokerState) { return this.pokerStates.putPokerState(next); }
  hasSensorTriggers(virtualShard: number) { return this.pokerStates.hasSensorTriggers(virtualShard); }
  /** The DAGs' latest-success marks (prev-success.ts). */
  private readonly prevSuccess = new MemoryPrevSuccess();
  putLastSuccess(dagId: string, mark: RunSuccessMark) { return this.prevSuccess.putLastSuccess(dagId, mark); }
  getLastSuccess(dagId: string) { return this.prevSuccess.getLastSuccess(dagId); }
  /** DAG files whose last build failed (import-errors.ts). */
  private readonly importErrors = new MemoryImportErrors();
  putImportError(file: string, message: string, at: number) { return this.importErrors.putImportError(file, message, at); }
  clearImportErrors(keep?: readonly string[]) { return this.importErrors.clearImportErrors(keep); }
  listImportErrors() { return this.importErrors.listImportErrors(); }
  /** The API's audit log (audit-log.ts). */
  private readonly auditLog = new MemoryAuditLog();
  appendAuditEvent(e: Omit<AuditEvent, 'id'>) { return this.auditLog.appendAuditEvent(e); }
  getAuditEvent(id: number) { return this.auditLog.getAuditEvent(id); }
  listAuditEvents() { return this.auditLog.listAuditEvents(); }
  /** Deleting finished runs and task instances (run-delete.ts). */
  async deleteRun(dagId: string, runId: string) { return deleteMemoryRun({ runs: this.runs, tasks: this.tasks, xcoms: this.xcoms }, dagId, runId); }
  async deleteTask(key: TaskKey) { return deleteMemoryTask({ runs: this.runs, tasks: this.tasks, xcoms: this.xcoms }, key); }
  async deleteXcom(key: XcomKey) { return deleteMemoryXcom({ runs: this.runs, tasks: this.tasks, xcoms: this.xcoms }, key); }

  /**
   * Backfills (backfills.ts). A step writes its run through createRun/updateRun, whose
   * bodies run synchronously up to their return: the run and the backfill change in the
   * same turn, as DynamoDB's transaction makes them change together.
   */
  private readonly backfills = new MemoryBackfills({
    peekRun: (dagId, runId) => this.runs.get(dagId)?.get(runId),
    putRun: (run) => void this.createRun(run),
    patchRun: (dagId, runId, patch) => void this.updateRun(dagId, runId, { state: this.runs.get(dagId)!.get(runId)!.state }, patch),
  });
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
  /** Events kept for waits stored after them (events.ts). */
  private readonly kept = new MemoryKeptEvents();
  keepEvent(key: string, kept: KeptEvent, exp: number): Promise<void> { return this.kept.keepEvent(key, kept, exp); }
  keptEvents(key: string, now: number): Promise<KeptEvent[]> { return this.kept.keptEvents(key, now); }

  // ----------------------------------------------------------------- DAG registry

  async putDag(rec: DagRecord): Promise<void> {
    const { activeRuns: _a, runSlots: _s, ...stored } = rec;
    this.slots.forget(rec.dagId);
    this.dags.set(rec.dagId, compact(cloneDag(stored)));
  }

  async getDag(dagId: string): Promise<DagRecord | undefined> {
    const d = this.dags.get(dagId);
    return d && this.slots.decorate(cloneDag(d));
  }

  async listDags(): Promise<DagRecord[]> {
    return [...this.dags.values()].sort((a, b) => (a.dagId < b.dagId ? -1 : 1)).map((d) => this.slots.decorate(cloneDag(d)));
  }

  async updateDag(
    dagId: string,
    patch: Partial<Omit<DagRecord, 'dagId'>>,
    expectNextTickAt?: number | null,
  ): Promise<Cas<DagRecord>> {
    const d = this.dags.get(dagId);
    if (!d) return conditionFailed<DagRecord>(undefined);
    if (expectNextTickAt !== undefined && (d.nextTickAt ?? null) !== expectNextTickAt) {
      return conditionFailed(this.slots.decorate(cloneDag(d)));
    }
    applyPatch(d as unknown as Record<string, unknown>, patch);
    return { ok: true, item: this.slots.decorate(cloneDag(d)) };
  }

  async deleteDag(dagId: string): Promise<void> {
    this.dags.delete(dagId);
    this.slots.forget(dagId);
  }

  // ------------------------------------------------------------------------- runs

  async createRun(run: DagRun): Promise<Cas<DagRun>> {
    parseRunState(run.state);
    const byDag = this.runs.get(run.dagId) ?? new Map<string, DagRun>();
    const existing = byDag.get(run.runId);
    if (existing) return conditionFailed(existing);
    const stored = deepFreeze(compact(cloneRun(run)));
    byDag.set(run.runId, stored);
    this.runs.set(run.dagId, byDag);
    this.indexRun(stored);
    return { ok: true, item: stored };
  }

  async getRun(dagId: string, runId: string): Promise<DagRun | undefined> {
    return this.runs.get(dagId)?.get(runId);
  }

  async updateRun(
    dagId: string,
    runId: string,
    expect: { state: RunState | readonly RunState[] },
    patch: RunPatch,
  ): Promise<Cas<DagRun>> {
    if (patch.state != null) parseRunState(patch.state);
    const r = this.runs.get(dagId)?.get(runId);
    if (!r || !stateMatches(r.state, expect.state)) return conditionFailed(r);
    return { ok: true, item: this.storeRun(deepFreeze(withPatch(r, patch as Record<string, unknown>))) };
  }

  async listRuns(dagId: string, opts: { states?: readonly RunState[]; limit?: number } = {}): Promise<DagRun[]> {
    const onlyActive = opts.states !== undefined && opts.states.every((st) => !isRunTerminal(st));
    const source = onlyActive ? this.activeByDag.get(dagId) : this.runs.get(dagId);
    const all = [...(source?.values() ?? [])]
      .filter((r) => (!opts.states || opts.states.includes(r.state)) && (!onlyActive || this.listedActive(r)))
      .sort((a, b) => b.logicalDate - a.logicalDate || (a.runId < b.runId ? 1 : -1));
    return opts.limit === undefined ? all : all.slice(0, opts.limit);
  }

  async listActiveRuns(): Promise<DagRun[]> {
    return [...this.activeRuns.values()].filter((r) => this.listedActive(r));
  }

  /** As the DynamoDB store finds them: queued runs, a backfill's runs, and other running runs through their slot (ports.ts). */
  private listedActive(r: DagRun): boolean {
    return r.state !== 'running' || r.backfillId !== undefined || this.slots.holds(r.dagId, r.runId);
  }

  private indexRun(r: DagRun): void {
    const k = runKey(r.dagId, r.runId);
    let byDag = this.activeByDag.get(r.dagId);
    if (isRunTerminal(r.state)) {
      this.activeRuns.delete(k);
      byDag?.delete(r.runId);
    } else {
      this.activeRuns.set(k, r);
      if (!byDag) this.activeByDag.set(r.dagId, (byDag = new Map()));
      byDag.set(r.runId, r);
    }
  }

  /** Replaces a stored run with its next version (stored runs are deep-frozen and read without a copy, never changed in place). */
  private storeRun(next: DagRun): DagRun {
    this.runs.get(next.dagId)!.set(next.runId, next);
    this.indexRun(next);
    return next;
  }

  /**
   * Moves a run's maxActiveTasks counter; false when `+1` would pass `max` or the run is
   * missing. A missing run does not block a release (`-1`), as in the DynamoDB store.
   */
  private moveActiveTasks(dagId: string, runId: string, slot: SlotChange): boolean {
    const run = this.runs.get(dagId)?.get(runId);
    if (!run) return slot.delta < 0;
    const current = run.activeTasks ?? 0;
    if (slot.delta > 0 && slot.max !== undefined && current >= slot.max) return false;
    this.storeRun(deepFreeze({ ...run, activeTasks: current + slot.delta }));
    return true;
  }

  // ---------------------------------------------------------------- task instances

  async putTask(ti: TaskInstance): Promise<Cas<TaskInstance>> {
    parseTaskState(ti.state);
    const byRun = this.tasks.get(runKey(ti.dagId, ti.runId)) ?? new Map<string, TaskInstance>();
    const existing = byRun.get(ti.taskId);
    if (existing) return conditionFailed(existing);
    const stored = newStoredTask(ti, isTerminal(ti.state) ? DUE_NULL : NO_PATCH);
    byRun.set(ti.taskId, stored);
    this.tasks.set(runKey(ti.dagId, ti.runId), byRun);
    this.indexTask(stored);
    return { ok: true, item: stored };
  }

  async getTask(key: TaskKey): Promise<TaskInstance | undefined> {
    return this.findTask(key);
  }

  async listTasks(dagId: string, runId: string): Promise<TaskInstance[]> {
    return [...(this.tasks.get(runKey(dagId, runId))?.values() ?? [])]
      .sort((a, b) => (a.taskId < b.taskId ? -1 : 1));
  }

  async updateTask(key: TaskKey, expect: TaskExpect, patch: TaskPatch, slot?: SlotChange, limits?: readonly LimitMove[]): Promise<Cas<TaskInstance>> {
    if (patch.state != null) parseTaskState(patch.state);
    const t = this.findTask(key);
    if (
      !t ||
      !stateMatches(t.state, expect.state) ||
      (expect.tryNumber !== undefined && t.tryNumber !== expect.tryNumber) ||
      (expect.owner !== undefined && t.owner !== expect.owner)
    ) {
      return conditionFailed(t);
    }
    const refused = limits && this.limits.refusal(limits);
    if (refused) return { ok: false, current: t, reason: 'slots', limit: refused };
    if (slot && !this.moveActiveTasks(key.dagId, key.runId, slot)) {
      return { ok: false, current: t, reason: 'slots' };
    }
    if (limits) this.limits.apply(limits);
    const ends = isTerminal((patch.state ?? t.state) as TaskInstance['state']);
    const next = frozenTask(withPatch(t, (ends ? { ...patch, dueAt: null } : patch) as Record<string, unknown>));
    this.tasks.get(runKey(key.dagId, key.runId))!.set(key.taskId, next);
    this.indexTask(next);
    this.limits.index(next, t);
    return { ok: true, item: next };
  }

  async clearTask(key: TaskKey, expect: TaskExpect, patch: TaskPatch, forgetUpstream: readonly string[]): Promise<Cas<TaskInstance>> {
    const r = await this.updateTask(key, expect, patch);
    if (!r.ok) return r;
    const t = this.findTask(key)!;
    const upstream = { ...t.upstream };
    for (const u of forgetUpstream) delete upstream[u];
    const next = frozenTask({ ...t, upstream });
    this.tasks.get(runKey(key.dagId, key.runId))!.set(key.taskId, next);
    return { ok: true, item: next };
  }

  async recordUpstream(key: TaskKey, upstreamTaskId: string, outcome: UpstreamOutcome): Promise<TaskInstance> {
    const t = this.findTask(key);
    const base = t ?? { dagId: key.dagId, runId: key.runId, taskId: key.taskId, state: 'scheduled', tryNumber: 0, upstream: {} };
    const next = frozenTask({ ...base, upstream: { ...base.upstream, [upstreamTaskId]: outcome } });
    const rk = runKey(key.dagId, key.runId);
    const byRun = this.tasks.get(rk) ?? new Map<string, TaskInstance>();
    byRun.set(key.taskId, next);
    this.tasks.set(rk, byRun);
    return next;
  }

  async listDueTasks(now: number, limit: number): Promise<TaskInstance[]> {
    const picked = new Map<string, number>();
    while (picked.size < limit) {
      const top = this.dueHeap.peek();
      if (!top || top.at > now) break;
      this.dueHeap.pop();
      // Stale heap entries (dueAt changed, task terminal or deleted) are dropped here.
      if (this.dueLive.get(top.key) === top.at && !picked.has(top.key)) picked.set(top.key, top.at);
    }
    const out: TaskInstance[] = [];
    for (const [k, at] of picked) {
      this.dueHeap.push({ at, key: k });
      const [dagId, runId, taskId] = k.split('\u0000') as [string, string, string];
      const t = this.findTask({ dagId, runId, taskId });
      if (t) out.push(t);
    }
    return out;
  }


  private findTask(key: TaskKey): TaskInstance | undefined {
    return this.tasks.get(runKey(key.dagId, key.runId))?.get(key.taskId);
  }

  private indexTask(t: TaskInstance): void {
    const k = taskKey(t);
    if (t.dueAt === undefined || isTerminal(t.state)) {
      this.dueLive.delete(k);
      return;
    }
    if (this.dueLive.get(k) === t.dueAt) return;
    this.dueLive.set(k, t.dueAt);
    this.dueHeap.push({ at: t.dueAt, key: k });
    if (this.dueHeap.size > 2 * this.dueLive.size + 1024) {
      this.dueHeap.rebuild([...this.dueLive].map(([key, at]) => ({ key, at })));
    }
  }

  // Sensor and event triggers, and poke claims (triggers.ts).
  private readonly triggers = new MemoryTriggers();
  putTrigger(t: TriggerRecord): Promise<Cas<TriggerRecord>> { return this.triggers.putTrigger(t); }
  getTrigger(id: string): Promise<TriggerRecord | undefined> { return this.triggers.getTrigger(id); }
  deleteTrigger(id: string): Promise<void> { return this.triggers.deleteTrigger(id); }
  updateTrigger(id: string, patch: Partial<Omit<TriggerRecord, 'id'>>): Promise<void> { return this.triggers.updateTrigger(id, patch); }
  listSensorTriggers(shard: number, dueBefore: number): Promise<TriggerRecord[]> { return this.triggers.listSensorTriggers(shard, dueBefore); }
  listEventTriggers(eventKey: string): Promise<TriggerRecord[]> { return this.triggers.listEventTriggers(eventKey); }
  claimPoke(hashcode: string, cycle: number, expiresAtSec?: number): Promise<boolean> { return this.triggers.claimPoke(hashcode, cycle, expiresAtSec); }

  // ------------------------------------------------------------------ XCom, signals

  async putXcom(key: XcomKey, value: unknown): Promise<void> {
    this.xcoms.set(xcomKey(key), encodeXcom(value, key));
  }

  async getXcom(key: XcomKey): Promise<unknown> {
    const v = this.xcoms.get(xcomKey(key));
    return v === undefined ? undefined : decodeXcom(v);
  }

  async clearXcoms(task: TaskKey): Promise<void> {
    clearMemoryXcoms(this.xcoms, taskKey(task));
  }

  async registerPool(pool: PoolSpec): Promise<void> {
    this.limits.registerPool(pool);
  }

  async getPool(name: string): Promise<PoolState | undefined> {
    return this.limits.getPool(name);
  }

  async listWaiters(waitKey: string, limit: number): Promise<TaskKey[]> {
    return this.limits.listWaiters(waitKey, limit);
  }

  // Signals (signals.ts).
  private readonly signals = new MemorySignals();
  async putSignal(sig: SignalRecord): Promise<void> { this.signals.put(sig); }
  async getSignal(key: string, now: number): Promise<SignalRecord | undefined> { return this.signals.get(key, now); }
}
