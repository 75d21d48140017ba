/**
 * Function logs: one stream per function, appended to `<stateDir>/logs/<function>.log`
 * (one line each, as written) and kept in memory for the CloudWatch Logs answers the
 * rehearsal endpoint gives `airless logs`.
 */
import { appendFileSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { RehearsalClock } from './clock.js';
import type { FunctionSpec } from './lambda.js';

export interface LogEvent {
  logGroupName: string;
  functionName: string;
  timestamp: number;
  message: string;
}

export class LogSink {
  readonly events: LogEvent[] = [];

  constructor(readonly dir: string, private readonly clock: RehearsalClock, private readonly follow?: (functionName: string, line: string) => void) {
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
  }

  write(fn: FunctionSpec, line: string): void {
    this.events.push({ logGroupName: fn.logGroupName, functionName: fn.logicalId, timestamp: this.clock.now(), message: line });
    appendFileSync(join(this.dir, `${fn.logicalId}.log`), `${line}\n`);
    this.follow?.(fn.logicalId, line);
  }

  /** Lines of one function (by logical id). */
  lines(functionLogicalId: string): string[] {
    return this.events.filter((e) => e.functionName === functionLogicalId).map((e) => e.message);
  }
}
