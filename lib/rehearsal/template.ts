/**
 * Reading a synthesized CloudFormation template the way CloudFormation would deploy it,
 * into account 000000000000 / us-east-1: physical names for resources without one, and
 * `Ref`, `Fn::GetAtt`, `Fn::Join`, `Fn::Sub`, `Fn::Select`, `Fn::Split` resolved to them.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { InvalidInputError } from '../engine/index.js';

export const ACCOUNT_ID = '000000000000';
export const REGION = 'us-east-1';

export interface CfnResource {
  Type: string;
  Properties?: Record<string, unknown>;
  Metadata?: Record<string, unknown>;
  DependsOn?: string | string[];
}

export interface CfnTemplate {
  Resources: Record<string, CfnResource>;
  Outputs?: Record<string, { Value: unknown; Description?: string }>;
}

/** The endpoint queue URLs point at: SQS clients send to the queue URL's host. */
export interface ResolveContext {
  queueEndpoint: string;
}

/** A template with its stack name and asset folder, and the resolver over it. */
export class StackTemplate {
  readonly stackName: string;
  readonly template: CfnTemplate;
  /** Folder of the assets (`cdk.out`). */
  readonly assetDir: string;
  private ctx: ResolveContext = { queueEndpoint: 'http://127.0.0.1:0' };

  constructor(stackName: string, template: CfnTemplate, assetDir: string) {
    this.stackName = stackName;
    this.template = template;
    this.assetDir = assetDir;
  }

  /**
   * Reads `<stack>.template.json` from a `cdk.out` folder.
   * @example
   * const t = StackTemplate.fromCdkOut('cdk.out', 'Airless');
   */
  static fromCdkOut(dir: string, stackName = 'Airless'): StackTemplate {
    const file = join(dir, `${stackName}.template.json`);
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (cause) {
      throw new InvalidInputError(`no template ${file}; run \`npx cdk synth\` or pass --cdk-out DIR`, { cause });
    }
    const template = JSON.parse(text) as CfnTemplate;
    if (!template.Resources) throw new InvalidInputError(`${file} has no Resources`);
    return new StackTemplate(stackName, template, dir);
  }

  setContext(ctx: ResolveContext): void {
    this.ctx = ctx;
  }

  /** Logical ids of the resources of one type, in template order. */
  ofType(type: string): [string, CfnResource][] {
    return Object.entries(this.template.Resources).filter(([, r]) => r.Type === type);
  }

  resource(logicalId: string): CfnResource {
    const r = this.template.Resources[logicalId];
    if (!r) throw new InvalidInputError(`template has no resource ${logicalId}`);
    return r;
  }

  /** What `Ref` returns for a resource. */
  ref(logicalId: string): string {
    const r = this.resource(logicalId);
    const name = this.physicalName(logicalId);
    switch (r.Type) {
      case 'AWS::SQS::Queue':
        return `${this.ctx.queueEndpoint}/${ACCOUNT_ID}/${name}`;
      case 'AWS::SNS::Topic':
        return `arn:aws:sns:${REGION}:${ACCOUNT_ID}:${name}`;
      // Resources whose Ref is their ARN (jobs and their queues).
      case 'AWS::ECS::TaskDefinition':
      case 'AWS::Batch::JobQueue':
      case 'AWS::Batch::JobDefinition':
      case 'AWS::Batch::ComputeEnvironment':
      case 'AWS::StepFunctions::StateMachine':
        return this.getAtt(logicalId, 'Arn');
      default:
        return name;
    }
  }

  /** The physical name: the template's name property, else `<stack>-<logicalId>` as CloudFormation would generate it. */
  physicalName(logicalId: string): string {
    const r = this.resource(logicalId);
    const p = r.Properties ?? {};
    const named = (key: string) => (p[key] === undefined ? undefined : String(this.resolve(p[key])));
    const generated = `${this.stackName}-${logicalId}`;
    switch (r.Type) {
      case 'AWS::DynamoDB::Table':
        return named('TableName') ?? generated;
      case 'AWS::SQS::Queue':
        return named('QueueName') ?? generated.slice(0, 80);
      case 'AWS::S3::Bucket':
        return named('BucketName') ?? generated.toLowerCase().slice(0, 63);
      case 'AWS::Lambda::Function':
        return named('FunctionName') ?? generated.slice(0, 64);
      case 'AWS::IAM::Role':
        return named('RoleName') ?? generated.slice(0, 64);
      case 'AWS::Logs::LogGroup':
        return named('LogGroupName') ?? generated;
      case 'AWS::SNS::Topic':
        return named('TopicName') ?? generated;
      case 'AWS::Scheduler::ScheduleGroup':
      case 'AWS::Scheduler::Schedule':
        return named('Name') ?? generated;
      case 'AWS::KMS::Key':
        return `key-${logicalId.toLowerCase()}`;
      case 'AWS::Events::EventBus':
      case 'AWS::Events::Rule':
      case 'AWS::Glue::Job':
      case 'AWS::Athena::WorkGroup':
        return named('Name') ?? generated.slice(0, 64);
      case 'AWS::ECS::Cluster':
        return named('ClusterName') ?? generated;
      case 'AWS::ECS::TaskDefinition':
        return named('Family') ?? `${this.stackName}${logicalId}`;
      case 'AWS::Batch::JobQueue':
        return named('JobQueueName') ?? generated;
      case 'AWS::Batch::JobDefinition':
        return named('JobDefinitionName') ?? generated;
      case 'AWS::Batch::ComputeEnvironment':
        return named('ComputeEnvironmentName') ?? generated;
      case 'AWS::StepFunctions::StateMachine':
        return named('StateMachineName') ?? generated.slice(0, 80);
      // Ref of an EMR Serverless application is its id: lowercase letters and digits.
      case 'AWS::EMRServerless::Application':
        return `00${logicalId.toLowerCase().replace(/[^0-9a-z]/g, '')}`.slice(0, 16);
      default:
        return generated;
    }
  }

  /** What `Fn::GetAtt` returns. */
  getAtt(logicalId: string, attr: string): string {
    const r = this.resource(logicalId);
    const name = this.physicalName(logicalId);
    const arn = (service: string, resource: string, region = REGION, account = ACCOUNT_ID) => `arn:aws:${service}:${region}:${account}:${resource}`;
    const key = `${r.Type}.${attr}`;
    switch (key) {
      case 'AWS::SQS::Queue.Arn': return arn('sqs', name);
      case 'AWS::SQS::Queue.QueueName': return name;
      case 'AWS::SQS::Queue.QueueUrl': return this.ref(logicalId);
      case 'AWS::DynamoDB::Table.Arn': return arn('dynamodb', `table/${name}`);
      case 'AWS::DynamoDB::Table.StreamArn': return arn('dynamodb', `table/${name}/stream/1970-01-01T00:00:00.000`);
      case 'AWS::S3::Bucket.Arn': return `arn:aws:s3:::${name}`;
      case 'AWS::S3::Bucket.DomainName': return `${name}.s3.amazonaws.com`;
      case 'AWS::S3::Bucket.RegionalDomainName': return `${name}.s3.${REGION}.amazonaws.com`;
      case 'AWS::Lambda::Function.Arn': return arn('lambda', `function:${name}`);
      case 'AWS::IAM::Role.Arn': return `arn:aws:iam::${ACCOUNT_ID}:role/${name}`;
      case 'AWS::Logs::LogGroup.Arn': return arn('logs', `log-group:${name}:*`);
      case 'AWS::SNS::Topic.TopicArn': return this.ref(logicalId);
      case 'AWS::SNS::Topic.TopicName': return name;
      case 'AWS::KMS::Key.Arn': return arn('kms', `key/${name}`);
      case 'AWS::KMS::Key.KeyId': return name;
      case 'AWS::Scheduler::ScheduleGroup.Arn': return arn('scheduler', `schedule-group/${name}`);
      case 'AWS::Scheduler::Schedule.Arn': return arn('scheduler', `schedule/${String(this.resolve(r.Properties?.GroupName ?? 'default'))}/${name}`);
      case 'AWS::CloudWatch::Alarm.Arn': return arn('cloudwatch', `alarm:${name}`);
      case 'AWS::Events::EventBus.Arn': return arn('events', `event-bus/${name}`);
      case 'AWS::Events::EventBus.Name': return name;
      case 'AWS::Events::Rule.Arn': {
        const bus = r.Properties?.EventBusName === undefined ? 'default' : String(this.resolve(r.Properties.EventBusName)).replace(/^.*event-bus\//, '');
        return arn('events', `rule/${bus === 'default' ? '' : `${bus}/`}${name}`);
      }
      case 'AWS::ECS::Cluster.Arn': return arn('ecs', `cluster/${name}`);
      case 'AWS::ECS::TaskDefinition.Arn':
      case 'AWS::ECS::TaskDefinition.TaskDefinitionArn': return arn('ecs', `task-definition/${name}:1`);
      case 'AWS::Batch::JobQueue.Arn':
      case 'AWS::Batch::JobQueue.JobQueueArn': return arn('batch', `job-queue/${name}`);
      case 'AWS::Batch::JobDefinition.Arn': return arn('batch', `job-definition/${name}:1`);
      case 'AWS::Batch::ComputeEnvironment.Arn':
      case 'AWS::Batch::ComputeEnvironment.ComputeEnvironmentArn': return arn('batch', `compute-environment/${name}`);
      case 'AWS::StepFunctions::StateMachine.Arn': return arn('states', `stateMachine:${name}`);
      case 'AWS::StepFunctions::StateMachine.Name': return name;
      case 'AWS::Athena::WorkGroup.Arn': return arn('athena', `workgroup/${name}`);
      case 'AWS::EMRServerless::Application.Arn': return arn('emr-serverless', `/applications/${name}`);
      case 'AWS::EMRServerless::Application.ApplicationId': return name;
      default:
        throw new InvalidInputError(`cannot resolve Fn::GetAtt ${logicalId}.${attr} (${r.Type})`);
    }
  }

  private pseudo(name: string): string | undefined {
    switch (name) {
      case 'AWS::AccountId': return ACCOUNT_ID;
      case 'AWS::Region': return REGION;
      case 'AWS::Partition': return 'aws';
      case 'AWS::URLSuffix': return 'amazonaws.com';
      case 'AWS::StackName': return this.stackName;
      case 'AWS::StackId': return `arn:aws:cloudformation:${REGION}:${ACCOUNT_ID}:stack/${this.stackName}/rehearsal`;
      default: return undefined;
    }
  }

  /**
   * Resolves intrinsic functions in a value, recursively.
   * @example
   * t.resolve({ 'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }]] }); // 'arn:aws'
   */
  resolve(v: unknown): unknown {
    if (Array.isArray(v)) return v.map((x) => this.resolve(x)).filter((x) => x !== NO_VALUE);
    if (v === null || typeof v !== 'object') return v;
    const o = v as Record<string, unknown>;
    const keys = Object.keys(o);
    if (keys.length === 1) {
      const [k] = keys;
      const arg = o[k];
      switch (k) {
        case 'Ref': {
          const name = String(arg);
          if (name === 'AWS::NoValue') return NO_VALUE;
          return this.pseudo(name) ?? this.ref(name);
        }
        case 'Fn::GetAtt': {
          const [id, attr] = Array.isArray(arg) ? (arg as string[]) : String(arg).split('.');
          return this.getAtt(id, attr);
        }
        case 'Fn::Join': {
          const [sep, parts] = arg as [string, unknown[]];
          return (this.resolve(parts) as unknown[]).join(sep);
        }
        case 'Fn::Select': {
          const [i, list] = arg as [unknown, unknown];
          return (this.resolve(list) as unknown[])[Number(this.resolve(i))];
        }
        case 'Fn::Split': {
          const [sep, s] = arg as [string, unknown];
          return String(this.resolve(s)).split(sep);
        }
        case 'Fn::Sub': {
          const [text, vars] = typeof arg === 'string' ? [arg, {}] : (arg as [string, Record<string, unknown>]);
          return text.replace(/\$\{([^}!]+)\}/g, (_m, expr: string) => {
            if (expr in vars) return String(this.resolve(vars[expr]));
            const pseudo = this.pseudo(expr);
            if (pseudo !== undefined) return pseudo;
            const [id, attr] = expr.split('.');
            return attr ? this.getAtt(id, attr) : this.ref(id);
          });
        }
        default:
          if (k.startsWith('Fn::')) throw new InvalidInputError(`the rehearsal cannot resolve ${k}`);
      }
    }
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(o)) {
      const r = this.resolve(x);
      if (r !== NO_VALUE) out[k] = r;
    }
    return out;
  }

  /** A resource's properties, resolved. */
  props(logicalId: string): Record<string, unknown> {
    return this.resolve(this.resource(logicalId).Properties ?? {}) as Record<string, unknown>;
  }

  /** The stack outputs, resolved (what DescribeStacks would answer). */
  outputs(): Record<string, string> {
    const out: Record<string, string> = {};
    for (const [k, o] of Object.entries(this.template.Outputs ?? {})) out[k] = String(this.resolve(o.Value));
    return out;
  }
}

const NO_VALUE = Symbol('AWS::NoValue');
