/**
 * The API's audit log (AuditLogStore): the same tests on the memory store and DynamoDB
 * Local. Ids count up from 1 in the order of writing, racing writers get distinct ids,
 * and every event reads back as written.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import type { Store } from '../../lib/engine/index.js';

export function auditLogContract(name: string, makeStore: () => Promise<Store>): void {
  describe(`AuditLogStore contract: ${name}`, () => {
    let store: Store;
    beforeEach(async () => {
      store = await makeStore();
    });

    it('numbers events from 1, reads each back by id and all in order; an unknown id is undefined', async () => {
      expect(await store.listAuditEvents()).toEqual([]);
      const a = await store.appendAuditEvent({ when: 1000, event: 'patch_dag', dagId: 'etl', owner: 'airless', extra: '{"is_paused":true}' });
      const b = await store.appendAuditEvent({ when: 2000, event: 'delete_task_instance', dagId: 'etl', runId: 'r1', taskId: 'load', mapIndex: -1, tryNumber: 2, logicalDate: 500 });
      expect([a.id, b.id]).toEqual([1, 2]);
      expect(await store.getAuditEvent(2)).toEqual({ id: 2, when: 2000, event: 'delete_task_instance', dagId: 'etl', runId: 'r1', taskId: 'load', mapIndex: -1, tryNumber: 2, logicalDate: 500 });
      expect((await store.listAuditEvents()).map((e) => [e.id, e.event])).toEqual([[1, 'patch_dag'], [2, 'delete_task_instance']]);
      expect(await store.getAuditEvent(3)).toBeUndefined();
      expect(await store.getAuditEvent(0)).toBeUndefined();
    });

    it('racing writers get distinct ids, none lost', async () => {
      const written = await Promise.all(Array.from({ length: 12 }, (_v, i) => store.appendAuditEvent({ when: i, event: `e${i}` })));
      expect(new Set(written.map((e) => e.id)).size).toBe(12);
      expect((await store.listAuditEvents()).map((e) => e.id)).toEqual(Array.from({ length: 12 }, (_v, i) => i + 1));
    });
  });
}
