/**
 * The `ctx` a task body receives. A class, so that a try costs one object rather than a
 * dozen closures (a measurable share of a trivial task's cost); call its methods on
 * `ctx` (`ctx.defer(...)`), not detached.
 */
import type { DeferOptions, DeferRequest, FailRequest, SkipRequest, TaskContext, TaskLogger } from '../model/context.js';
import { hasTask, taskSpec, type RunCtx } from '../rules/dag-index.js';
import { baseTaskId, isInstanceId } from '../rules/mapping-ids.js';
import { pullMapped } from './mapping-values.js';
import { InvalidInputError } from '../model/errors.js';
import type { TaskInstance } from '../model/types.js';
import type { Ports } from '../model/ports.js';
import { renderTemplate, type TemplateVars } from '../rules/template.js';
import { varsFor } from '../rules/dag-index.js';
import { retainUntil } from './settle.js';
import { Connections, Variables, withSecretVars } from './secrets.js';
import { redact, redactDeep } from '../rules/secrets-mask.js';
import { mentionsPrevSuccess, prevSuccessVars } from './prev-success.js';
import { OutletEvents, triggeringEventsOf, type OutletExtras } from './asset-context.js';
import type { TriggeringAssetEvent } from '../model/assets.js';

const iso = (ms: number) => new Date(ms).toISOString();

class TaskLog implements TaskLogger {
  constructor(private readonly p: Ports, private readonly fields: Record<string, unknown>) {}
  // Secrets a task read are masked here, whatever the runtime's log sink is.
  info(msg: string, f?: Record<string, unknown>): void { this.p.log.info(redact(msg), redactDeep({ ...this.fields, ...f })); }
  warn(msg: string, f?: Record<string, unknown>): void { this.p.log.warn(redact(msg), redactDeep({ ...this.fields, ...f })); }
  error(msg: string, f?: Record<string, unknown>): void { this.p.log.error(redact(msg), redactDeep({ ...this.fields, ...f })); }
}

class Xcom {
  constructor(private readonly p: Ports, private readonly rc: RunCtx, private readonly taskId: string) {}
  async pull<T = unknown>(taskId: string, key = 'return_value'): Promise<T> {
    if (!hasTask(this.rc.spec, taskId)) throw new InvalidInputError(`xcom.pull: dag ${this.rc.run.dagId} has no task "${taskId}" (its tasks: ${this.rc.spec.tasks.map((t) => t.taskId).join(', ')})`);
    // A mapped task: its instances' values in map-index order (mapping-values.ts).
    if (key === 'return_value' && taskSpec(this.rc.spec, taskId).expand && !isInstanceId(taskId)) return (await pullMapped(this.p, this.rc, taskId)) as T;
    return (await this.p.store.getXcom({ dagId: this.rc.run.dagId, runId: this.rc.run.runId, taskId, key })) as T;
  }
  async push(key: string, value: unknown): Promise<void> {
    await this.p.store.putXcom({ dagId: this.rc.run.dagId, runId: this.rc.run.runId, taskId: this.taskId, key }, redactDeep(value), retainUntil(this.p));
  }
}

export class RunningTaskContext implements TaskContext {
  readonly dagId: string;
  readonly runId: string;
  readonly taskId: string;
  readonly mapIndex: number;
  readonly tryNumber: number;
  readonly runType: string;
  readonly conf: Record<string, any>;
  readonly xcom: Xcom;
  private outlets?: OutletEvents;
  private uris?: readonly string[];
  private vars?: TemplateVars;
  // What most tries never read is made on first use: a trivial try built three dates, a
  // logger, two secret caches and a params copy it did not look at (7 % of its cost).
  private dates?: { logicalDate: string; dataIntervalStart: string; dataIntervalEnd: string };
  private lazyParams?: Record<string, any>;
  private lazyLog?: TaskLog;
  private lazyVariables?: Variables;
  private lazyConnections?: Connections;
  private readonly mapped: boolean;

  constructor(private readonly rc: RunCtx, ti: TaskInstance, private readonly p: Ports, readonly signal: AbortSignal) {
    this.dagId = ti.dagId;
    this.runId = ti.runId;
    this.taskId = baseTaskId(ti.taskId);
    // Airflow's map_index: -1 when the task is not mapped (never undefined: `ctx.mapIndex * 2` type-checks).
    this.mapIndex = ti.mapIndex ?? -1;
    this.mapped = ti.mapIndex !== undefined;
    this.tryNumber = ti.tryNumber;
    this.runType = rc.run.runType;
    this.conf = rc.run.conf;
    this.xcom = new Xcom(p, rc, ti.taskId);
    this.instanceId = ti.taskId;
  }

  private readonly instanceId: string;

  private get runDates(): { logicalDate: string; dataIntervalStart: string; dataIntervalEnd: string } {
    const run = this.rc.run;
    return (this.dates ??= { logicalDate: iso(run.logicalDate), dataIntervalStart: iso(run.dataIntervalStart), dataIntervalEnd: iso(run.dataIntervalEnd) });
  }

  get logicalDate(): string { return this.runDates.logicalDate; }
  get dataIntervalStart(): string { return this.runDates.dataIntervalStart; }
  get dataIntervalEnd(): string { return this.runDates.dataIntervalEnd; }
  get ds(): string { return this.runDates.logicalDate.slice(0, 10); }
  get params(): Record<string, any> { return (this.lazyParams ??= { ...this.rc.spec.params, ...this.rc.run.conf }); }
  get triggeringAssetEvents(): Record<string, TriggeringAssetEvent[]> { return triggeringEventsOf(this.rc); }
  get variables(): Variables { return (this.lazyVariables ??= new Variables(this.p.secrets)); }
  get connections(): Connections { return (this.lazyConnections ??= new Connections(this.p.secrets)); }

  get log(): TaskLog {
    return (this.lazyLog ??= new TaskLog(this.p, {
      dagId: this.dagId, runId: this.runId, taskId: this.taskId, ...(this.mapped ? { mapIndex: this.mapIndex } : {}), tryNumber: this.tryNumber,
    }));
  }

  /** The task's outlets (asset URIs): looked up on first use (an isolated try's thread gets them). */
  get outletUris(): readonly string[] {
    this.uris ??= hasTask(this.rc.spec, this.instanceId) ? (taskSpec(this.rc.spec, this.instanceId).outlets ?? []) : [];
    return this.uris;
  }

  outletEvents(asset: { uri: string } | string): { extra: Record<string, unknown> } {
    return (this.outlets ??= new OutletEvents(this.outletUris, this.taskId)).get(asset);
  }

  /** Extras an isolated try's thread set (sent back with its result). */
  setOutletExtras(extras: OutletExtras): void {
    (this.outlets ??= new OutletEvents(this.outletUris, this.taskId)).receive(extras);
  }

  /** What the try set for its outlets, if anything. */
  outletExtras(): OutletExtras | undefined {
    return this.outlets?.extras();
  }

  render(template: string): string {
    this.vars ??= varsFor(this.rc, this.taskId);
    return renderTemplate(template, this.vars);
  }

  /** {@link render} with `{{ var... }}` and `{{ conn... }}` read first (an isolated try's render is served by this). */
  async renderAsync(template: string): Promise<string> {
    this.vars ??= varsFor(this.rc, this.taskId);
    const base = mentionsPrevSuccess(template) ? { ...this.vars, ...(await prevSuccessVars(this.p, this.rc.run)) } : this.vars;
    return renderTemplate(template, await withSecretVars(base, template, this.variables, this.connections));
  }

  // Control signals are thrown, so they interrupt the task wherever they are called, as
  // Airflow's TaskDeferred, AirflowSkipException and AirflowFailException do (runBody catches them).
  defer(opts: DeferOptions): DeferRequest {
    throw { ...opts, __airless: 'defer' } satisfies DeferRequest;
  }

  skip(reason?: string): SkipRequest {
    throw { __airless: 'skip', reason } satisfies SkipRequest;
  }

  fail(reason?: string): never {
    throw { __airless: 'fail', reason } satisfies FailRequest;
  }
}
