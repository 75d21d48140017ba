/** What one AWS request asks IAM: one or more (action, resource, context) checks, all of which must pass. */
export interface Check {
  action: string;
  resource: string;
  context?: Record<string, string | string[]>;
}

/** Where the request is evaluated: region and account of the rehearsal. */
export interface Scope {
  region: string;
  accountId: string;
}

export const unique = (checks: Check[]): Check[] => {
  const seen = new Set<string>();
  return checks.filter((c) => {
    const k = `${c.action} ${c.resource} ${JSON.stringify(c.context ?? {})}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
};
