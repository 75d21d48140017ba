/**
 * IAM policy evaluation with `@cloud-copilot/iam-simulate`: identity policies + resource policy,
 * explicit deny wins, same-account allows from either side, conditions on the context keys
 * the gateway sets. Chosen over `pbac` (MIT, "mostly compatible", no resource policies with
 * principals, unmaintained) because it models AWS's evaluation logic, validates actions and
 * resource types against AWS's own service reference data, and ships that data (no network).
 * Its licence is AGPL-3.0: it is loaded only by the rehearsal, never bundled into a Lambda.
 */
import { runSimulation, type RunSimulationResults } from '@cloud-copilot/iam-simulate';
import type { PolicyDocument } from './index.js';

export interface EvaluateInput {
  /** Role ARN (or session ARN), an account's root ARN, or a service principal such as 'scheduler.amazonaws.com'. */
  principalArn: string;
  action: string;
  resource: string;
  /** The resource's account (the rehearsal has one: 000000000000). */
  accountId: string;
  identityPolicies: { name: string; document: PolicyDocument }[];
  resourcePolicy?: PolicyDocument;
  context?: Record<string, string | string[]>;
}

export interface EvaluateResult {
  allowed: boolean;
  reason: 'Allowed' | 'ImplicitlyDenied' | 'ExplicitlyDenied' | 'InvalidRequest';
  /** Where an explicit deny came from. */
  deniedBy?: 'identity' | 'resource';
  /** Allow statements that granted it, as `policyName/Sid` (or `policyName/#N`, 1-based, when a statement has no Sid). */
  matchedStatements: string[];
  /** Why the simulation could not run (unknown action, resource of the wrong type...). */
  error?: string;
}

interface StatementMatch { policyId?: string; explain?: { identifier?: string } }
interface Analysis {
  identityAnalysis?: { allowStatements?: StatementMatch[]; denyStatements?: StatementMatch[] };
  resourceAnalysis?: { allowStatements?: StatementMatch[]; denyStatements?: StatementMatch[] };
}

const label = (s: StatementMatch, fallback: string): string => {
  const id = s.explain?.identifier ?? '?';
  return `${s.policyId ?? fallback}/${/^\d+$/.test(id) ? `#${id}` : id}`;
};

/**
 * Evaluate one request. Pure apart from the library: nothing is recorded.
 *
 * @example
 * const r = await evaluate({ principalArn: 'arn:aws:iam::000000000000:role/Worker', action: 'sqs:SendMessage',
 *   resource: 'arn:aws:sqs:us-east-1:000000000000:ready', accountId: '000000000000',
 *   identityPolicies: [{ name: 'p', document: { Statement: [{ Effect: 'Allow', Action: 'sqs:*', Resource: '*' }] } }] });
 * r.allowed // true
 */
export async function evaluate(input: EvaluateInput): Promise<EvaluateResult> {
  const result: RunSimulationResults = await runSimulation(
    {
      request: {
        principal: input.principalArn,
        action: input.action,
        resource: { resource: input.resource, accountId: input.accountId },
        contextVariables: input.context ?? {},
      },
      identityPolicies: input.identityPolicies.map((p) => ({ name: p.name, policy: withVersion(p.document) })),
      serviceControlPolicies: [],
      resourceControlPolicies: [],
      ...(input.resourcePolicy ? { resourcePolicy: withVersion(input.resourcePolicy) } : {}),
    },
    {},
  );
  if (result.resultType === 'error') {
    return { allowed: false, reason: 'InvalidRequest', matchedStatements: [], error: describeErrors(result.errors) };
  }
  const analysis = (result.resultType === 'single' ? result.result.analysis : result.results[0]?.analysis) as Analysis | undefined;
  const overall = result.overallResult as EvaluateResult['reason'];
  const allowed = overall === 'Allowed';
  const matched = allowed
    ? [
        ...(analysis?.identityAnalysis?.allowStatements ?? []).map((s) => label(s, 'identity')),
        ...(analysis?.resourceAnalysis?.allowStatements ?? []).map((s) => label(s, 'resource-policy')),
      ]
    : [];
  const deniedBy = overall !== 'ExplicitlyDenied' ? undefined
    : (analysis?.identityAnalysis?.denyStatements ?? []).length > 0 ? 'identity' as const : 'resource' as const;
  return { allowed, reason: overall, matchedStatements: matched, ...(deniedBy ? { deniedBy } : {}) };
}

// CloudFormation templates usually carry "Version": "2012-10-17"; a policy without it is read
// by AWS with the 2008 grammar (no policy variables), which the simulator rejects.
function withVersion(doc: PolicyDocument): PolicyDocument {
  return doc.Version ? doc : { Version: '2012-10-17', ...doc };
}

function describeErrors(errors: { message: string }): string {
  const detail = Object.entries(errors)
    .filter(([k]) => k !== 'message')
    .map(([k, v]) => `${k}: ${JSON.stringify(v)}`)
    .join('; ');
  return detail ? `${errors.message} (${detail})` : errors.message;
}
