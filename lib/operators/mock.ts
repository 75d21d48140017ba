/**
 * Operators mocked by operator type (as sensors are mocked by sensor type): a mock decides
 * how the job ends and after how long; the job's end event, in the shape AWS documents, is
 * then delivered to the runtime's events path, so the real reading of the event (and the
 * race, the retries, the timeout and its stop) runs as on AWS. A mock can also lose the
 * event (the safety net then finds the end), never end, or vanish.
 */
import { InvalidInputError, parseDuration, type AwsEvent, type JobDriver, type JobDrivers, type JobRef } from '../engine/index.js';

type Duration = string | number;
import type { JobService } from './shared.js';

/** What a mock says of one submitted job. */
export interface MockJobResult {
  /** How long the job runs (virtual time in testDag). @default 0 */
  after?: Duration;
  /** Fail with this reason (the service's own field: a container's stop reason, Glue's message...). */
  fail?: string;
  /** What the job produced (Step Functions output, Lambda response payload). */
  output?: unknown;
  /** Its end event is lost: only the safety net's describe finds the end. */
  dropEvent?: boolean;
  /** It never ends (a task timeout then stops it). */
  hang?: boolean;
  /** The service forgets it (deleted by hand): the safety net fails the task naming it. */
  vanish?: boolean;
}

/** A mock: receives the SDK input the task computed and the try, returns how the job goes. */
export type OperatorMock = (input: any, task: { dagId: string; runId: string; taskId: string; tryNumber: number }) => MockJobResult | void | Promise<MockJobResult | void>;

/** A job a mock driver "ran", for assertions. */
export interface MockJobCall {
  type: string;
  taskId: string;
  tryNumber: number;
  input: unknown;
  ref: JobRef;
  /** When it ends (virtual ms); undefined when it hangs. */
  endsAt?: number;
  /** The reason of the stop the engine sent, if any. */
  stopped?: string;
  /** Describes the safety net made of it. */
  describes: number;
}

/**
 * @example
 * const jobs = new MockJobs({ ecs_run_task: () => ({ after: '40m' }) }, JOB_SERVICES, { now: () => clock.now(), deliver: (e, at) => rt.scheduleEvent(e, at) });
 * const rt = new EmbeddedRuntime({ bundles, jobs: jobs.drivers() });
 */
export class MockJobs {
  readonly calls: MockJobCall[] = [];
  private n = 0;

  constructor(
    private readonly mocks: Readonly<Record<string, OperatorMock>>,
    private readonly services: Readonly<Record<string, JobService>>,
    private readonly env: { now: () => number; deliver: (event: AwsEvent, at: number) => void },
  ) {}

  drivers(): JobDrivers {
    return Object.fromEntries(Object.keys(this.mocks).map((type) => {
      const service = this.services[type];
      if (!service) throw new InvalidInputError(`operatorMocks: unknown operator type "${type}" (types: ${Object.keys(this.services).join(', ')})`);
      return [type, this.driver(service, this.mocks[type])];
    }));
  }

  private driver(service: JobService, mock: OperatorMock): JobDriver {
    const find = (ref: JobRef) => this.calls.find((c) => c.ref.id === ref.id && c.type === service.type);
    const results = new Map<MockJobCall, MockJobResult>();
    const driver: JobDriver = {
      submit: async (input, ctx) => {
        const result = (await mock(input, { dagId: ctx.dagId, runId: ctx.runId, taskId: ctx.taskId, tryNumber: ctx.tryNumber })) ?? {};
        const sub = service.fake((input ?? {}) as Record<string, any>, ctx, ++this.n, 'us-east-1');
        const now = this.env.now();
        const endsAt = result.hang ? undefined : now + (result.after === undefined ? 0 : parseDuration(result.after));
        const call: MockJobCall = { type: service.type, taskId: ctx.taskId, tryNumber: ctx.tryNumber, input, ref: sub.ref, endsAt, describes: 0 };
        this.calls.push(call);
        results.set(call, result);
        if (endsAt !== undefined && !result.dropEvent && !result.vanish) this.env.deliver(service.endEvent(sub.ref, result, endsAt), endsAt);
        return sub;
      },
      fromEvent: (ref, event) => service.fromEvent(ref, event),
      stop: async (ref, reason) => {
        const call = find(ref);
        if (call) call.stopped = reason;
      },
    };
    if (service.type !== 'lambda_invoke') {
      driver.describe = async (ref) => {
        const call = find(ref);
        if (!call) return { state: 'gone', reason: 'no such job' };
        call.describes++;
        const result = results.get(call)!;
        if (result.vanish) return { state: 'gone', reason: 'the service does not know it (deleted)' };
        if (call.stopped) return { state: 'failed', reason: `stopped: ${call.stopped}` };
        if (call.endsAt === undefined || this.env.now() < call.endsAt) return { state: 'running' };
        return service.fromEvent(ref, service.endEvent(ref, result, call.endsAt));
      };
    }
    return driver;
  }
}
