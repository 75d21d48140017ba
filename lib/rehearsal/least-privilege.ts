/**
 * Least privilege, proved from what the scenarios did: every authorization decision is
 * recorded with the allow statements that matched. A statement is needed when some
 * allowed call matched it alone: replaying that call against the role's policies minus
 * the statement (with the real evaluator) gives AccessDenied, which names the statement.
 * An action of a statement that no call used is an unused grant: allowed only when the
 * allow-list (grant-allowlist.ts) gives the code path that needs it.
 */
import { evaluate, type Decision, type PolicyDocument, type PolicyStatement } from './gateway/index.js';
import { ALLOWED_UNUSED, allowedFor, type AllowedGrant } from './grant-allowlist.js';
import { collectPolicies } from './policies.js';
import { ACCOUNT_ID, type StackTemplate } from './template.js';

export interface StatementVerdict {
  principal: string;
  /** `policyName/#N` (1-based) or `policyName/Sid`. */
  statement: string;
  actions: string[];
  /** Some recorded call was allowed by it. */
  used: boolean;
  /** The call that is denied without this statement: `action on resource`; undefined when none is. */
  provenBy?: string;
}

export interface GrantReport {
  statements: StatementVerdict[];
  /** `principal statement action on resources` for every action no scenario used and the allow-list does not explain. */
  unused: string[];
  /** Unused but allow-listed (lib/rehearsal/grant-allowlist.ts): the grant and its reason. */
  allowed: { grant: string; reason: string }[];
}

const list = (v: string | string[] | undefined) => (v === undefined ? [] : Array.isArray(v) ? v : [v]);
const statementsOf = (doc: PolicyDocument) => (Array.isArray(doc.Statement) ? doc.Statement : [doc.Statement]);
const actionMatches = (pattern: string, action: string) =>
  new RegExp(`^${pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.')}$`, 'i').test(action);

/**
 * @example
 * const report = await analyzeGrants(rehearsal.template, rehearsal.gateway.decisions);
 */
export async function analyzeGrants(t: StackTemplate, decisions: readonly Decision[], allowList: readonly AllowedGrant[] = ALLOWED_UNUSED): Promise<GrantReport> {
  const { principals, resourcePolicies } = collectPolicies(t);
  // Roles of functions that only run during a deploy (CDK's custom-resource handlers) are out of scope.
  const deployOnly = new Set(t.ofType('AWS::Lambda::Function').filter(([, r]) => typeof r.Metadata?.['aws:asset:path'] !== 'string').map(([id]) => id));
  const report: GrantReport = { statements: [], unused: [], allowed: [] };
  for (const p of principals) {
    if (deployOnly.has(p.name)) continue;
    const mine = decisions.filter((d) => d.allowed && (d.principal === p.name || d.principal === p.roleArn));
    for (const policy of p.policies) {
      const statements = statementsOf(policy.document);
      for (let i = 0; i < statements.length; i++) {
        const s = statements[i];
        if (s.Effect !== 'Allow') continue;
        const label = s.Sid ? `${policy.name}/${s.Sid}` : `${policy.name}/#${i + 1}`;
        const actions = list(s.Action);
        const used = mine.filter((d) => (d.matchedStatements ?? []).includes(label));
        const verdict: StatementVerdict = { principal: p.name, statement: label, actions, used: used.length > 0 };
        const sole = used.find((d) => (d.matchedStatements ?? []).length === 1);
        if (sole) {
          const without = p.policies.map((x) => (x !== policy ? x : { name: x.name, document: { ...x.document, Statement: statements.filter((_, j) => j !== i) as PolicyStatement[] } }));
          const replay = await evaluate({
            principalArn: p.roleArn, action: sole.action, resource: sole.resource, accountId: ACCOUNT_ID,
            identityPolicies: without, resourcePolicy: resourcePolicies[resourceArnFor(sole.resource)], context: sole.context,
          });
          if (!replay.allowed) verdict.provenBy = `${sole.action} on ${sole.resource}`;
        }
        report.statements.push(verdict);
        const resources = list(s.Resource);
        for (const a of actions) {
          if (used.some((d) => actionMatches(a, d.action))) continue;
          const grant = `${p.name} ${label} ${a} on ${resources.join(',')}`;
          const allowed = allowedFor(p.name, a, resources, allowList);
          if (allowed) report.allowed.push({ grant, reason: allowed.reason });
          else report.unused.push(grant);
        }
      }
    }
  }
  return report;
}

/** The resource a resource policy is attached to: the bucket of an object, the table of an index. */
function resourceArnFor(resource: string): string {
  const s3 = /^arn:aws:s3:::([^/]+)/.exec(resource);
  return s3 ? `arn:aws:s3:::${s3[1]}` : resource;
}
