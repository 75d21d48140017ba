/**
 * The resources jobs run on, as the template declares them (lib/rehearsal/jobs.ts reads
 * them): ECS clusters and task definitions, Batch job queues and job definitions, Glue jobs,
 * state machines, Athena workgroups, EMR Serverless applications. A submit naming anything
 * else is refused as AWS refuses it (ClusterNotFoundException, EntityNotFoundException...).
 */

export interface TaskDefinitionSpec {
  arn: string;
  family: string;
  revision: number;
  containers: { name: string; image: string; essential: boolean }[];
  taskRoleArn?: string;
  executionRoleArn?: string;
  cpu?: string;
  memory?: string;
  requiresCompatibilities?: string[];
}

export interface JobDefinitionSpec { arn: string; name: string; revision: number; type: string; image?: string; command?: string[] }
export interface GlueJobSpec { name: string; timeoutMinutes: number; maxConcurrentRuns: number; role?: string; glueVersion?: string; workerType?: string; numberOfWorkers?: number }
export interface StateMachineSpec { arn: string; name: string; type: 'STANDARD' | 'EXPRESS' }
export interface WorkgroupSpec { name: string; outputLocation?: string; enforce: boolean }
export interface EmrApplicationSpec { id: string; arn: string; name: string; releaseLabel: string; type: string }

export interface JobResources {
  /** Cluster name → ARN. */
  clusters: Map<string, string>;
  taskDefinitions: TaskDefinitionSpec[];
  /** Job queue name → ARN. */
  jobQueues: Map<string, string>;
  jobDefinitions: JobDefinitionSpec[];
  glueJobs: Map<string, GlueJobSpec>;
  stateMachines: StateMachineSpec[];
  workgroups: Map<string, WorkgroupSpec>;
  emrApplications: EmrApplicationSpec[];
}

/** No resources but Athena's `primary` workgroup, which every account has. */
export function emptyResources(): JobResources {
  return {
    clusters: new Map(), taskDefinitions: [], jobQueues: new Map(), jobDefinitions: [], glueJobs: new Map(),
    stateMachines: [], workgroups: new Map([['primary', { name: 'primary', enforce: false }]]), emrApplications: [],
  };
}

/** `family`, `family:revision` or an ARN → the definition (the latest revision for a family). */
export function taskDefinition(r: JobResources, ref: string): TaskDefinitionSpec | undefined {
  const m = /task-definition\/(.+)$/.exec(ref);
  const [family, rev] = (m ? m[1]! : ref).split(':');
  const all = r.taskDefinitions.filter((t) => t.family === family).sort((a, b) => b.revision - a.revision);
  return rev === undefined ? all[0] : all.find((t) => t.revision === Number(rev));
}

/** `name`, `name:revision` or an ARN → the job definition (the latest revision for a name). */
export function jobDefinition(r: JobResources, ref: string): JobDefinitionSpec | undefined {
  const m = /job-definition\/(.+)$/.exec(ref);
  const [name, rev] = (m ? m[1]! : ref).split(':');
  const all = r.jobDefinitions.filter((t) => t.name === name).sort((a, b) => b.revision - a.revision);
  return rev === undefined ? all[0] : all.find((t) => t.revision === Number(rev));
}
