/**
 * `getContext()` and `getClient()` of the Airflow TypeScript SDK over an Airless task's
 * `ctx`: the SDK reaches the runtime through getters rather than a parameter, so the
 * wrapper of each task puts its `ctx` in scope (AsyncLocalStorage) for the handler's call.
 * The storage sits on a global symbol so that two copies of this module in one bundle agree.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { TaskContext as AirlessContext } from '../../engine/index.js';
import type { ConnectionResult, GetXComOpts, SetXComOpts, TaskClient, TaskContext } from './types.js';

const SCOPE = Symbol.for('airless.airflow-ts-sdk.scope');

function storage(): AsyncLocalStorage<AirlessContext> {
  const holder = globalThis as unknown as Record<symbol, AsyncLocalStorage<AirlessContext> | undefined>;
  return (holder[SCOPE] ??= new AsyncLocalStorage<AirlessContext>());
}

/** Runs `fn` with `ctx` as the task in scope (what the wrapper of every SDK task does). */
export function runInTaskScope<T>(ctx: AirlessContext, fn: () => T): T {
  return storage().run(ctx, fn);
}

function current(accessor: string): AirlessContext {
  const ctx = storage().getStore();
  if (!ctx) {
    throw new Error(`${accessor}() is only available inside a task handler: it ran at module top level, or in work that outlived the handler`);
  }
  return ctx;
}

/** Thrown by `getVariableOrThrow` for a variable that does not exist. */
export class VariableNotFoundError extends Error {
  constructor(readonly key: string) {
    super(`Variable not found: ${key}`);
    this.name = 'VariableNotFoundError';
  }
}

/** Thrown by `getConnectionOrThrow` for a connection that is not defined. */
export class ConnectionNotFoundError extends Error {
  constructor(readonly connId: string) {
    super(`Connection not found: ${connId}`);
    this.name = 'ConnectionNotFoundError';
  }
}

// In an isolation thread the engine's NotFoundError arrives as an Error named so.
const notFound = (e: unknown) => (e as { name?: string })?.name === 'NotFoundError';

function refused(message: string): () => never {
  const f = () => {
    throw new Error(message);
  };
  return Object.assign(f, { notOnAirless: message });
}

class Client {
  constructor(private readonly ctx: AirlessContext) {}

  async getVariable(key: string): Promise<string | null> {
    return this.ctx.variables.get<string | null>(key, { default: null });
  }

  async getVariableOrThrow(key: string): Promise<string> {
    try {
      return await this.ctx.variables.get(key);
    } catch (e) {
      if (notFound(e)) throw new VariableNotFoundError(key);
      throw e;
    }
  }

  readonly setVariable = refused('setVariable: Airless tasks read variables but do not write them; set them with `airless variables set KEY VALUE` (or SSM), or pass the value to the next task as an output');
  readonly deleteVariable = refused('deleteVariable: Airless tasks read variables but do not write them; delete them with `airless variables delete KEY`');
  get assetStateStore(): never {
    throw new Error('assetStateStore: not on Airless: keep state in an XCom or a variable');
  }

  /** An XCom of this run; another run's or DAG's is refused (Airless reads XComs within a run). */
  async getXCom<T = unknown>(opts: GetXComOpts): Promise<T | null> {
    const o = opts ?? ({} as GetXComOpts);
    this.ownRun('getXCom', o);
    if (o.includePriorDates) throw new Error('getXCom: includePriorDates is not on Airless: XComs are read within one run');
    const taskId = o.taskId ?? this.ctx.taskId;
    const index = o.mapIndex ?? (o.taskId === undefined ? this.ctx.mapIndex : undefined);
    const id = index !== undefined && index !== null && index >= 0 ? `${taskId}#${index}` : taskId;
    const v = await this.ctx.xcom.pull<T>(id, o.key);
    return v === undefined ? null : v;
  }

  /** Writes an XCom of the running task (another task's is refused). */
  async setXCom(opts: SetXComOpts): Promise<void> {
    const o = opts ?? ({} as SetXComOpts);
    this.ownRun('setXCom', o);
    if (o.taskId !== undefined && o.taskId !== this.ctx.taskId) throw new Error(`setXCom: a task writes its own XComs, not task ${o.taskId}'s`);
    await this.ctx.xcom.push(o.key, o.value);
  }

  async getConnection(connId: string): Promise<ConnectionResult | null> {
    try {
      return await this.getConnectionOrThrow(connId);
    } catch (e) {
      if (e instanceof ConnectionNotFoundError) return null;
      throw e;
    }
  }

  async getConnectionOrThrow(connId: string): Promise<ConnectionResult> {
    let c: Awaited<ReturnType<AirlessContext['connections']['get']>>;
    try {
      c = await this.ctx.connections.get(connId);
    } catch (e) {
      if (notFound(e)) throw new ConnectionNotFoundError(connId);
      throw e;
    }
    const extra = c.extra && Object.keys(c.extra).length > 0 ? JSON.stringify(c.extra) : null;
    return { id: c.connId, type: c.connType ?? '', host: c.host ?? null, schema: c.schema ?? null, login: c.login ?? null, password: c.password ?? null, port: c.port ?? null, extra };
  }

  private ownRun(what: string, o: { dagId?: string; runId?: string }): void {
    if ((o.dagId !== undefined && o.dagId !== this.ctx.dagId) || (o.runId !== undefined && o.runId !== this.ctx.runId)) {
      throw new Error(`${what}: Airless reads and writes XComs within the task's own run (dag ${this.ctx.dagId}, run ${this.ctx.runId})`);
    }
  }
}

/**
 * Runtime metadata of the task running now.
 *
 * @example
 * const { dagId, taskId, tryNumber } = getContext();
 * @throws when called outside a task handler.
 */
export function getContext(): TaskContext {
  const ctx = current('getContext');
  return { dagId: ctx.dagId, taskId: ctx.taskId, runId: ctx.runId, tryNumber: ctx.tryNumber, mapIndex: ctx.mapIndex ?? -1, signal: ctx.signal };
}

/**
 * The client of the task running now: variables, connections, XComs of its run.
 *
 * @example
 * const rows = Number((await getClient().getVariable('rows')) ?? 0);
 * @throws when called outside a task handler.
 */
export function getClient(): TaskClient {
  return new Client(current('getClient')) as unknown as TaskClient;
}
