/**
 * The {@link Log} port on Powertools Logger: structured JSON lines in CloudWatch Logs,
 * with the Lambda context when a handler attaches it.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import type { Log } from '../../engine/index.js';

/**
 * @example
 * const log = new PowertoolsLog();
 * log.info('task finished', { dagId: 'etl', taskId: 'extract', state: 'success' });
 * const child = log.with({ dagId: 'etl' });
 */
export class PowertoolsLog implements Log {
  readonly logger: Logger;

  constructor(opts: { serviceName?: string; logger?: Logger } = {}) {
    this.logger = opts.logger ?? new Logger({ serviceName: opts.serviceName ?? 'airless' });
  }

  info(msg: string, fields?: Record<string, unknown>): void {
    this.logger.info(msg, fields ?? {});
  }

  warn(msg: string, fields?: Record<string, unknown>): void {
    this.logger.warn(msg, fields ?? {});
  }

  error(msg: string, fields?: Record<string, unknown>): void {
    this.logger.error(msg, fields ?? {});
  }

  /** A log that adds `fields` to every line. */
  with(fields: Record<string, unknown>): PowertoolsLog {
    const child = this.logger.createChild();
    child.appendKeys(fields as Parameters<Logger['appendKeys']>[0]);
    return new PowertoolsLog({ logger: child });
  }
}
