/**
 * The IAM side of a template: one principal per role (its identity policies, and the fake
 * access key id its containers sign with) and the resource policies (bucket, queue,
 * topic, key policies, and Lambda permissions as each function's resource policy).
 */
import type { Decision, Gateway, PolicyDocument, Principal } from './gateway/index.js';
import { ACCOUNT_ID, type StackTemplate } from './template.js';

export interface RolePolicies {
  principals: Principal[];
  /** By resource ARN. */
  resourcePolicies: Record<string, PolicyDocument>;
  /** Authorizes (and records) a call an AWS service makes on its own behalf, against the resource policy only. */
  authorizeService(gateway: Gateway, service: string, action: string, resource: string, context: Record<string, string>): Promise<boolean>;
}

/**
 * @example
 * const { principals, resourcePolicies } = collectPolicies(template);
 */
export function collectPolicies(t: StackTemplate): RolePolicies {
  const functionsByRole = new Map<string, string>();
  for (const [id] of t.ofType('AWS::Lambda::Function')) {
    const role = t.resolve(t.resource(id).Properties?.Role);
    if (typeof role === 'string') functionsByRole.set(role, id);
  }
  const principals: Principal[] = [];
  let n = 0;
  for (const [id, r] of t.ofType('AWS::IAM::Role')) {
    const roleArn = t.getAtt(id, 'Arn');
    const policies: Principal['policies'] = [];
    for (const [pid] of t.ofType('AWS::IAM::Policy')) {
      const p = t.props(pid) as { PolicyName: string; PolicyDocument: PolicyDocument; Roles?: string[] };
      if ((p.Roles ?? []).includes(t.physicalName(id))) policies.push({ name: p.PolicyName, document: p.PolicyDocument });
    }
    // A role whose inline policy outgrows IAM's size limit gets the rest in customer managed
    // policies (CDK's "OverflowPolicy"; a worker with many jobs to start): same effect.
    for (const [pid] of t.ofType('AWS::IAM::ManagedPolicy')) {
      const p = t.props(pid) as { PolicyDocument: PolicyDocument; Roles?: string[] };
      if ((p.Roles ?? []).includes(t.physicalName(id))) policies.push({ name: pid, document: p.PolicyDocument });
    }
    for (const inline of (t.resolve(r.Properties?.Policies ?? []) as { PolicyName: string; PolicyDocument: PolicyDocument }[])) {
      policies.push({ name: inline.PolicyName, document: inline.PolicyDocument });
    }
    principals.push({ accessKeyId: `AKIAREHEARSAL${String(n++).padStart(7, '0')}`, name: functionsByRole.get(roleArn) ?? id, roleArn, policies });
  }

  const resourcePolicies: Record<string, PolicyDocument> = {};
  const add = (arn: string, doc: PolicyDocument) => {
    const prev = resourcePolicies[arn];
    resourcePolicies[arn] = prev ? { Version: '2012-10-17', Statement: [...statements(prev), ...statements(doc)] } : doc;
  };
  for (const [id] of t.ofType('AWS::S3::BucketPolicy')) {
    const p = t.props(id) as { Bucket: string; PolicyDocument: PolicyDocument };
    add(`arn:aws:s3:::${p.Bucket}`, p.PolicyDocument);
  }
  for (const [id] of t.ofType('AWS::SQS::QueuePolicy')) {
    const p = t.props(id) as { Queues: string[]; PolicyDocument: PolicyDocument };
    for (const url of p.Queues) add(`arn:aws:sqs:us-east-1:${ACCOUNT_ID}:${url.split('/').pop()}`, p.PolicyDocument);
  }
  for (const [id] of t.ofType('AWS::SNS::TopicPolicy')) {
    const p = t.props(id) as { Topics: string[]; PolicyDocument: PolicyDocument };
    for (const topic of p.Topics) add(topic, p.PolicyDocument);
  }
  for (const [id] of t.ofType('AWS::KMS::Key')) {
    const p = t.props(id) as { KeyPolicy?: PolicyDocument };
    if (p.KeyPolicy) add(t.getAtt(id, 'Arn'), p.KeyPolicy);
  }
  for (const [id] of t.ofType('AWS::Lambda::Permission')) {
    const p = t.props(id) as { Action: string; FunctionName: string; Principal: string; SourceArn?: string; SourceAccount?: string };
    const fnArn = p.FunctionName.startsWith('arn:') ? p.FunctionName : `arn:aws:lambda:us-east-1:${ACCOUNT_ID}:function:${p.FunctionName}`;
    const condition: Record<string, Record<string, string>> = {};
    if (p.SourceArn) condition.ArnLike = { 'aws:SourceArn': p.SourceArn };
    if (p.SourceAccount) condition.StringEquals = { 'aws:SourceAccount': p.SourceAccount };
    add(fnArn, { Version: '2012-10-17', Statement: [{ Sid: id, Effect: 'Allow', Principal: { Service: p.Principal }, Action: p.Action, Resource: fnArn, ...(Object.keys(condition).length ? { Condition: condition } : {}) }] });
  }

  return {
    principals,
    resourcePolicies,
    async authorizeService(gateway, service, action, resource, context) {
      const ctx = { 'aws:SecureTransport': 'true', 'aws:PrincipalServiceName': service, ...context };
      const r = await gateway.evaluate({
        principalArn: service, action, resource, accountId: ACCOUNT_ID, identityPolicies: [],
        resourcePolicy: resourcePolicies[resource], context: ctx,
      });
      const d: Decision = { at: Date.now(), principal: service, action, resource, allowed: r.allowed, reason: r.allowed ? undefined : r.reason, matchedStatements: r.matchedStatements, context: ctx };
      gateway.decisions.push(d);
      return r.allowed;
    },
  };
}

function statements(doc: PolicyDocument) {
  return Array.isArray(doc.Statement) ? doc.Statement : [doc.Statement];
}
