/**
 * The one entry for anything that arrives on the ready queue: the worker Lambda and
 * the embedded runtime both call {@link handleMessage}. A malformed message throws
 * MalformedMessageError (the edge reports it as a batch item failure, so it ends in the
 * dead-letter queue); a message for a run or task that no longer exists is dropped.
 */
import { loadRunCtx } from '../rules/dag-index.js';
import { validateQueueMessage } from '../model/messages.js';
import type { Ports, QueueMessage } from '../model/ports.js';
import { scheduleDag } from '../flow/runs.js';
import { handleFire } from '../flow/waiting.js';
import { handleCallback } from '../flow/callbacks-run.js';
import { handleTask, type TaskResult } from './worker.js';
import { advanceBackfill } from '../flow/backfill.js';
import { handleAssetMessage } from './asset-message.js';
import { handleStop } from '../write/job-stop.js';

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
