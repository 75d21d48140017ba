/**
 * What CloudFormation's Ref and Fn::GetAtt return for the job and event resources, in the
 * rehearsal's account, and the job resources read from a template.
 */
import { describe, expect, it } from 'vitest';
import { emptyResources } from '../../lib/rehearsal/gateway/jobs/resources.js';
import { loadJobResources } from '../../lib/rehearsal/jobs.js';
import { StackTemplate } from '../../lib/rehearsal/template.js';

const A = 'us-east-1:000000000000';
const t = new StackTemplate('S', {
  Resources: {
    Bus: { Type: 'AWS::Events::EventBus', Properties: { Name: 'airless-bus' } },
    OnBus: { Type: 'AWS::Events::Rule', Properties: { EventBusName: { Ref: 'Bus' }, EventPattern: { source: ['x'] } } },
    OnDefault: { Type: 'AWS::Events::Rule', Properties: { EventPattern: { source: ['y'] } } },
    Cluster: { Type: 'AWS::ECS::Cluster', Properties: { ClusterName: 'jobs' } },
    Etl: { Type: 'AWS::ECS::TaskDefinition', Properties: { Family: 'etl', RequiresCompatibilities: ['FARGATE'], TaskRoleArn: 'arn:aws:iam::000000000000:role/t', ContainerDefinitions: [{ Name: 'main', Image: 'i' }, { Name: 'log', Image: 'l', Essential: false }] } },
    Queue: { Type: 'AWS::Batch::JobQueue', Properties: { JobQueueName: 'q' } },
    Def: { Type: 'AWS::Batch::JobDefinition', Properties: { JobDefinitionName: 'd', Type: 'container', ContainerProperties: { Image: 'img', Command: ['run'] } } },
    Load: { Type: 'AWS::Glue::Job', Properties: { Name: 'load', ExecutionProperty: { MaxConcurrentRuns: 3 } } },
    Machine: { Type: 'AWS::StepFunctions::StateMachine', Properties: { StateMachineName: 'orders', StateMachineType: 'EXPRESS' } },
    Reports: { Type: 'AWS::Athena::WorkGroup', Properties: { Name: 'reports', WorkGroupConfiguration: { EnforceWorkGroupConfiguration: true, ResultConfiguration: { OutputLocation: 's3://r/' } } } },
    Spark: { Type: 'AWS::EMRServerless::Application', Properties: { Name: 'spark', ReleaseLabel: 'emr-7.1.0', Type: 'SPARK' } },
  },
}, '/nowhere');

describe('the job and event resources of a template', () => {
  it('resolve as CloudFormation resolves them: names, ARNs, a rule\'s ARN under its bus, an application id', () => {
    expect(t.resolve({ Ref: 'Bus' })).toBe('airless-bus');
    expect(t.getAtt('Bus', 'Arn')).toBe(`arn:aws:events:${A}:event-bus/airless-bus`);
    expect(t.getAtt('OnBus', 'Arn')).toBe(`arn:aws:events:${A}:rule/airless-bus/S-OnBus`);
    expect(t.getAtt('OnDefault', 'Arn')).toBe(`arn:aws:events:${A}:rule/S-OnDefault`);
    expect(t.resolve({ Ref: 'Etl' })).toBe(`arn:aws:ecs:${A}:task-definition/etl:1`);
    expect(t.resolve({ Ref: 'Queue' })).toBe(`arn:aws:batch:${A}:job-queue/q`);
    expect(t.resolve({ Ref: 'Def' })).toBe(`arn:aws:batch:${A}:job-definition/d:1`);
    expect(t.resolve({ Ref: 'Machine' })).toBe(`arn:aws:states:${A}:stateMachine:orders`);
    expect(t.resolve({ Ref: 'Load' })).toBe('load');
    expect(t.resolve({ Ref: 'Spark' })).toMatch(/^[0-9a-z]{1,16}$/);
    expect(t.getAtt('Spark', 'Arn')).toBe(`arn:aws:emr-serverless:${A}:/applications/${t.resolve({ Ref: 'Spark' })}`);
  });

  it('are what the simulated jobs run on, with the services\' defaults', () => {
    const r = emptyResources();
    loadJobResources(t, r);
    expect(r.clusters.get('jobs')).toBe(`arn:aws:ecs:${A}:cluster/jobs`);
    expect(r.taskDefinitions).toEqual([expect.objectContaining({ family: 'etl', revision: 1, taskRoleArn: 'arn:aws:iam::000000000000:role/t', containers: [{ name: 'main', image: 'i', essential: true }, { name: 'log', image: 'l', essential: false }] })]);
    expect(r.jobDefinitions).toEqual([expect.objectContaining({ name: 'd', image: 'img', command: ['run'] })]);
    expect(r.glueJobs.get('load')).toMatchObject({ maxConcurrentRuns: 3, timeoutMinutes: 2880 });
    expect(r.stateMachines).toEqual([{ arn: `arn:aws:states:${A}:stateMachine:orders`, name: 'orders', type: 'EXPRESS' }]);
    expect(r.workgroups.get('reports')).toEqual({ name: 'reports', outputLocation: 's3://r/', enforce: true });
    expect([...r.workgroups.keys()]).toEqual(['primary', 'reports']);
    expect(r.emrApplications).toEqual([expect.objectContaining({ name: 'spark', releaseLabel: 'emr-7.1.0' })]);
  });
});
