/**
 * The one entry for anything that arrives on the ready queue: the worker Lambda and
 * the embedded runtime both call {@link handleMessage}. A malformed message throws
 * MalformedMessageError (the edge reports it as a batch item failure, so it ends in the
 * dead-letter queue); a message for a run or task that no longer exists is dropped.
 */
import { loadRunCtx } from './dag-index.js';
import { validateQueueMessage } from './messages.js';
import type { Ports, QueueMessage } from './ports.js';
import { scheduleDag } from './runs.js';
import { handleFire } from './waiting.js';
import { handleCallback } from './callbacks-run.js';
import { handleTask, type TaskResult } from './worker.js';
import { advanceBackfill } from './flow/backfill.js';
import { handleAssetMessage } from './handlers/asset-message.js';
import { handleStop } from './flow/job-stop.js';

/**
 * @example
 * await handleMessage(ports, JSON.parse(record.body));
 */
export async function handleMessage(p: Ports, raw: unknown): Promise<TaskResult> {
  const msg: QueueMessage = validateQueueMessage(raw);
  switch (msg.kind) {
    case 'task':
      return handleTask(p, msg);
    case 'fire': {
      const rc = await loadRunCtx(p, msg.dagId, msg.runId);
      if (!rc) return 'dropped';
      await handleFire(p, rc, msg);
      return 'done';
    }
    case 'schedule':
      await scheduleDag(p, msg.dagId);
      return 'done';
    case 'callback':
      return handleCallback(p, msg);
    case 'backfill':
      await advanceBackfill(p, msg.backfillId);
      return 'done';
    case 'asset':
      return handleAssetMessage(p, msg);
    case 'stop':
      return handleStop(p, msg);
  }
}
