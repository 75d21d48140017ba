/**
 * Simulated jobs: what ECS, Batch, Glue, Step Functions, Athena and EMR Serverless do with a
 * job between the submit call and its end, on the rehearsal's clock. A job is a record the
 * describe call answers and a timeline of state changes, each published to the default bus
 * with the shape the service documents. How long a job runs and how it ends is set by the
 * scenario, one way for every service: `behave(selector, ...behaviours)` (the next submissions
 * matching take the behaviours in order; then the default, success after a minute).
 */
import { randomUUID } from 'node:crypto';
import type { EventBridge } from '../eventbridge/bus.js';
import type { Check } from '../checks.js';
import { emptyResources, type JobResources } from './resources.js';

/** The services whose jobs are simulated (by SigV4 signing name), and Lambda's async invokes. */
export type JobService = 'ecs' | 'batch' | 'glue' | 'states' | 'athena' | 'emr-serverless' | 'lambda';

/** How one simulated job runs. */
export interface JobBehaviour {
  /** Virtual milliseconds from submission to its end. @default 60_000 */
  durationMs?: number;
  /** How it ends. An ECS or Batch job with a non-zero `exitCode` fails too. @default 'succeed' */
  outcome?: 'succeed' | 'fail';
  /** ECS: every essential container's exit code; Batch: the container's. @default 0, or 1 when failing */
  exitCode?: number;
  /** The failure's text: ECS stoppedReason, Batch statusReason, Glue ErrorMessage, Step Functions cause, Athena StateChangeReason, EMR stateDetails. */
  reason?: string;
  /** Step Functions error name, Athena errorType. */
  error?: string;
  /** Step Functions output, Athena result rows (CSV text), a Lambda function's result. */
  output?: unknown;
  /** The submit call is answered only after the job has ended and its events were delivered: a job that finishes before its task stores its wait. */
  answerAfterEvents?: boolean;
}

/**
 * Which submissions a behaviour is for: the service, and a name the job has (equal, or a
 * RegExp that tests it). The names of a job: ECS the task definition family and the cluster
 * name; Batch the job name, job definition and job queue names; Glue the job name; Step
 * Functions the state machine and execution names; Athena the workgroup and the query text;
 * EMR Serverless the application id and name and the job run name.
 */
export interface JobSelector {
  service: JobService;
  name?: string | RegExp;
}

export const DEFAULT_DURATION_MS = 60_000;

/** One simulated job: the service's own record (what describe answers) and what is still to happen. */
export interface SimJob<R = unknown> {
  service: JobService;
  id: string;
  arn: string;
  names: string[];
  behaviour: JobBehaviour;
  /** The service's record of it, as its describe call answers (timestamps in ms). */
  record: R;
  /** The principal that submitted it (its session ARN), for records that name it. */
  caller: string;
  /** The caller's principal name, for calls made with its credentials (Athena's results). */
  callerName: string;
  /** Every state it went through, in order. */
  states: string[];
  done: boolean;
}

interface Step { at: number; job: SimJob; run: () => void | Promise<void>; seq: number }

/** What a service module gets: the clock, the bus, the runner, and IAM for calls a service makes with the caller's credentials. */
export interface JobDeps {
  region: string;
  accountId: string;
  clock: () => number;
  events: EventBridge;
  /** Authorize (and record) a call made with a principal's credentials (by name). */
  authorizeAs(principalName: string, check: Check): Promise<boolean>;
}

/**
 * @example
 * const jobs = new JobRunner(deps);
 * jobs.behave({ service: 'ecs', name: 'etl' }, { durationMs: 40 * 60_000, exitCode: 0 });
 */
export class JobRunner {
  readonly jobs: SimJob[] = [];
  /** What jobs may run on: the template's clusters, queues, jobs, state machines, workgroups, applications. */
  readonly resources: JobResources = emptyResources();
  private steps: Step[] = [];
  private seq = 0;
  private running = 0;
  private readonly scripts: { selector: JobSelector; behaviours: JobBehaviour[] }[] = [];

  constructor(readonly deps: JobDeps) {}

  /** The next submissions matching `selector` run as `behaviours`, one each, in order. */
  behave(selector: JobSelector, ...behaviours: JobBehaviour[]): void {
    this.scripts.push({ selector, behaviours: [...behaviours] });
  }

  /** The behaviour of a new job: the first script that matches gives its next one. */
  behaviourFor(service: JobService, names: string[]): JobBehaviour {
    for (const s of this.scripts) {
      if (s.selector.service !== service || s.behaviours.length === 0) continue;
      const n = s.selector.name;
      if (n === undefined || names.some((x) => (typeof n === 'string' ? x === n : n.test(x)))) return s.behaviours.shift()!;
    }
    return {};
  }

  /** Registers a job submitted now. */
  add<R>(job: Omit<SimJob<R>, 'states' | 'done' | 'behaviour'> & { state: string }): SimJob<R> {
    const full = { ...job, behaviour: this.behaviourFor(job.service, job.names), states: [job.state], done: false } as SimJob<R> & { state?: string };
    delete full.state;
    this.jobs.push(full as SimJob);
    return full;
  }

  find(service: JobService, idOrArn: string): SimJob | undefined {
    return this.jobs.find((j) => j.service === service && (j.id === idOrArn || j.arn === idOrArn));
  }

  /** Runs `run` at `at` (clock ms), in order of time then of scheduling. */
  at(job: SimJob, at: number, run: () => void | Promise<void>): void {
    this.steps.push({ at, job, run, seq: this.seq++ });
  }

  /** Drops a job's future steps (it was stopped); `done` marks it ended. */
  cancel(job: SimJob): void {
    this.steps = this.steps.filter((s) => s.job !== job);
  }

  /** The earliest step still to come, or undefined. */
  nextDue(): number | undefined {
    const now = this.deps.clock();
    const later = this.steps.filter((s) => s.at > now).map((s) => s.at);
    return later.length ? Math.min(...later) : undefined;
  }

  /** Steps due now or running. */
  get pending(): number {
    const now = this.deps.clock();
    return this.steps.filter((s) => s.at <= now).length + this.running;
  }

  /** Runs every due step, oldest first. */
  async runDue(now: number): Promise<void> {
    for (;;) {
      const due = this.steps.filter((s) => s.at <= now).sort((a, b) => a.at - b.at || a.seq - b.seq)[0];
      if (!due) return;
      this.steps.splice(this.steps.indexOf(due), 1);
      this.running++;
      try {
        await due.run();
      } finally {
        this.running--;
      }
    }
  }

  /** Publishes a state-change event to the default bus, as the service does. */
  publish(job: SimJob, source: string, detailType: string, detail: unknown, resources: string[] = [job.arn]) {
    return this.deps.events.publish({ source, detailType, detail, resources });
  }

  /** Resolves once the job has ended and every event published about it was delivered. */
  async settled(job: SimJob): Promise<void> {
    const events = this.deps.events;
    while (!job.done) await new Promise((resolve) => setTimeout(resolve, 10));
    for (const { event } of events.events) {
      if (event.resources.includes(job.arn) || JSON.stringify(event.detail).includes(job.id)) await events.whenDelivered(event.id);
    }
  }
}

/** A job's outcome under its behaviour: failed, and the exit code to report. */
export function outcomeOf(b: JobBehaviour): { failed: boolean; exitCode: number } {
  const failed = b.outcome === 'fail' || (b.exitCode !== undefined && b.exitCode !== 0);
  return { failed, exitCode: b.exitCode ?? (failed ? 1 : 0) };
}

export const newId = () => randomUUID().replace(/-/g, '');
