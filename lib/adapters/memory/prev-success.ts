/** The DAG's latest-success marks in process, with the DynamoDB adapter's condition (dynamo-prev-success.ts). */
import type { PrevSuccessStore, RunSuccessMark } from '../../engine/index.js';

/**
 * @example
 * const marks = new MemoryPrevSuccess();
 * await marks.putLastSuccess('etl', { runId: 'r1', logicalDate: 0, dataIntervalStart: 0, dataIntervalEnd: 0 }); // true
 */
export class MemoryPrevSuccess implements PrevSuccessStore {
  private readonly marks = new Map<string, RunSuccessMark>();

  async putLastSuccess(dagId: string, mark: RunSuccessMark): Promise<boolean> {
    const cur = this.marks.get(dagId);
    if (cur && cur.logicalDate > mark.logicalDate) return false;
    this.marks.set(dagId, { ...mark });
    return true;
  }

  async getLastSuccess(dagId: string): Promise<RunSuccessMark | undefined> {
    const m = this.marks.get(dagId);
    return m && { ...m };
  }
}
