/** Test helpers that watch an embedded runtime: messages sent, state changes, concurrency peaks. */
import type { StateEvent } from '../../lib/adapters/memory/observe.js';
import type { MemoryQueue } from '../../lib/adapters/memory/queue.js';
import type { QueueMessage, TaskMessage } from '../../lib/engine/index.js';

/**
 * Wraps a memory queue's `send` to record every message it carries (the runtime and the
 * engine share the same queue object, so this sees every send).
 *
 * @example
 * const sent = recordSends(rt.queue);
 * expect(taskMessages(sent, 'c')).toHaveLength(1);
 */
export function recordSends(queue: MemoryQueue): QueueMessage[] {
  const sent: QueueMessage[] = [];
  const original = queue.send.bind(queue);
  queue.send = async (messages, opts) => {
    sent.push(...messages);
    return original(messages, opts);
  };
  return sent;
}

/** Task messages sent for one task (optionally one run). */
export function taskMessages(sent: readonly QueueMessage[], taskId: string, runId?: string): TaskMessage[] {
  return sent.filter((m): m is TaskMessage => m.kind === 'task' && m.taskId === taskId && (runId === undefined || m.runId === runId));
}

/**
 * Tracks how many runs are `running` and how many tasks are queued or running at once,
 * from the runtime's state events, and keeps the peaks.
 *
 * @example
 * const peaks = trackPeaks();
 * const { rt } = await makeRuntime([d], { onEvent: peaks.onEvent });
 * expect(peaks.maxRunning).toBeLessThanOrEqual(2);
 */
export function trackPeaks() {
  const runs = new Map<string, string>();
  const tasks = new Map<string, string>();
  const peaks = {
    maxRunning: 0,
    maxActiveTasks: 0,
    /** Greatest number of runs seen waiting in `queued` while others ran. */
    maxQueuedRuns: 0,
    events: [] as StateEvent[],
    onEvent: (e: StateEvent) => {
      peaks.events.push(e);
      if (e.type === 'run') runs.set(`${e.run.dagId}/${e.run.runId}`, e.run.state);
      else tasks.set(`${e.ti.dagId}/${e.ti.runId}/${e.ti.taskId}`, e.ti.state);
      const rs = [...runs.values()];
      peaks.maxRunning = Math.max(peaks.maxRunning, rs.filter((s) => s === 'running').length);
      peaks.maxQueuedRuns = Math.max(peaks.maxQueuedRuns, rs.filter((s) => s === 'queued').length);
      const active = [...tasks.values()].filter((s) => s === 'queued' || s === 'running').length;
      peaks.maxActiveTasks = Math.max(peaks.maxActiveTasks, active);
    },
  };
  return peaks;
}
