/**
 * The backfill operations of the Store port in process (lib/engine/model/backfill-store.ts),
 * with the DynamoDB adapter's semantics (dynamo-backfills.ts): each step checks the
 * backfill's and the run's conditions and applies both writes in one synchronous turn,
 * so no other call sees one without the other.
 */
import type { Backfill, BackfillPatch, BackfillSlotTake, BackfillStep, Cas, DagRun, RunPatch, StepResult, StepRun } from '../../engine/index.js';
import { applyPatch, cloneRun, conditionFailed, jsonClone } from './records.js';

/** The run writes a step needs from the memory store, synchronous. */
export interface MemoryRunAccess {
  /** The stored run (not a copy), or undefined. */
  peekRun(dagId: string, runId: string): DagRun | undefined;
  /** Stores a new run (the caller checked it does not exist). */
  putRun(run: DagRun): void;
  /** Patches a stored run and re-indexes it. */
  patchRun(dagId: string, runId: string, patch: RunPatch): void;
}

const clone = (b: Backfill): Backfill => jsonClone(b);

export class MemoryBackfills {
  private readonly items = new Map<number, Backfill>();
  /** dagId -> the open backfill's id. */
  private readonly openByDag = new Map<string, number>();
  private seq = 0;
  /** Backfill id -> the runs holding one of its slots (`active` is their number). */
  private readonly holders = new Map<number, Set<string>>();

  private held(id: number): Set<string> {
    let s = this.holders.get(id);
    if (!s) this.holders.set(id, (s = new Set()));
    return s;
  }

  constructor(private readonly runs: MemoryRunAccess) {}

  async nextBackfillId(): Promise<number> {
    return ++this.seq;
  }

  async createBackfill(b: Backfill): Promise<Cas<Backfill>> {
    const open = this.openByDag.get(b.dagId);
    if (open !== undefined || this.items.has(b.id)) return conditionFailed(open === undefined ? undefined : clone(this.items.get(open)!));
    this.items.set(b.id, clone(b));
    this.openByDag.set(b.dagId, b.id);
    return { ok: true, item: clone(b) };
  }

  async getBackfill(id: number): Promise<Backfill | undefined> {
    const b = this.items.get(id);
    return b && clone(b);
  }

  async listBackfills(dagId: string): Promise<Backfill[]> {
    return [...this.items.values()].filter((b) => b.dagId === dagId).sort((a, b) => a.id - b.id).map(clone);
  }

  async listOpenBackfills(): Promise<number[]> {
    return [...this.openByDag.values()].sort((a, b) => a - b);
  }

  async updateBackfill(id: number, patch: BackfillPatch, expect: { open?: true; clearing?: string } = {}): Promise<Cas<Backfill>> {
    const b = this.items.get(id);
    if (!b || (expect.open && b.completedAt !== undefined) || (expect.clearing !== undefined && b.clearing !== expect.clearing)) {
      return conditionFailed(b && clone(b));
    }
    applyPatch(b as unknown as Record<string, unknown>, patch);
    return { ok: true, item: clone(b) };
  }

  async stepBackfill(id: number, step: BackfillStep, run?: StepRun): Promise<StepResult> {
    const b = this.items.get(id);
    if (!b || b.completedAt !== undefined || b.paused || b.cursor !== step.from || (step.clearing !== undefined && b.clearing !== undefined)) {
      return { ok: false, reason: 'backfill', current: b && clone(b) };
    }
    const takesSlot = step.outcome !== 'skipped';
    if (takesSlot && b.active >= b.maxActiveRuns) return { ok: false, reason: 'slots', current: clone(b) };
    if (run && 'put' in run && this.runs.peekRun(run.put.dagId, run.put.runId)) return { ok: false, reason: 'run', current: clone(b) };
    if (run && 'reopen' in run && this.runs.peekRun(run.reopen.dagId, run.reopen.runId)?.state !== run.reopen.expectState) {
      return { ok: false, reason: 'run', current: clone(b) };
    }
    if (run && 'put' in run) this.runs.putRun(cloneRun(run.put));
    if (run && 'reopen' in run) this.runs.patchRun(run.reopen.dagId, run.reopen.runId, run.reopen.patch);
    b.cursor = step.to;
    b.handled += 1;
    b[step.outcome] += 1;
    if (takesSlot && run) {
      b.active += 1;
      this.held(id).add('put' in run ? run.put.runId : run.reopen.runId);
    }
    if (step.clearing !== undefined) Object.assign(b, { clearing: step.clearing, clearingAt: step.now });
    b.updatedAt = step.now;
    return { ok: true, item: clone(b) };
  }

  async completeBackfill(id: number, now: number, cancelled?: true): Promise<Cas<Backfill>> {
    const b = this.items.get(id);
    if (!b || b.completedAt !== undefined || (!cancelled && (b.handled < b.total || b.active > 0))) return conditionFailed(b && clone(b));
    b.completedAt = now;
    b.updatedAt = now;
    if (cancelled) Object.assign(b, { cancelled: true, paused: true });
    if (this.openByDag.get(b.dagId) === id) this.openByDag.delete(b.dagId);
    return { ok: true, item: clone(b) };
  }

  async takeBackfillSlot(id: number, runId: string, _now: number): Promise<BackfillSlotTake> {
    const b = this.items.get(id);
    if (!b) return 'gone';
    if (this.held(id).has(runId)) return 'held';
    if (b.active >= b.maxActiveRuns || b.paused) return 'full';
    this.held(id).add(runId);
    b.active += 1;
    return 'taken';
  }

  async releaseBackfillSlot(id: number, runId: string): Promise<void> {
    const b = this.items.get(id);
    if (b && this.held(id).delete(runId)) b.active -= 1;
  }

  async backfillSlotHolders(id: number): Promise<string[]> {
    return [...this.held(id)].sort();
  }
}
