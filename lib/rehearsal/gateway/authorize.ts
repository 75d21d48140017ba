import type { PolicyDocument } from './index.js';

export interface EvaluateInput {
  principalArn: string;
  action: string;
  resource: string;
  accountId: string;
  identityPolicies: { name: string; document: PolicyDocument }[];
  resourcePolicy?: PolicyDocument;
  context?: Record<string, string | string[]>;
}

export interface EvaluateResult {
  allowed: boolean;
  reason: 'Allowed' | 'ImplicitlyDenied' | 'ExplicitlyDenied' | 'InvalidRequest';
  matchedStatements: string[];
}

/** Evaluate one request with a real IAM evaluator (stub; implemented next). */
export async function evaluate(_input: EvaluateInput): Promise<EvaluateResult> {
  throw new Error('not implemented yet');
}
