/**
 * The AWS resources the `jobs` scenario's DAGs run jobs on, declared in the rehearsal's test app
 * beside the Airless stack (lib/rehearsal/scenarios/app.ts), with fixed names the DAGs use: an
 * ECS cluster and a Fargate task definition, a Batch job queue and job definition, a Glue job,
 * a state machine, an Athena workgroup with its result bucket, an EMR Serverless application
 * and its execution role, and a function the `lambdaInvoke` operator starts (the Airless
 * construct gives it its destinations on the Airless bus; app.ts lets its role send there).
 * Nothing here is part of the product: it stands for what a user's account already has. The
 * roles the jobs would run as have no policies (nothing runs as them in the rehearsal).
 */
import { ArnFormat, Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import * as athena from 'aws-cdk-lib/aws-athena';
import * as batch from 'aws-cdk-lib/aws-batch';
import * as ecs from 'aws-cdk-lib/aws-ecs';
import * as emr from 'aws-cdk-lib/aws-emrserverless';
import * as glue from 'aws-cdk-lib/aws-glue';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import { fileURLToPath } from 'node:url';

/** The names the scenario's DAGs use. */
export const SCAFFOLD = {
  cluster: 'rehearsal-jobs',
  taskFamily: 'rehearsal-etl',
  taskRole: 'rehearsal-etl-task',
  executionRole: 'rehearsal-etl-execution',
  container: 'main',
  jobQueue: 'rehearsal-queue',
  jobDefinition: 'rehearsal-crunch',
  glueJob: 'rehearsal-load',
  stateMachine: 'rehearsal-orders',
  workgroup: 'rehearsal-reports',
  resultsBucket: 'rehearsal-athena-results',
  emrApplication: 'rehearsal-spark',
  emrRole: 'rehearsal-spark-job',
  function: 'rehearsal-score',
} as const;

/**
 * @example
 * const scaffold = new JobsScaffold(stack, 'RehearsalJobs');
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

  constructor(scope: Construct, id: string) {
    super(scope, id);
    const stack = Stack.of(this);
    this.cluster = new ecs.CfnCluster(this, 'Cluster', { clusterName: SCAFFOLD.cluster });
    const ecsTasks = new iam.ServicePrincipal('ecs-tasks.amazonaws.com');
    this.taskDefinition = new ecs.FargateTaskDefinition(this, 'Etl', {
      family: SCAFFOLD.taskFamily, cpu: 256, memoryLimitMiB: 512,
      taskRole: new iam.Role(this, 'EtlTaskRole', { roleName: SCAFFOLD.taskRole, assumedBy: ecsTasks }),
      executionRole: new iam.Role(this, 'EtlExecutionRole', { roleName: SCAFFOLD.executionRole, assumedBy: ecsTasks }),
    });
    this.taskDefinition.addContainer(SCAFFOLD.container, { image: ecs.ContainerImage.fromRegistry('public.ecr.aws/docker/library/busybox:stable'), essential: true, command: ['sh', '-c', 'echo etl'] });

    const environment = new batch.CfnComputeEnvironment(this, 'Compute', {
      type: 'MANAGED', computeResources: { type: 'FARGATE', maxvCpus: 4, subnets: ['subnet-0123456789abcdef0'], securityGroupIds: ['sg-0123456789abcdef0'] },
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

    this.resultsBucket = new s3.Bucket(this, 'Results', { bucketName: SCAFFOLD.resultsBucket, removalPolicy: RemovalPolicy.DESTROY, enforceSSL: true, blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL });
    this.workgroup = new athena.CfnWorkGroup(this, 'Reports', {
      name: SCAFFOLD.workgroup, recursiveDeleteOption: true,
      workGroupConfiguration: { enforceWorkGroupConfiguration: true, resultConfiguration: { outputLocation: this.resultsBucket.s3UrlForObject('athena/') } },
    });

    this.emrRole = new iam.Role(this, 'SparkRole', { roleName: SCAFFOLD.emrRole, assumedBy: new iam.ServicePrincipal('emr-serverless.amazonaws.com') });
    this.emrApplication = new emr.CfnApplication(this, 'Spark', { name: SCAFFOLD.emrApplication, releaseLabel: 'emr-7.1.0', type: 'SPARK' });

    // Its role may write its logs (the rehearsal authorizes each function's log writes) and nothing else here.
    const scorerRole = new iam.Role(this, 'ScoreRole', { assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com') });
    scorerRole.addToPolicy(new iam.PolicyStatement({
      actions: ['logs:CreateLogStream', 'logs:PutLogEvents'],
      resources: [stack.formatArn({ service: 'logs', resource: 'log-group', resourceName: `/aws/lambda/${SCAFFOLD.function}:*`, arnFormat: ArnFormat.COLON_RESOURCE_NAME })],
    }));
    this.scorer = new lambda.Function(this, 'Score', {
      functionName: SCAFFOLD.function, runtime: lambda.Runtime.NODEJS_24_X, handler: 'index.handler', timeout: Duration.seconds(10), role: scorerRole,
      code: lambda.Code.fromAsset(fileURLToPath(new URL('./functions/score', import.meta.url))),
    });
  }
}
