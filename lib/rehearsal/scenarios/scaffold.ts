/**
 * The AWS resources the `jobs` scenario's DAGs run jobs on, declared in the rehearsal's test app
 * beside the Airless stack (lib/rehearsal/scenarios/app.ts), with fixed names the DAGs use: an
 * ECS cluster and a Fargate task definition, a Batch job queue and job definition, a Glue job,
 * a state machine, an Athena workgroup with its result bucket, an EMR Serverless application
 * and its execution role, and a function the `lambdaInvoke` operator starts (its results go to
 * the Airless bus through its destinations). Nothing here is part of the product: it stands
 * for what a user's account already has.
 */
import { Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import * as athena from 'aws-cdk-lib/aws-athena';
import * as batch from 'aws-cdk-lib/aws-batch';
import * as ecs from 'aws-cdk-lib/aws-ecs';
import * as emr from 'aws-cdk-lib/aws-emrserverless';
import type * as events from 'aws-cdk-lib/aws-events';
import * as glue from 'aws-cdk-lib/aws-glue';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as destinations from 'aws-cdk-lib/aws-lambda-destinations';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import { fileURLToPath } from 'node:url';

/** The names the scenario's DAGs use. */
export const SCAFFOLD = {
  cluster: 'rehearsal-jobs',
  taskFamily: 'rehearsal-etl',
  container: 'main',
  jobQueue: 'rehearsal-queue',
  jobDefinition: 'rehearsal-crunch',
  glueJob: 'rehearsal-load',
  stateMachine: 'rehearsal-orders',
  workgroup: 'rehearsal-reports',
  emrApplication: 'rehearsal-spark',
  emrRole: 'rehearsal-spark-job',
  function: 'rehearsal-score',
} as const;

export interface JobsScaffoldProps {
  /** Where the scored function's asynchronous results go (the Airless bus). */
  readonly resultsBus?: events.IEventBus;
}

/**
 * @example
 * const scaffold = new JobsScaffold(stack, 'RehearsalJobs', { resultsBus: airless.events.bus });
 */
export class JobsScaffold extends Construct {
  public readonly cluster: ecs.CfnCluster;
  public readonly taskDefinition: ecs.FargateTaskDefinition;
  public readonly jobQueue: batch.CfnJobQueue;
  public readonly jobDefinition: batch.CfnJobDefinition;
  public readonly glueJob: glue.CfnJob;
  public readonly stateMachine: sfn.StateMachine;
  public readonly resultsBucket: s3.Bucket;
  public readonly workgroup: athena.CfnWorkGroup;
  public readonly emrApplication: emr.CfnApplication;
  public readonly emrRole: iam.Role;
  public readonly scorer: lambda.Function;

  constructor(scope: Construct, id: string, props: JobsScaffoldProps = {}) {
    super(scope, id);
    const stack = Stack.of(this);
    this.cluster = new ecs.CfnCluster(this, 'Cluster', { clusterName: SCAFFOLD.cluster });
    this.taskDefinition = new ecs.FargateTaskDefinition(this, 'Etl', { family: SCAFFOLD.taskFamily, cpu: 256, memoryLimitMiB: 512 });
    this.taskDefinition.addContainer(SCAFFOLD.container, { image: ecs.ContainerImage.fromRegistry('public.ecr.aws/docker/library/busybox:stable'), essential: true, command: ['sh', '-c', 'echo etl'] });
    this.taskDefinition.obtainExecutionRole();

    const environment = new batch.CfnComputeEnvironment(this, 'Compute', {
      type: 'MANAGED', computeResources: { type: 'FARGATE', maxvCpus: 4, subnets: ['subnet-rehearsal'], securityGroupIds: ['sg-rehearsal'] },
    });
    this.jobQueue = new batch.CfnJobQueue(this, 'Queue', { jobQueueName: SCAFFOLD.jobQueue, priority: 1, computeEnvironmentOrder: [{ order: 1, computeEnvironment: environment.attrComputeEnvironmentArn }] });
    this.jobDefinition = new batch.CfnJobDefinition(this, 'Crunch', {
      jobDefinitionName: SCAFFOLD.jobDefinition, type: 'container', platformCapabilities: ['FARGATE'],
      containerProperties: { image: 'public.ecr.aws/docker/library/busybox:stable', command: ['sh', '-c', 'echo crunch'], resourceRequirements: [{ type: 'VCPU', value: '0.25' }, { type: 'MEMORY', value: '512' }] },
    });

    const glueRole = new iam.Role(this, 'GlueRole', { assumedBy: new iam.ServicePrincipal('glue.amazonaws.com') });
    this.glueJob = new glue.CfnJob(this, 'Load', {
      name: SCAFFOLD.glueJob, role: glueRole.roleArn, glueVersion: '4.0', timeout: 60, executionProperty: { maxConcurrentRuns: 2 },
      command: { name: 'glueetl', scriptLocation: `s3://rehearsal-code-${stack.account}/load.py`, pythonVersion: '3' },
    });

    this.stateMachine = new sfn.StateMachine(this, 'Orders', {
      stateMachineName: SCAFFOLD.stateMachine, definitionBody: sfn.DefinitionBody.fromChainable(new sfn.Pass(this, 'Total')),
    });

    this.resultsBucket = new s3.Bucket(this, 'Results', { removalPolicy: RemovalPolicy.DESTROY, enforceSSL: true, blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL });
    this.workgroup = new athena.CfnWorkGroup(this, 'Reports', {
      name: SCAFFOLD.workgroup, recursiveDeleteOption: true,
      workGroupConfiguration: { enforceWorkGroupConfiguration: true, resultConfiguration: { outputLocation: this.resultsBucket.s3UrlForObject('athena/') } },
    });

    this.emrRole = new iam.Role(this, 'SparkRole', { roleName: SCAFFOLD.emrRole, assumedBy: new iam.ServicePrincipal('emr-serverless.amazonaws.com') });
    this.emrApplication = new emr.CfnApplication(this, 'Spark', { name: SCAFFOLD.emrApplication, releaseLabel: 'emr-7.1.0', type: 'SPARK' });

    this.scorer = new lambda.Function(this, 'Score', {
      functionName: SCAFFOLD.function, runtime: lambda.Runtime.NODEJS_24_X, handler: 'index.handler', timeout: Duration.seconds(10),
      code: lambda.Code.fromAsset(fileURLToPath(new URL('./functions/score', import.meta.url))),
      retryAttempts: 0,
      ...(props.resultsBus ? { onSuccess: new destinations.EventBridgeDestination(props.resultsBus), onFailure: new destinations.EventBridgeDestination(props.resultsBus) } : {}),
    });
  }
}
