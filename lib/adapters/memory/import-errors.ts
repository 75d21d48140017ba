/** Import errors in process, as the DynamoDB adapter keeps them (dynamo-import-errors.ts). */
import type { ImportErrorRecord, ImportErrorStore } from '../../engine/index.js';

/**
 * @example
 * const errors = new MemoryImportErrors();
 * await errors.putImportError('etl.ts', 'Unexpected "}"', Date.now()); // { id: 1, ... }
 */
export class MemoryImportErrors implements ImportErrorStore {
  private readonly byFile = new Map<string, ImportErrorRecord>();
  private nextId = 1;

  async putImportError(file: string, message: string, at: number): Promise<ImportErrorRecord> {
    const rec = { id: this.byFile.get(file)?.id ?? this.nextId++, file, message, at };
    this.byFile.set(file, rec);
    return { ...rec };
  }

  async clearImportErrors(keep: readonly string[] = []): Promise<void> {
    for (const file of [...this.byFile.keys()]) if (!keep.includes(file)) this.byFile.delete(file);
  }

  async listImportErrors(): Promise<ImportErrorRecord[]> {
    return [...this.byFile.values()].map((r) => ({ ...r })).sort((a, b) => a.id - b.id);
  }
}
