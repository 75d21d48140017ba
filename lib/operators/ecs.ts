/**
 * `ecsRunTask`: ECS RunTask, ended by "ECS Task State Change" with `lastStatus: STOPPED`
 * (https://docs.aws.amazon.com/AmazonECS/latest/developerguide/ecs_task_events.html), whose
 * detail is the task as DescribeTasks returns it. Success, as Airflow's EcsRunTaskOperator
 * decides it: every container stopped with exit code 0. Calls: RunTask, DescribeTasks
 * (safety net), StopTask.
 */
import type * as Sdk from '@aws-sdk/client-ecs';
import type { RunTaskCommandInput } from '@aws-sdk/client-ecs';
import type { AwsEvent, JobContext, JobRef, JobStatus, JobSubmission } from '../engine/index.js';
import { awsFailure, call, clientConfig, envelope, finalFailure, lazySdk, reasonOf, regionOf, tokenOf, type JobService } from './shared.js';

export const SOURCE = 'aws.ecs';
export const DETAIL_TYPE = 'ECS Task State Change';

interface EcsContainer { name?: string; exitCode?: number; reason?: string; lastStatus?: string }
interface EcsTask { taskArn?: string; clusterArn?: string; lastStatus?: string; stopCode?: string; stoppedReason?: string; containers?: EcsContainer[] }

const nameOf = (arn: string) => arn.slice(arn.lastIndexOf('/') + 1);

function submission(taskArn: string, clusterArn: string, taskDefinitionArn: string | undefined, region: string): JobSubmission {
  const ref: JobRef = { type: 'ecs_run_task', id: taskArn, cluster: clusterArn, region };
  const cluster = nameOf(clusterArn);
  return {
    ref,
    value: { taskArn, clusterArn, ...(taskDefinitionArn ? { taskDefinitionArn } : {}) },
    wait: { source: SOURCE, detailType: DETAIL_TYPE, detail: { taskArn, lastStatus: 'STOPPED' } },
    // The task's logs tab (its awslogs stream, whose name needs the task definition's log settings).
    links: { logs: `https://${region}.console.aws.amazon.com/ecs/v2/clusters/${cluster}/tasks/${nameOf(taskArn)}/logs?region=${region}` },
  };
}

/** The status a stopped task gives (event detail or DescribeTasks). */
function statusOf(task: EcsTask): JobStatus {
  if (task.lastStatus !== 'STOPPED') return { state: 'running' };
  const containers = task.containers ?? [];
  const exitCodes = Object.fromEntries(containers.map((c) => [c.name ?? '?', c.exitCode ?? null]));
  const value = { taskArn: task.taskArn, clusterArn: task.clusterArn, stopCode: task.stopCode, stoppedReason: task.stoppedReason, exitCodes };
  const failing = containers.filter((c) => c.exitCode !== 0);
  if (containers.length > 0 && failing.length === 0) return { state: 'succeeded', value };
  const c = failing[0];
  const container = c ? `container ${c.name} ${c.exitCode === undefined ? 'did not exit' : `exited with code ${c.exitCode}`}${c.reason ? ` (${c.reason})` : ''}` : 'no container ran';
  return { state: 'failed', reason: reasonOf(container, task.stopCode, task.stoppedReason), value };
}

const fromEvent: JobService['fromEvent'] = (_ref, event) => statusOf(event.detail as EcsTask);

export const ecs: JobService = {
  type: 'ecs_run_task',

  driver(opts) {
    const aws = lazySdk(() => import('@aws-sdk/client-ecs'), (sdk: typeof Sdk) => new sdk.ECSClient(clientConfig(opts)));
    return {
      async submit(input, ctx) {
        const { sdk, client } = await aws();
        const req = input as RunTaskCommandInput;
        if ((req.count ?? 1) !== 1) throw finalFailure(`ecsRunTask runs one task per try (count ${req.count}); map the task (expand) to run several`);
        const out = await call('ecs:RunTask', () => client.send(new sdk.RunTaskCommand({ startedBy: 'airless', clientToken: tokenOf(ctx), ...req }), { abortSignal: ctx.signal }));
        const task = out.tasks?.[0];
        if (!task?.taskArn) {
          const f = out.failures?.[0];
          // No capacity, or a resource ECS could not place on: often passing, so the try's retries apply.
          throw awsFailure('ecs:RunTask', { name: 'RunTaskFailure', message: reasonOf(f?.reason, f?.detail, f?.arn) || 'no task started', $fault: 'server' });
        }
        return submission(task.taskArn, task.clusterArn ?? String(req.cluster ?? 'default'), task.taskDefinitionArn, await regionOf(client));
      },
      fromEvent,
      async describe(ref) {
        const { sdk, client } = await aws();
        const out = await call('ecs:DescribeTasks', () => client.send(new sdk.DescribeTasksCommand({ cluster: ref.cluster, tasks: [ref.id] })));
        const task = out.tasks?.[0];
        if (!task) return { state: 'gone', reason: reasonOf('DescribeTasks', out.failures?.[0]?.reason ?? 'MISSING') };
        return statusOf(task as EcsTask);
      },
      async stop(ref, reason) {
        const { sdk, client } = await aws();
        await call('ecs:StopTask', () => client.send(new sdk.StopTaskCommand({ cluster: ref.cluster, task: ref.id, reason })));
      },
    };
  },

  fake(input, _ctx: JobContext, n, region) {
    const cluster = String(input.cluster ?? 'default');
    const clusterArn = cluster.startsWith('arn:') ? cluster : `arn:aws:ecs:${region}:123456789012:cluster/${cluster}`;
    return submission(`arn:aws:ecs:${region}:123456789012:task/${nameOf(clusterArn)}/${String(n).padStart(32, '0')}`, clusterArn, undefined, region);
  },

  endEvent(ref, end, at): AwsEvent {
    const detail = {
      taskArn: ref.id, clusterArn: ref.cluster, lastStatus: 'STOPPED', desiredStatus: 'STOPPED', stopCode: 'EssentialContainerExited',
      stoppedReason: end.fail ?? 'Essential container in task exited',
      containers: [{ name: 'main', taskArn: ref.id, lastStatus: 'STOPPED', exitCode: end.fail ? 1 : 0 }],
      stoppedAt: new Date(at).toISOString(),
    };
    return envelope(SOURCE, DETAIL_TYPE, detail, ref, at, [ref.id]);
  },

  fromEvent,
};
