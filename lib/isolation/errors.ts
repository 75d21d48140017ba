/**
 * Errors of isolated tries. They extend AirlessError, so the engine shows their message
 * as it is: one line, already naming what happened (and where, once located).
 */
import { AirlessError } from '../engine/index.js';

/**
 * Task code failed inside its thread: an error it threw, a crash, an exit, running out of
 * memory. `message` is one line; `remoteStack` is the thread's stack, source-mapped.
 *
 * @example
 * throw TaskCodeError.from({ name: 'TypeError', message: 'x is undefined', stack }, 'unhandled rejection in task code: ');
 */
export class TaskCodeError extends AirlessError {
  constructor(message: string, readonly remoteStack?: string) {
    super(oneLine(message));
    this.name = 'TaskCodeError';
  }

  static from(e: { name?: string; message?: string; stack?: string }, prefix = ''): TaskCodeError {
    return new TaskCodeError(`${prefix}${e.name ?? 'Error'}: ${e.message ?? ''}`, e.stack);
  }
}

/** Newlines and runs of spaces become one space: a failure is one line in a summary table. */
export function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ').trim();
}
