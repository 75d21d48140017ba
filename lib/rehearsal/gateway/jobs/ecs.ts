/**
 * Amazon ECS tasks (JSON 1.1, `AmazonEC2ContainerServiceV20141113.Op`): RunTask, DescribeTasks,
 * StopTask. A task goes PROVISIONING → PENDING → RUNNING → DEPROVISIONING → STOPPED, each change
 * published as "ECS Task State Change" with the Task object as detail (ISO timestamps, `version`
 * counting changes), as https://docs.aws.amazon.com/AmazonECS/latest/developerguide/ecs_task_events.html
 * shows. IAM: `ecs:RunTask` on the task definition with `ecs:cluster`; `iam:PassRole` for the task
 * and execution roles (`iam:PassedToService` ecs-tasks.amazonaws.com); `ecs:TagResource` when tags
 * are given; DescribeTasks and StopTask on each task's ARN
 * (https://docs.aws.amazon.com/service-authorization/latest/reference/list_amazonelasticcontainerservice.html).
 */
import type { Check } from '../checks.js';
import { answering, compact, iso, jsonBody, JobApiError, ok, required, seconds, type JobModule } from './api.js';
import { taskDefinition, type TaskDefinitionSpec } from './resources.js';
import { DEFAULT_DURATION_MS, newId, outcomeOf, type JobRunner, type SimJob } from './sim.js';

interface Container { containerArn: string; name: string; image: string; lastStatus: string; essential: boolean; exitCode?: number; reason?: string; taskArn: string }
interface Task {
  taskArn: string; clusterArn: string; taskDefinitionArn: string; lastStatus: string; desiredStatus: string; launchType: string;
  cpu?: string; memory?: string; group: string; startedBy?: string; overrides: Record<string, unknown>; containers: Container[];
  createdAt: number; connectivity?: string; connectivityAt?: number; pullStartedAt?: number; pullStoppedAt?: number; startedAt?: number;
  stoppingAt?: number; stoppedAt?: number; executionStoppedAt?: number; stopCode?: string; stoppedReason?: string;
  updatedAt: number; version: number; platformVersion?: string; availabilityZone: string; tags?: { key: string; value: string }[];
}

const ECS_TASKS = 'ecs-tasks.amazonaws.com';
/** A stopped container's code when its task was stopped (SIGTERM). */
export const STOP_EXIT_CODE = 143;

export const ecs: JobModule = (r, runner, scope) => {
  const op = r.target;
  const body = jsonBody(r);
  const res = runner.resources;
  const base = `arn:aws:ecs:${scope.region}:${scope.accountId}`;
  const clusterName = (ref: unknown) => String(ref ?? 'default').replace(/^arn:aws:ecs:[^:]*:\d*:cluster\//, '');
  const clusterArn = (name: string) => res.clusters.get(name) ?? `${base}:cluster/${name}`;
  const taskArn = (cluster: string, ref: string) => (ref.startsWith('arn:') ? ref : `${base}:task/${cluster}/${ref}`);
  const needCluster = (name: string) => {
    if (!res.clusters.has(name)) throw new JobApiError('ClusterNotFoundException', 'Cluster not found.');
  };
  const cluster = clusterName(body.cluster);

  switch (op) {
    case 'RunTask': {
      const ref = required(body, 'taskDefinition');
      const def = taskDefinition(res, ref);
      // An unknown definition is authorized as `family:revision` (any revision when none is named).
      const named = ref.replace(/^.*task-definition\//, '');
      const defArn = def?.arn ?? `${base}:task-definition/${named.includes(':') ? named : `${named}:*`}`;
      const checks: Check[] = [{ action: 'ecs:RunTask', resource: defArn, context: { 'ecs:cluster': clusterArn(cluster) } }];
      const roles = [body.overrides?.taskRoleArn ?? def?.taskRoleArn, body.overrides?.executionRoleArn ?? def?.executionRoleArn].filter((x): x is string => typeof x === 'string');
      for (const role of new Set(roles)) checks.push({ action: 'iam:PassRole', resource: role, context: { 'iam:PassedToService': ECS_TASKS } });
      if (Array.isArray(body.tags) && body.tags.length) checks.push({ action: 'ecs:TagResource', resource: `${base}:task/${cluster}/*`, context: { 'ecs:CreateAction': 'RunTask' } });
      return {
        checks,
        serve: answering('ecs', async () => {
          needCluster(cluster);
          if (!def) throw new JobApiError('InvalidParameterException', 'TaskDefinition not found.');
          const count = Number(body.count ?? 1);
          if (!Number.isInteger(count) || count < 1 || count > 10) throw new JobApiError('InvalidParameterException', 'count must be between 1 and 10.');
          for (const o of (body.overrides?.containerOverrides ?? []) as { name?: string }[]) {
            if (!def.containers.some((c) => c.name === o.name)) throw new JobApiError('InvalidParameterException', `Override for container named ${o.name} is not a container in the TaskDefinition.`);
          }
          // The same clientToken again (a retried call) answers the tasks it started.
          const token = typeof body.clientToken === 'string' ? body.clientToken : undefined;
          const again = token ? runner.jobs.filter((j) => j.service === 'ecs' && (j as SimJob & { token?: string }).token === token) : [];
          if (again.length) return ok('ecs', { tasks: again.map((j) => describe(j.record as Task)), failures: [] });
          const jobs = Array.from({ length: count }, () => Object.assign(start(runner, r.caller, clusterArn(cluster), cluster, def, body), { token }));
          if (jobs.some((j) => j.behaviour.answerAfterEvents)) await Promise.all(jobs.map((j) => runner.settled(j)));
          return ok('ecs', { tasks: jobs.map((j) => describe(j.record as Task)), failures: [] });
        }),
      };
    }
    case 'DescribeTasks': {
      const refs = (Array.isArray(body.tasks) ? body.tasks : []) as string[];
      return {
        checks: refs.map((t) => ({ action: 'ecs:DescribeTasks', resource: taskArn(cluster, t), context: { 'ecs:cluster': clusterArn(cluster) } })),
        serve: answering('ecs', () => {
          needCluster(cluster);
          if (refs.length === 0 || refs.length > 100) throw new JobApiError('InvalidParameterException', 'Tasks cannot be empty.');
          const found = refs.map((t) => runner.find('ecs', taskArn(cluster, t)));
          return ok('ecs', {
            tasks: found.filter((j): j is SimJob => !!j).map((j) => describe(j.record as Task, body.include)),
            failures: refs.filter((_, i) => !found[i]).map((t) => ({ arn: taskArn(cluster, t), reason: 'MISSING' })),
          });
        }),
      };
    }
    case 'StopTask': {
      const ref = required(body, 'task');
      return {
        checks: [{ action: 'ecs:StopTask', resource: taskArn(cluster, ref), context: { 'ecs:cluster': clusterArn(cluster) } }],
        serve: answering('ecs', () => {
          needCluster(cluster);
          const job = runner.find('ecs', taskArn(cluster, ref));
          if (!job) throw new JobApiError('InvalidParameterException', 'The referenced task was not found.');
          stop(runner, job, typeof body.reason === 'string' ? body.reason : 'Task stopped by user', 'UserInitiated');
          return ok('ecs', { task: describe(job.record as Task) });
        }),
      };
    }
    default:
      throw new JobApiError('InvalidAction', `the rehearsal's ECS serves RunTask, DescribeTasks and StopTask, not ${op}`);
  }
};

function start(runner: JobRunner, caller: { name: string; arn: string }, clusterArn: string, clusterName: string, def: TaskDefinitionSpec, body: Record<string, any>): SimJob {
  const now = runner.deps.clock();
  const id = newId();
  const arn = `${clusterArn.replace(/:cluster\/.*$/, '')}:task/${clusterName}/${id}`;
  const launchType = String(body.launchType ?? (def.requiresCompatibilities?.includes('FARGATE') ? 'FARGATE' : 'EC2'));
  const task: Task = compact({
    taskArn: arn, clusterArn, taskDefinitionArn: def.arn, lastStatus: 'PROVISIONING', desiredStatus: 'RUNNING', launchType,
    cpu: body.overrides?.cpu ?? def.cpu, memory: body.overrides?.memory ?? def.memory, group: String(body.group ?? `family:${def.family}`),
    startedBy: body.startedBy, overrides: compact({ containerOverrides: body.overrides?.containerOverrides ?? [], taskRoleArn: body.overrides?.taskRoleArn, executionRoleArn: body.overrides?.executionRoleArn }),
    containers: def.containers.map((c) => ({ containerArn: `${clusterArn.replace(/:cluster\/.*$/, '')}:container/${clusterName}/${id}/${newId().slice(0, 8)}`, name: c.name, image: c.image, lastStatus: 'PENDING', essential: c.essential, taskArn: arn })),
    createdAt: now, updatedAt: now, version: 1, platformVersion: launchType === 'FARGATE' ? '1.4.0' : undefined, availabilityZone: 'us-east-1a', tags: body.tags,
  }) as Task;
  const job = runner.add<Task>({ service: 'ecs', id, arn, names: [def.family, clusterName, ...(body.startedBy ? [String(body.startedBy)] : [])], record: task, caller: caller.arn, callerName: caller.name, state: 'PROVISIONING' });
  const b = job.behaviour;
  const duration = Math.max(b.durationMs ?? DEFAULT_DURATION_MS, 3_000);
  const { failed, exitCode } = outcomeOf(b);
  event(runner, job);
  change(runner, job, now + 1_000, (t) => Object.assign(t, { lastStatus: 'PENDING', connectivity: 'CONNECTED', connectivityAt: t.updatedAt, pullStartedAt: t.updatedAt }));
  change(runner, job, now + 2_000, (t) => {
    Object.assign(t, { lastStatus: 'RUNNING', pullStoppedAt: t.updatedAt, startedAt: t.updatedAt });
    for (const c of t.containers) c.lastStatus = 'RUNNING';
  });
  change(runner, job, now + duration - 1_000, (t) => {
    Object.assign(t, { lastStatus: 'DEPROVISIONING', desiredStatus: 'STOPPED', stoppingAt: t.updatedAt, executionStoppedAt: t.updatedAt, stopCode: 'EssentialContainerExited', stoppedReason: b.reason ?? 'Essential container in task exited' });
    for (const c of t.containers) Object.assign(c, { lastStatus: 'STOPPED', exitCode: c.essential ? exitCode : 0, ...(failed && c.essential && b.reason ? { reason: b.reason } : {}) });
  });
  change(runner, job, now + duration, (t) => Object.assign(t, { lastStatus: 'STOPPED', stoppedAt: t.updatedAt }), true);
  return job;
}

/** StopTask: the task stops within a second, its containers with SIGTERM's exit code. */
export function stop(runner: JobRunner, job: SimJob, reason: string, stopCode: string): void {
  const t = job.record as unknown as Task;
  if (t.desiredStatus === 'STOPPED') return;
  runner.cancel(job);
  const now = runner.deps.clock();
  // StopTask answers with the task already stopping.
  applyChange(runner, job, now, (x) => {
    Object.assign(x, { desiredStatus: 'STOPPED', lastStatus: x.lastStatus === 'RUNNING' ? 'DEPROVISIONING' : x.lastStatus, stoppingAt: x.updatedAt, executionStoppedAt: x.updatedAt, stopCode, stoppedReason: reason });
    for (const c of x.containers) Object.assign(c, c.lastStatus === 'RUNNING' ? { lastStatus: 'STOPPED', exitCode: STOP_EXIT_CODE } : { lastStatus: 'STOPPED' });
  });
  change(runner, job, now + 1_000, (x) => Object.assign(x, { lastStatus: 'STOPPED', stoppedAt: x.updatedAt }), true);
}

function change(runner: JobRunner, job: SimJob, at: number, apply: (t: Task) => void, last = false): void {
  runner.at(job, at, () => applyChange(runner, job, at, apply, last));
}

function applyChange(runner: JobRunner, job: SimJob, at: number, apply: (t: Task) => void, last = false): void {
  const t = job.record as unknown as Task;
  t.updatedAt = at;
  t.version++;
  apply(t);
  job.states.push(t.lastStatus);
  if (last) job.done = true;
  event(runner, job);
}

function event(runner: JobRunner, job: SimJob): void {
  const t = job.record as unknown as Task;
  const stamps = ['createdAt', 'connectivityAt', 'pullStartedAt', 'pullStoppedAt', 'startedAt', 'stoppingAt', 'stoppedAt', 'executionStoppedAt', 'updatedAt'] as const;
  const { tags: _tags, ...rest } = t;
  const detail = { ...rest, ...Object.fromEntries(stamps.filter((k) => t[k] !== undefined).map((k) => [k, iso(t[k])])), containers: t.containers.map(({ essential: _e, ...c }) => c) };
  runner.publish(job, 'aws.ecs', 'ECS Task State Change', detail);
}

/** The Task object as DescribeTasks answers it (epoch seconds). */
function describe(t: Task, include?: unknown): Record<string, unknown> {
  const stamps = ['createdAt', 'connectivityAt', 'pullStartedAt', 'pullStoppedAt', 'startedAt', 'stoppingAt', 'stoppedAt', 'executionStoppedAt'] as const;
  const { updatedAt: _u, tags, ...rest } = t;
  return compact({
    ...rest, ...Object.fromEntries(stamps.filter((k) => t[k] !== undefined).map((k) => [k, seconds(t[k])])),
    containers: t.containers.map(({ essential: _e, ...c }) => c),
    tags: Array.isArray(include) && include.includes('TAGS') ? tags ?? [] : undefined,
  });
}
