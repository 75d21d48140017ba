import { MemoryStore } from '../../lib/adapters/memory/store.js';
import { storeContract } from './store.contract.js';
import { runEndsContract } from './run-ends.contract.js';
import { runSlotsContract } from './run-slots.contract.js';

storeContract('memory', async () => new MemoryStore());
runEndsContract('memory', async () => new MemoryStore());
runSlotsContract('memory', async () => new MemoryStore());
import { backfillStoreContract } from './backfill-store.contract.js';
import { pokerStateContract } from './poker-state.contract.js';
import { prevSuccessContract } from './prev-success.contract.js';
import { auditLogContract } from './audit-log.contract.js';
import { runDeleteContract } from './run-delete.contract.js';
import { keptEventsContract } from './kept-events.contract.js';

backfillStoreContract('memory', async () => new MemoryStore());
pokerStateContract('memory', async () => new MemoryStore());
prevSuccessContract('memory', async () => new MemoryStore());
auditLogContract('memory', async () => new MemoryStore());
runDeleteContract('memory', async () => new MemoryStore());
keptEventsContract('memory', async () => new MemoryStore());
