/** The audit log in process (lib/engine/model/audit-log.ts), with the DynamoDB adapter's ids (dynamo-audit-log.ts). */
import type { AuditEvent, AuditLogStore } from '../../engine/index.js';

/**
 * @example
 * const log = new MemoryAuditLog();
 * (await log.appendAuditEvent({ when: 0, event: 'patch_dag', dagId: 'etl' })).id; // 1
 */
export class MemoryAuditLog implements AuditLogStore {
  private readonly events: AuditEvent[] = [];

  async appendAuditEvent(e: Omit<AuditEvent, 'id'>): Promise<AuditEvent> {
    const kept = { ...e, id: this.events.length + 1 };
    this.events.push(kept);
    return { ...kept };
  }

  async getAuditEvent(id: number): Promise<AuditEvent | undefined> {
    const e = this.events[id - 1];
    return e && { ...e };
  }

  async listAuditEvents(): Promise<AuditEvent[]> {
    return this.events.map((e) => ({ ...e }));
  }
}
