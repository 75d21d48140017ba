/**
 * Child process of idle-exit.test.ts: a pool kills a spinning try (the pool then starts a
 * replacement thread, never lent out) and warms one more; then this script returns. The
 * process must end by itself: no thread of the pool may keep it alive.
 * `node --import tsx test/isolation/idle-exit-child.ts <bundle.mjs> <sha>`
 */
import { IsolationPool } from '../../lib/isolation/pool.js';

const [bundlePath, sha] = process.argv.slice(2);
const pool = new IsolationPool({ bundlePath: bundlePath!, sha: sha!, memoryMb: 64 });
const thread = await pool.reserve();
const ctx = { dagId: 'misbehaving', runId: 'r', taskId: 'spin', tryNumber: 1 };
try {
  await pool.run({ t: 'run', dagId: 'misbehaving', taskId: 'spin', method: 'execute', ctx }, undefined, AbortSignal.timeout(200), thread);
  console.log('the spin ended by itself');
} catch (e) {
  console.log(`killed: ${(e as Error).message}`);
}
pool.warm(2);
console.log(`threads alive: ${pool.size}`);
