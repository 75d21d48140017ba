import { MemoryStore } from '../../lib/adapters/memory/store.js';
import { storeContract } from './store.contract.js';
import { keptEventsContract } from './kept-events.contract.js';

storeContract('memory', async () => new MemoryStore());
keptEventsContract('memory', async () => new MemoryStore());
