/**
 * Who may do what: the registered principals, the resource policies, and every decision,
 * recorded in call order. The HTTP server and the Scheduler emulator both authorize here.
 */
import { evaluate, type EvaluateResult } from './authorize.js';
import type { Check } from './checks.js';
import { sessionArn } from './identify.js';
import type { Decision, GatewayOptions, PolicyDocument, Principal } from './index.js';
import type { ScheduleFire } from './scheduler/types.js';

const ALLOW_ALL: PolicyDocument = { Version: '2012-10-17', Statement: [{ Sid: 'AdministratorAccess', Effect: 'Allow', Action: '*', Resource: '*' }] };

export interface Outcome { decision: Decision; result: EvaluateResult; callerArn: string }

/**
 * @example
 * const access = new Access(options);
 * const { decision } = await access.check(access.byKey('AKIDWORKER')!, { action: 'sqs:SendMessage', resource: queueArn });
 */
export class Access {
  readonly decisions: Decision[] = [];
  private readonly keys = new Map<string, Principal>();
  private readonly names = new Map<string, Principal>();
  /** The CLI user's principal, used for unknown access keys when `cliAllowAll` is on. */
  readonly cli: Principal;

  constructor(private readonly o: GatewayOptions) {
    for (const p of o.principals) {
      this.keys.set(p.accessKeyId, p);
      this.names.set(p.name, p);
      if (!this.names.has(p.roleArn)) this.names.set(p.roleArn, p);
    }
    this.cli = { accessKeyId: '', name: 'cli', roleArn: `arn:aws:iam::${o.accountId}:user/cli`, policies: [{ name: 'AdministratorAccess', document: ALLOW_ALL }] };
  }

  /** The principal of an access key id; the CLI user for an unknown one when `cliAllowAll` is on (the default). */
  byKey(accessKeyId: string): Principal | undefined {
    return this.keys.get(accessKeyId) ?? (this.o.cliAllowAll === false ? undefined : this.cli);
  }

  /** A principal by name (function logical id, 'cli') or role ARN. */
  byName(nameOrArn: string): Principal | undefined {
    return nameOrArn === 'cli' ? this.cli : this.names.get(nameOrArn);
  }

  /** The resource policy that governs `resource`: its own, its bucket's (S3 objects), its table's (indexes). */
  resourcePolicyOf(resource: string): PolicyDocument | undefined {
    const own = this.o.resourcePolicies[resource];
    if (own) return own;
    const bucket = /^(arn:aws:s3:::[^/]+)\//.exec(resource);
    if (bucket) return this.o.resourcePolicies[bucket[1]!];
    const table = /^(arn:aws:dynamodb:[^:]+:\d+:table\/[^/]+)\//.exec(resource);
    return table ? this.o.resourcePolicies[table[1]!] : undefined;
  }

  /** Evaluate and record one check for a principal, with the request context AWS would set. */
  async check(p: Principal, c: Check): Promise<Outcome> {
    const now = this.o.clock();
    const callerArn = p.name === 'cli' ? p.roleArn : sessionArn(p.roleArn, p.name);
    const context = {
      // The gateway speaks plain HTTP on 127.0.0.1, but stands for AWS's HTTPS endpoints.
      'aws:SecureTransport': 'true',
      'aws:PrincipalArn': p.roleArn,
      'aws:PrincipalAccount': this.o.accountId,
      'aws:RequestedRegion': this.o.region,
      'aws:CurrentTime': new Date(now).toISOString(),
      'aws:EpochTime': String(Math.floor(now / 1000)),
      ...c.context,
    };
    const resourcePolicy = this.resourcePolicyOf(c.resource);
    const result = await this.cached(p, c, resourcePolicy, () => evaluate({
      principalArn: callerArn,
      action: c.action,
      resource: c.resource,
      accountId: this.o.accountId,
      identityPolicies: p.policies,
      resourcePolicy,
      context,
    }));
    return { callerArn, result, decision: this.record(p.name, c, result, context) };
  }

  // The same call by the same principal under the same policies gets the same answer, unless
  // a policy reads the time: such calls are always evaluated. Saves about 1 ms per request.
  private readonly memo = new WeakMap<Principal, Map<string, { policies: unknown; resourcePolicy: unknown; result: EvaluateResult }>>();

  private readonly timeReaders = new WeakMap<object, boolean>();

  private readsTime(doc: object): boolean {
    let v = this.timeReaders.get(doc);
    if (v === undefined) this.timeReaders.set(doc, (v = /aws:(CurrentTime|EpochTime)/.test(JSON.stringify(doc))));
    return v;
  }

  private async cached(p: Principal, c: Check, resourcePolicy: PolicyDocument | undefined, run: () => Promise<EvaluateResult>): Promise<EvaluateResult> {
    if (this.readsTime(p.policies) || (resourcePolicy && this.readsTime(resourcePolicy))) return run();
    let byCall = this.memo.get(p);
    if (!byCall) this.memo.set(p, (byCall = new Map()));
    const key = `${c.action} ${c.resource} ${JSON.stringify(c.context ?? {})}`;
    const hit = byCall.get(key);
    // Policies swapped on the principal or the resource since: evaluate again.
    if (hit && hit.policies === p.policies && hit.resourcePolicy === resourcePolicy) return hit.result;
    const result = await run();
    byCall.set(key, { policies: p.policies, resourcePolicy, result });
    return result;
  }

  /** Evaluate and record a call by an AWS service principal (scheduler.amazonaws.com...): resource policy only. */
  async checkService(service: string, c: Check, resourcePolicy = this.resourcePolicyOf(c.resource)): Promise<Outcome> {
    const context = { 'aws:SecureTransport': 'true', 'aws:PrincipalServiceName': service, ...c.context };
    const result = await evaluate({ principalArn: service, action: c.action, resource: c.resource, accountId: this.o.accountId, identityPolicies: [], resourcePolicy, context });
    return { callerArn: service, result, decision: this.record(service, c, result, context) };
  }

  /** Record a refusal that never reached the evaluator (unknown principal or role). */
  refuse(principal: string, c: Check, reason: string): Decision {
    const d: Decision = { at: this.o.clock(), principal, action: c.action, resource: c.resource, allowed: false, reason };
    this.decisions.push(d);
    return d;
  }

  /**
   * May the schedule's target role deliver this fire? The role must trust the Scheduler
   * (when its trust policy is known) and be allowed the target action: sqs:SendMessage on a
   * queue, lambda:InvokeFunction on a function, sns:Publish on a topic.
   */
  async authorizeFire(fire: ScheduleFire): Promise<boolean> {
    const roleArn = fire.target.RoleArn;
    const target = fire.target.Arn;
    const service = target.split(':')[2];
    const action = service === 'sqs' ? 'sqs:SendMessage' : service === 'lambda' ? 'lambda:InvokeFunction' : service === 'sns' ? 'sns:Publish' : undefined;
    const role = this.byName(roleArn);
    if (!role) return (this.refuse(roleArn, { action: action ?? `${service}:*`, resource: target }, 'UnknownRole'), false);
    if (role.trustPolicy) {
      const trust = await this.checkService('scheduler.amazonaws.com', {
        action: 'sts:AssumeRole',
        resource: roleArn,
        context: { 'aws:SourceAccount': this.o.accountId, 'aws:SourceArn': fire.scheduleArn },
      }, role.trustPolicy);
      if (!trust.result.allowed) return false;
    }
    if (!action) return (this.refuse(role.name, { action: `${service}:*`, resource: target }, 'UnsupportedTarget'), false);
    return (await this.check(role, { action, resource: target })).result.allowed;
  }

  private record(principal: string, c: Check, r: EvaluateResult, context: Record<string, string | string[]>): Decision {
    const d: Decision = {
      at: this.o.clock(),
      principal,
      action: c.action,
      resource: c.resource,
      allowed: r.allowed,
      ...(r.allowed ? { matchedStatements: r.matchedStatements } : { reason: r.error ? `${r.reason}: ${r.error}` : r.reason }),
      context,
    };
    this.decisions.push(d);
    return d;
  }
}
