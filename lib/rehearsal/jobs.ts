/**
 * The template's job resources, for the gateway's simulated jobs: ECS clusters and task
 * definitions (containers, task and execution roles), Batch job queues and job definitions,
 * Glue jobs (Timeout, MaxConcurrentRuns), state machines (STANDARD or EXPRESS), Athena
 * workgroups (result location, whether it is enforced) and EMR Serverless applications. A job
 * submitted against anything else is refused as AWS refuses it.
 */
import type { JobResources } from './gateway/index.js';
import type { StackTemplate } from './template.js';

/**
 * @example
 * loadJobResources(template, gateway.jobs.resources);
 */
export function loadJobResources(t: StackTemplate, r: JobResources): void {
  const props = (id: string) => t.props(id) as Record<string, any>;
  for (const [id] of t.ofType('AWS::ECS::Cluster')) r.clusters.set(t.physicalName(id), t.getAtt(id, 'Arn'));
  for (const [id] of t.ofType('AWS::ECS::TaskDefinition')) {
    const p = props(id);
    r.taskDefinitions.push({
      arn: t.getAtt(id, 'Arn'), family: t.physicalName(id), revision: 1,
      containers: ((p.ContainerDefinitions ?? []) as Record<string, any>[]).map((c) => ({ name: String(c.Name), image: String(c.Image ?? ''), essential: c.Essential !== false })),
      taskRoleArn: p.TaskRoleArn, executionRoleArn: p.ExecutionRoleArn, cpu: p.Cpu, memory: p.Memory, requiresCompatibilities: p.RequiresCompatibilities,
    });
  }
  for (const [id] of t.ofType('AWS::Batch::JobQueue')) r.jobQueues.set(t.physicalName(id), t.getAtt(id, 'Arn'));
  for (const [id] of t.ofType('AWS::Batch::JobDefinition')) {
    const p = props(id);
    const c = p.ContainerProperties ?? {};
    r.jobDefinitions.push({ arn: t.getAtt(id, 'Arn'), name: t.physicalName(id), revision: 1, type: String(p.Type ?? 'container'), image: c.Image, command: c.Command });
  }
  for (const [id] of t.ofType('AWS::Glue::Job')) {
    const p = props(id);
    const name = t.physicalName(id);
    // Glue's defaults: 2,880 minutes (48 hours), one run at a time.
    r.glueJobs.set(name, {
      name, timeoutMinutes: Number(p.Timeout ?? 2880), maxConcurrentRuns: Number(p.ExecutionProperty?.MaxConcurrentRuns ?? 1),
      role: p.Role, glueVersion: p.GlueVersion, workerType: p.WorkerType, numberOfWorkers: p.NumberOfWorkers,
    });
  }
  for (const [id] of t.ofType('AWS::StepFunctions::StateMachine')) {
    r.stateMachines.push({ arn: t.getAtt(id, 'Arn'), name: t.physicalName(id), type: props(id).StateMachineType === 'EXPRESS' ? 'EXPRESS' : 'STANDARD' });
  }
  for (const [id] of t.ofType('AWS::Athena::WorkGroup')) {
    const c = props(id).WorkGroupConfiguration ?? {};
    r.workgroups.set(t.physicalName(id), { name: t.physicalName(id), outputLocation: c.ResultConfiguration?.OutputLocation, enforce: c.EnforceWorkGroupConfiguration === true });
  }
  for (const [id] of t.ofType('AWS::EMRServerless::Application')) {
    const p = props(id);
    r.emrApplications.push({ id: t.physicalName(id), arn: t.getAtt(id, 'Arn'), name: String(p.Name ?? id), releaseLabel: String(p.ReleaseLabel), type: String(p.Type) });
  }
}
