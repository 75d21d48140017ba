/**
 * Scenario `jobs`: AWS jobs submitted by operator tasks and resumed by their end events, on the
 * stack synthesized with the scaffold's resources named in `new Airless(…, { jobs })`
 * (lib/rehearsal/scenarios/app.ts). Each job is steered with `r.gateway.jobs.behave`; what the
 * user sees (run and task states, XCom, one-line failures) and what the stack did (every call
 * authorized, the stop and describe calls made and by whom) are checked. DAGs:
 * lib/rehearsal/scenarios/dags/jobs.ts.
 */
import { cpSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import type { TaskInstance } from '../../engine/index.js';
import { PROJECT_ROOT } from '../rehearsal.js';
import type { ScenarioContext } from './context.js';

const runIdOf = (out: string[]) => /^run (\S+) of /.exec(out.find((l) => l.startsWith('run ')) ?? '')?.[1] ?? '';
const MIN = 60_000;
const ROWS = '"day","n"\n"2026-01-02","42"\n';

export async function jobs(c: ScenarioContext): Promise<void> {
  const { r, cli, check, ports } = c;
  const jb = r.gateway.jobs;
  const stack = { stack: r.template.stackName };
  const allowed = (who: RegExp, action: string) => r.gateway.decisions.filter((d) => d.allowed && who.test(d.principal) && d.action === action);

  // How each job runs: the selectors are the jobs' names (dags/jobs.ts; jobName() per try).
  jb.behave({ service: 'ecs', name: 'airless' }, { durationMs: 40 * MIN, exitCode: 0 });
  jb.behave({ service: 'ecs', name: 'rehearsal-retry' }, { durationMs: 5 * MIN, exitCode: 1, reason: 'OutOfMemoryError: Container killed due to memory usage' }, { durationMs: 5 * MIN, exitCode: 0 });
  jb.behave({ service: 'batch', name: /^airless-rehearsal_jobs-batch-/ }, { durationMs: 20 * MIN });
  jb.behave({ service: 'batch', name: /^airless-rehearsal_jobs-lost_event-/ }, { durationMs: 2 * MIN });
  jb.behave({ service: 'states', name: /^airless-rehearsal_jobs-orders-/ }, { durationMs: 3 * MIN, output: { total: 3 } });
  jb.behave({ service: 'athena', name: /^SELECT day, n FROM daily/ }, { durationMs: MIN, output: ROWS });
  jb.behave({ service: 'emr-serverless', name: /^airless-rehearsal_jobs-early_event-/ }, { durationMs: 0, answerAfterEvents: true });
  // Every job of the second DAG outlives its task's 10-minute timeout.
  const outlive = { durationMs: 2 * 60 * MIN };
  jb.behave({ service: 'ecs', name: 'rehearsal-stopped' }, outlive);
  jb.behave({ service: 'batch', name: /^airless-rehearsal_jobs_stopped-batch-/ }, outlive);
  jb.behave({ service: 'glue', name: 'rehearsal-load' }, outlive);
  jb.behave({ service: 'states', name: /^airless-rehearsal_jobs_stopped-orders-/ }, outlive);
  jb.behave({ service: 'athena', name: 'SELECT * FROM slow' }, outlive);
  jb.behave({ service: 'emr-serverless', name: /^airless-rehearsal_jobs_stopped-spark-/ }, outlive);
  jb.behave({ service: 'batch', name: /^airless-rehearsal_jobs_blob-crunch-/ }, { durationMs: 2 * MIN });
  // The events path cannot read that run's conf (a store read failing): Lambda retries the event, then dead-letters it.
  r.gateway.faults.add({ principal: /Functions.*Events/, action: 's3:GetObject', resource: /\/blobs\/conf\/rehearsal_jobs_blob\//, kind: 'missing' });
  // The lost event: Batch's SUCCEEDED for `lost_event` never reaches the events path.
  r.gateway.events.drop((e) => e.source === 'aws.batch' && /-lost_event-/.test(String((e.detail as { jobName?: string }).jobName)) && (e.detail as { status?: string }).status === 'SUCCEEDED');

  const application = r.gateway.jobs.resources.emrApplications.find((a) => a.name === 'rehearsal-spark')?.id ?? '';
  const variable = await cli('variables', ['set', 'rehearsal_emr_application', application], stack);
  // Pushed from inside the project: the DAG bundles @aws-sdk/client-s3 from its node_modules.
  mkdirSync(join(PROJECT_ROOT, '.airless'), { recursive: true });
  const dir = mkdtempSync(join(PROJECT_ROOT, '.airless', 'scenario-jobs-'));
  try {
    cpSync(join(PROJECT_ROOT, 'lib', 'rehearsal', 'scenarios', 'dags', 'jobs.ts'), join(dir, 'jobs.ts'));
    const push = await cli('push', [dir], { 'no-typecheck': true });
    check(variable.code === 0 && push.code === 0 && push.out.some((l) => l.includes('rehearsal_jobs_stopped')), `push registers the jobs DAGs (${push.error ?? ''})`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }

  const started = r.clock.now();
  const main = runIdOf((await cli('trigger', ['rehearsal_jobs'])).out);
  const stopped = runIdOf((await cli('trigger', ['rehearsal_jobs_stopped'])).out);
  const blob = runIdOf((await cli('trigger', ['rehearsal_jobs_blob'], { conf: JSON.stringify({ padding: 'c'.repeat(400_000) }) })).out);
  check(main !== '' && stopped !== '' && blob !== '', 'trigger the three jobs DAGs (one with a 400 KB conf, offloaded to blobs/)');
  // Bounded in virtual time by what it waits for: its jobs outlive a 10-minute task timeout.
  const stoppedEnd = await c.runEnds('rehearsal_jobs_stopped', stopped, 15 * 60_000);
  // Safety nets of 5 and 10 minutes resume the lost and the dead-lettered events' tasks.
  const mainEnd = await c.runEnds('rehearsal_jobs', main, 30 * 60_000);
  const blobEnd = await c.runEnds('rehearsal_jobs_blob', blob, 30 * 60_000);
  const eventsFn = [...r.functions.values()].find((f) => /Functions.*Events/.test(f.spec.logicalId));
  const task = (tasks: TaskInstance[], id: string) => tasks.find((t) => t.taskId === id);
  const xcom = (taskId: string) => ports.store.getXcom({ dagId: 'rehearsal_jobs', runId: main, taskId, key: 'return_value' }) as Promise<Record<string, any> | undefined>;
  const states = (tasks: TaskInstance[]) => tasks.map((t) => `${t.taskId}=${t.state}${t.tryNumber > 1 ? `#${t.tryNumber}` : ''}`).join(' ');
  c.log(`  jobs: ${states(mainEnd.tasks)} | ${states(stoppedEnd.tasks)} (${Math.round((r.clock.now() - started) / MIN)} virtual minutes)`);

  // The 40-minute ECS task: nothing ran or polled meanwhile; its end event resumed it.
  const ecsLong = task(mainEnd.tasks, 'ecs_long');
  const longJob = jb.jobs.find((j) => j.service === 'ecs' && j.names.includes('airless'));
  check(ecsLong?.state === 'success' && (await xcom('ecs_long'))?.exitCodes?.main === 0 && longJob?.states.at(-1) === 'STOPPED'
    && (longJob.record as { stoppedAt: number; createdAt: number }).stoppedAt - (longJob.record as { createdAt: number }).createdAt === 40 * MIN,
    `a 40-minute ECS task that exits 0 succeeds its task (${ecsLong?.state}, XCom ${JSON.stringify(await xcom('ecs_long'))})`);

  // Exit code 1 fails the try with ECS's reason; the retry runs a new task, which succeeds.
  const retried = task(mainEnd.tasks, 'ecs_retry');
  const retryJobs = jb.jobs.filter((j) => j.service === 'ecs' && j.names.includes('rehearsal-retry'));
  check(retried?.state === 'success' && retried.tryNumber === 2 && retryJobs.length === 2,
    `an ECS task that exits 1 fails its try and the retry succeeds (${retried?.state} try ${retried?.tryNumber}, ${retryJobs.length} tasks run)`);

  check(task(mainEnd.tasks, 'batch')?.state === 'success' && task(mainEnd.tasks, 'orders')?.state === 'success' && (await xcom('orders'))?.output?.total === 3,
    `a Batch job and a Step Functions execution succeed their tasks (orders XCom ${JSON.stringify(await xcom('orders'))})`);

  // Athena: the downstream task reads the result where the query put it, with the worker's rights.
  const rows = await xcom('rows') as unknown;
  check(task(mainEnd.tasks, 'report')?.state === 'success' && JSON.stringify(rows) === JSON.stringify([['2026-01-02', '42']])
    && allowed(/Worker/, 's3:GetObject').some((d) => d.resource.includes('/athena/')),
    `an Athena query's result location is pulled downstream and read (${JSON.stringify(rows)})`);

  // The lost event: the poker's safety net describes the job and resumes the task.
  check(task(mainEnd.tasks, 'lost_event')?.state === 'success' && r.gateway.events.dropped.length === 1 && allowed(/Poker/, 'batch:DescribeJobs').length > 0,
    `a Batch job whose end event was lost resumes its task through the safety net (${r.gateway.events.dropped.length} dropped, ${allowed(/Poker/, 'batch:DescribeJobs').length} describes by the poker)`);

  // The early event: the run ended, and the events path kept its event for no waiting task,
  // before StartJobRun was answered; the wait, stored after, found it.
  const early = jb.jobs.find((j) => j.service === 'emr-serverless' && j.names.some((n) => /-early_event-/.test(n)));
  const earlyEvent = r.gateway.events.events.find((e) => e.event.source === 'aws.emr-serverless' && (e.event.detail as { jobRunId?: string; state?: string }).jobRunId === early?.id
    && (e.event.detail as { state?: string }).state === 'SUCCESS')?.event;
  const kept = eventsFn ? r.logs.lines(eventsFn.spec.logicalId).some((l) => l.includes('kept for a wait stored later') && l.includes(earlyEvent?.id ?? '-')) : false;
  check(task(mainEnd.tasks, 'early_event')?.state === 'success' && early?.done === true && kept,
    `an EMR Serverless run whose end event arrives before its wait is stored succeeds its task (${task(mainEnd.tasks, 'early_event')?.state}; the events path kept the event: ${kept})`);

  check((await xcom('score'))?.result?.score === 6 || JSON.stringify(await xcom('score')).includes('"score":6'),
    `lambdaInvoke: the function's result comes back through its destination (${JSON.stringify(await xcom('score'))})`);
  check(mainEnd.state === 'success', `the jobs run succeeds (${states(mainEnd.tasks)})`);

  // The events path failed on an event (its run's conf unreadable): Lambda tried it three times,
  // sent it to the function's dead-letter queue with the function's role, and the safety net
  // resumed the task. The events path also moved a maxActiveTasks run's slot counter.
  const byEvents = (action: string, fragment = '') => r.gateway.decisions.filter((d) => d.allowed && d.principal === eventsFn?.spec.logicalId && d.action === action && d.resource.includes(fragment)).length;
  const dlq = r.resources.queues.find((q) => /EventsDeadLetterQueue/.test(q.logicalId));
  const letters = dlq ? (await r.direct.sqs.send(new ReceiveMessageCommand({ QueueUrl: dlq.localUrl, MaxNumberOfMessages: 10, MessageAttributeNames: ['All'], WaitTimeSeconds: 0 }))).Messages ?? [] : [];
  const letter = letters.map((m) => ({ body: JSON.parse(m.Body ?? '{}') as { source?: string; detail?: { jobName?: string } }, attrs: m.MessageAttributes ?? {} }))
    .find((m) => m.body.source === 'aws.batch' && /-crunch-/.test(m.body.detail?.jobName ?? ''));
  check(blobEnd.state === 'success' && r.gateway.faults.hits.length >= 3 && letter?.attrs.ErrorMessage?.StringValue !== undefined
    && byEvents('sqs:SendMessage', 'EventsDeadLetterQueue') > 0 && byEvents('s3:ListBucket') > 0 && byEvents('dynamodb:UpdateItem', 'StateRuns') > 0,
    `an event the events path fails on is tried 3 times (${r.gateway.faults.hits.length} failed reads), dead-lettered with the function's role (${letter?.attrs.ErrorMessage?.StringValue ?? 'no dead letter'}), and the safety net resumes its task (${blobEnd.state}); the events path's dead-letter sends ${byEvents('sqs:SendMessage', 'EventsDeadLetterQueue')}, bucket lists ${byEvents('s3:ListBucket')}, run slot moves ${byEvents('dynamodb:UpdateItem', 'StateRuns')}`);

  // Timeouts: each job outlived its task; the safety net described it at 5 minutes, the timeout stopped it.
  const stopActions = ['ecs:StopTask', 'batch:TerminateJob', 'glue:BatchStopJobRun', 'states:StopExecution', 'athena:StopQueryExecution', 'emr-serverless:CancelJobRun'];
  const describeActions = ['ecs:DescribeTasks', 'batch:DescribeJobs', 'glue:GetJobRun', 'states:DescribeExecution', 'athena:GetQueryExecution', 'emr-serverless:GetJobRun'];
  const missing = [...stopActions, ...describeActions].filter((a) => allowed(/./, a).length === 0);
  const glue = task(stoppedEnd.tasks, 'glue');
  const glueRun = jb.jobs.find((j) => j.service === 'glue');
  check(stoppedEnd.tasks.every((t) => t.state === 'failed') && /timed out/i.test(glue?.error ?? '') && !(glue?.error ?? '').includes('\n')
    && glueRun?.states.at(-1) === 'STOPPED' && missing.length === 0,
    `a job per service outlives its task's timeout: described by the safety net, stopped by the timeout, the stop authorized (glue: ${glue?.error}; missing calls: ${missing.join(', ') || 'none'})`);
}
