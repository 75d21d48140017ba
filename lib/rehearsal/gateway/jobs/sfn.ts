/**
 * AWS Step Functions executions (JSON 1.0, `AWSStepFunctions.Op`): StartExecution,
 * DescribeExecution, StopExecution. The state machine's definition is not run: the execution
 * runs for the behaviour's duration and ends SUCCEEDED (output: the behaviour's, else the
 * input), FAILED (error, cause) or ABORTED when stopped. A standard state machine publishes
 * "Step Functions Execution Status Change" for RUNNING and for its end, detail as
 * DescribeExecution with epoch-millisecond dates
 * (https://docs.aws.amazon.com/step-functions/latest/dg/eventbridge-integration.html); an
 * express one publishes nothing. IAM: `states:StartExecution` on the state machine,
 * DescribeExecution and StopExecution on the execution
 * (https://docs.aws.amazon.com/service-authorization/latest/reference/list_awsstepfunctions.html).
 */
import { randomUUID } from 'node:crypto';
import { answering, jsonBody, JobApiError, ok, required, seconds, type JobModule } from './api.js';
import { DEFAULT_DURATION_MS, outcomeOf, type JobRunner, type SimJob } from './sim.js';
import type { StateMachineSpec } from './resources.js';

interface Execution {
  executionArn: string; stateMachineArn: string; name: string; status: string; startDate: number; stopDate?: number;
  input: string; output?: string; error?: string; cause?: string; express: boolean;
}

const NAME = /^[^\s<>{}[\]?*"#%\\^|~`$&,;:/\u0000-\u001f\u007f-\u009f]{1,80}$/;

export const sfn: JobModule = (r, runner, scope) => {
  const body = jsonBody(r);
  const base = `arn:aws:states:${scope.region}:${scope.accountId}`;
  switch (r.target) {
    case 'StartExecution': {
      const arn = required(body, 'stateMachineArn', 'InvalidArn');
      return {
        checks: [{ action: 'states:StartExecution', resource: arn }],
        serve: answering('states', async () => {
          if (!/^arn:aws:states:[^:]+:\d{12}:stateMachine:[^:]+$/.test(arn)) throw new JobApiError('InvalidArn', `Invalid Arn: 'Resource type not valid in this context: ${arn}'`);
          const sm = runner.resources.stateMachines.find((s) => s.arn === arn);
          if (!sm) throw new JobApiError('StateMachineDoesNotExist', `State Machine Does Not Exist: '${arn}'`);
          const name = typeof body.name === 'string' ? body.name : randomUUID();
          if (!NAME.test(name)) throw new JobApiError('InvalidName', `Invalid Name: '${name}'`);
          const input = typeof body.input === 'string' ? body.input : '{}';
          try {
            JSON.parse(input);
          } catch {
            throw new JobApiError('InvalidExecutionInput', 'Invalid State Machine Execution Input: \'Unrecognized token\'');
          }
          const executionArn = `${base}:execution:${sm.name}:${name}`;
          const same = runner.find('states', executionArn);
          if (same) {
            const e = same.record as unknown as Execution;
            if (e.input === input && e.status === 'RUNNING') return ok('states', { executionArn, startDate: seconds(e.startDate) });
            throw new JobApiError('ExecutionAlreadyExists', `Execution Already Exists: '${executionArn}'`);
          }
          const job = start(runner, r.caller, sm, executionArn, name, input);
          if (job.behaviour.answerAfterEvents) await runner.settled(job);
          return ok('states', { executionArn, startDate: seconds((job.record as unknown as Execution).startDate) });
        }),
      };
    }
    case 'DescribeExecution':
    case 'StopExecution': {
      const arn = required(body, 'executionArn', 'InvalidArn');
      return {
        checks: [{ action: `states:${r.target}`, resource: arn }],
        serve: answering('states', () => {
          if (!/^arn:aws:states:[^:]+:\d{12}:execution:[^:]+:[^:]+$/.test(arn)) throw new JobApiError('InvalidArn', `Invalid Arn: 'Resource type not valid in this context: ${arn}'`);
          const job = runner.find('states', arn);
          if (!job) throw new JobApiError('ExecutionDoesNotExist', `Execution Does Not Exist: '${arn}'`);
          const e = job.record as unknown as Execution;
          if (r.target === 'DescribeExecution') return ok('states', describe(e));
          if (!job.done) {
            runner.cancel(job);
            end(runner, job, runner.deps.clock(), 'ABORTED', { error: typeof body.error === 'string' ? body.error : undefined, cause: typeof body.cause === 'string' ? body.cause : undefined });
          }
          return ok('states', { stopDate: seconds(e.stopDate ?? runner.deps.clock()) });
        }),
      };
    }
    default:
      throw new JobApiError('UnknownOperationException', `the rehearsal's Step Functions serves StartExecution, DescribeExecution and StopExecution, not ${r.target}`);
  }
};

function start(runner: JobRunner, caller: { name: string; arn: string }, sm: StateMachineSpec, executionArn: string, name: string, input: string): SimJob {
  const now = runner.deps.clock();
  const e: Execution = { executionArn, stateMachineArn: sm.arn, name, status: 'RUNNING', startDate: now, input, express: sm.type === 'EXPRESS' };
  const job = runner.add<Execution>({ service: 'states', id: executionArn, arn: executionArn, names: [sm.name, name], record: e, caller: caller.arn, callerName: caller.name, state: 'RUNNING' });
  event(runner, job);
  const b = job.behaviour;
  const { failed } = outcomeOf(b);
  const output = b.output === undefined ? input : typeof b.output === 'string' ? b.output : JSON.stringify(b.output);
  runner.at(job, now + Math.max(b.durationMs ?? DEFAULT_DURATION_MS, 1), () => {
    if (failed) end(runner, job, runner.deps.clock(), 'FAILED', { error: b.error ?? 'States.TaskFailed', cause: b.reason ?? 'The task failed.' });
    else end(runner, job, runner.deps.clock(), 'SUCCEEDED', { output });
  });
  return job;
}

function end(runner: JobRunner, job: SimJob, at: number, status: string, fields: { output?: string; error?: string; cause?: string }): void {
  const e = job.record as unknown as Execution;
  Object.assign(e, { status, stopDate: at }, Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined)));
  job.states.push(status);
  job.done = true;
  event(runner, job);
}

function event(runner: JobRunner, job: SimJob): void {
  const e = job.record as unknown as Execution;
  if (e.express) return;
  runner.publish(job, 'aws.states', 'Step Functions Execution Status Change', {
    executionArn: e.executionArn, stateMachineArn: e.stateMachineArn, name: e.name, status: e.status, startDate: e.startDate, stopDate: e.stopDate ?? null,
    input: e.input, output: e.output ?? null, inputDetails: { included: true }, outputDetails: e.output === undefined ? null : { included: true },
    error: e.error ?? null, cause: e.cause ?? null,
  });
}

function describe(e: Execution): Record<string, unknown> {
  const { express: _x, ...rest } = e;
  return { ...rest, startDate: seconds(e.startDate), stopDate: seconds(e.stopDate), inputDetails: { included: true }, ...(e.output !== undefined ? { outputDetails: { included: true } } : {}), redriveCount: 0 };
}
