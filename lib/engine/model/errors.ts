/**
 * Engine errors. Every error Airless raises is an {@link AirlessError}; `retryable`
 * tells the edge (a Lambda handler, the CLI) whether trying again can help.
 *
 * @example
 * throw new InvalidDagError('cycle: a -> b -> a', { file: 'etl.ts', dagId: 'etl' });
 */
export class AirlessError extends Error {
  readonly retryable: boolean;
  constructor(message: string, opts: { cause?: unknown; retryable?: boolean } = {}) {
    super(message, { cause: opts.cause });
    this.name = new.target.name;
    this.retryable = opts.retryable ?? false;
  }
}

/** A DAG definition is invalid: build fails, the message names file, DAG and task. */
export class InvalidDagError extends AirlessError {
  readonly file?: string;
  readonly dagId?: string;
  readonly taskId?: string;
  constructor(message: string, where: { file?: string; dagId?: string; taskId?: string; cause?: unknown } = {}) {
    const prefix = [where.file, where.dagId && `dag ${where.dagId}`, where.taskId && `task ${where.taskId}`]
      .filter(Boolean)
      .join(': ');
    super(prefix ? `${prefix}: ${message}` : message, { cause: where.cause });
    this.file = where.file;
    this.dagId = where.dagId;
    this.taskId = where.taskId;
  }
}

/** A value given by a user (duration, cron, timezone, JSON) cannot be parsed. */
export class InvalidInputError extends AirlessError {}

/** A message on the queue does not match its schema: it goes to the dead-letter queue. */
export class MalformedMessageError extends AirlessError {}

/** A DAG, run or task that does not exist. */
export class NotFoundError extends AirlessError {}

/** A bundle version is missing or its sha256 does not match the manifest. */
export class BundleError extends AirlessError {}

/** A bundle version (its manifest or its code) does not exist: permanent, unlike AccessDenied or a timeout. */
export class BundleNotFoundError extends BundleError {}

/** A value is too large to store (after offloading, where offloading exists). */
export class OversizedValueError extends AirlessError {}

/** A task try exceeded its execution timeout. */
export class TaskTimeoutError extends AirlessError {}
