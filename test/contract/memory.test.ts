import { MemoryStore } from '../../lib/adapters/memory/store.js';
import { storeContract } from './store.contract.js';
import { backfillStoreContract } from './backfill-store.contract.js';
import { pokerStateContract } from './poker-state.contract.js';
import { prevSuccessContract } from './prev-success.contract.js';
import { keptEventsContract } from './kept-events.contract.js';

storeContract('memory', async () => new MemoryStore());
backfillStoreContract('memory', async () => new MemoryStore());
pokerStateContract('memory', async () => new MemoryStore());
prevSuccessContract('memory', async () => new MemoryStore());
keptEventsContract('memory', async () => new MemoryStore());
