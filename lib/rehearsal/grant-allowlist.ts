/**
 * Grants no rehearsal scenario can use but a real code path needs. The least-privilege
 * scenario fails on any unused grant that is not listed here; each entry names one action
 * on one resource, with the reason it must stay. Entries are matched by the role's logical
 * id, the action, and a fragment of the statement's resource, so renaming a construct
 * shows up here as an unexplained grant rather than silently passing.
 */

export interface AllowedGrant {
  /** Fragment of the role's (or its function's) logical id: `Tick`, `InvokerRole`. */
  principal: string;
  action: string;
  /** Fragment of one of the statement's resource ARNs. */
  resource: string;
  /** One line: the code path that needs it, and why no scenario reaches it. */
  reason: string;
}

/**
 * Empty since issue 9's scenarios reach every grant the stack holds (readme, faults, paths,
 * recovery, settings). Add an entry only for a path no scenario can reach, with its reason.
 *
 * @example
 * ALLOWED_UNUSED.find((a) => a.action === 'ssm:GetParameter')?.reason;
 */
export const ALLOWED_UNUSED: readonly AllowedGrant[] = [];

/** The allow-list entry that explains an unused grant, if any. */
export function allowedFor(principal: string, action: string, resources: readonly string[], list: readonly AllowedGrant[] = ALLOWED_UNUSED): AllowedGrant | undefined {
  return list.find((a) => principal.includes(a.principal) && a.action === action && resources.some((r) => r.toLowerCase().includes(a.resource.toLowerCase())));
}
