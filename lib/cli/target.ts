/**
 * Where a stack command or a `--dev` command acts: the engine's ports, plus the two
 * capabilities that differ between a deployed stack and a dev. The operations
 * (`aws-ops.ts`, `backfill.ts`, `assets.ts`) take these, so a stack and a dev run the
 * same code without a cast.
 */
import type { DagRecord, Ports } from '../engine/index.js';
import type { Out } from './io.js';

/** A task's log as `airless logs` asks for it. */
export interface TaskLogQuery {
  dagId: string;
  runId: string;
  taskId: string;
  tryNumber?: number;
}

/** Switches a DAG's EventBridge schedule on a stack; resolves with its new State, undefined when it has none. */
export type ScheduleSwitch = (dag: DagRecord, paused: boolean) => Promise<string | undefined>;

export interface Target {
  ports: Ports;
  out: Out;
  /** A stack's schedules; a dev schedules from its own tick, so it has none. */
  schedules?: ScheduleSwitch;
  /** Prints a task's log lines (CloudWatch Logs on a stack, the dev's own lines on a dev). */
  printTaskLog(q: TaskLogQuery): Promise<number>;
}
