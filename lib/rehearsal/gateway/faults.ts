/**
 * Faults a scenario injects into AWS's answers, after IAM allowed the call (so the decision is
 * recorded as any other): `error` answers a 500 (a service's internal error, which the SDK
 * retries and a function then fails on), `missing` answers an S3 read as if the object were
 * gone (404 to a caller that may list the bucket, 403 otherwise, as S3 answers). Each fault
 * matches the caller, the action and the resource, a number of times.
 */
import type { Check } from './checks.js';
import { errorResponse, type GatewayResponse, type Service } from './errors.js';

export interface Fault {
  /** The caller's principal name (a function's logical id, `cli`). */
  principal: RegExp;
  action: string;
  resource?: RegExp;
  kind: 'error' | 'missing';
  /** @default Infinity */
  times?: number;
}

/**
 * @example
 * gateway.faults.add({ principal: /Events/, action: 's3:GetObject', resource: /\/blobs\/conf\//, kind: 'missing' });
 */
export class Faults {
  private readonly list: (Fault & { left: number })[] = [];
  /** Every call a fault answered: principal, action, resource. */
  readonly hits: { principal: string; action: string; resource: string; kind: Fault['kind'] }[] = [];

  add(f: Fault): void {
    this.list.push({ ...f, left: f.times ?? Infinity });
  }

  clear(): void {
    this.list.length = 0;
  }

  /** The fault that answers this call, if any (one use of it is spent). */
  take(principal: string, checks: readonly Check[]): Fault | undefined {
    for (const f of this.list) {
      if (f.left <= 0 || !f.principal.test(principal)) continue;
      const c = checks.find((x) => x.action === f.action && (!f.resource || f.resource.test(x.resource)));
      if (!c) continue;
      f.left--;
      this.hits.push({ principal, action: c.action, resource: c.resource, kind: f.kind });
      return f;
    }
    return undefined;
  }
}

/** The answer of an `error` fault in the service's protocol. */
export function faultError(service: Service): GatewayResponse {
  return errorResponse(service, 500, service === 's3' ? 'InternalError' : 'InternalServerError', 'We encountered an internal error. Please try again. (injected by the rehearsal)');
}

/** S3's answer to a read of a missing key: NoSuchKey. */
export function noSuchKey(key: string): GatewayResponse {
  return errorResponse('s3', 404, 'NoSuchKey', `The specified key does not exist. (${key})`);
}
