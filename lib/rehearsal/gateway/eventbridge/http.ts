/**
 * EventBridge's API as the gateway serves it (JSON 1.1, `X-Amz-Target: AWSEvents.Op`): PutEvents,
 * the call that Airless and users' systems make. IAM sees one `events:PutEvents` per entry on
 * its bus's ARN, with `events:source` and `events:detail-type` as context (the condition keys
 * EventBridge sets), and the bus's resource policy beside the caller's.
 */
import type { Check, Scope } from '../checks.js';
import { errorResponse, GatewayError, type GatewayResponse } from '../errors.js';
import { DeliveryError, type EventBridge } from './bus.js';
import type { PutEventsEntry } from './types.js';

/**
 * @example
 * const { checks, serve } = eventsRequest('AWSEvents.PutEvents', { Entries: [...] }, scope, eventBridge);
 */
export function eventsRequest(target: string, body: Record<string, unknown>, scope: Scope, eb: EventBridge): { checks: Check[]; serve: () => GatewayResponse } {
  const op = target.split('.')[1];
  if (op !== 'PutEvents') throw new GatewayError(`the EventBridge emulator serves PutEvents only, not ${op ?? target}`);
  const entries = (Array.isArray(body.Entries) ? body.Entries : []) as PutEventsEntry[];
  const busArn = (name: string | undefined) => (name?.startsWith('arn:') ? name : `arn:aws:events:${scope.region}:${scope.accountId}:event-bus/${name || 'default'}`);
  const checks: Check[] = entries.map((e) => ({
    action: 'events:PutEvents',
    resource: busArn(e.EventBusName),
    // Both keys are multivalued (ArrayOfString): one value per entry.
    context: { 'events:source': [String(e.Source ?? '')], 'events:detail-type': [String(e.DetailType ?? '')] },
  }));
  return {
    checks,
    serve: () => {
      try {
        return { status: 200, headers: { 'content-type': 'application/x-amz-json-1.1' }, body: JSON.stringify(eb.putEvents(entries)) };
      } catch (err) {
        if (err instanceof DeliveryError) return errorResponse('events', 400, err.code, err.message);
        throw err;
      }
    },
  };
}
