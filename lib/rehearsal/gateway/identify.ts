/**
 * Who is calling and which service: read from the SigV4 credential scope
 * (`Credential=AKID/DATE/REGION/SERVICE/aws4_request`, in the Authorization header or a
 * presigned URL's X-Amz-Credential). The signature itself is NOT verified: the rehearsal
 * runs on one machine for one user, and the point is which role calls, not who may connect.
 */
import type { IncomingHttpHeaders } from 'node:http';

export interface Credential {
  accessKeyId: string;
  region: string;
  /** SigV4 signing name: dynamodb, sqs, s3, scheduler, logs... */
  service: string;
}

const SCOPE = /Credential=([^/,\s]+)\/\d{8}\/([^/]+)\/([^/]+)\/aws4_request/;

/**
 * @example
 * credentialOf({ authorization: 'AWS4-HMAC-SHA256 Credential=AKID/20260101/us-east-1/sqs/aws4_request, ...' }, new URLSearchParams())
 * // { accessKeyId: 'AKID', region: 'us-east-1', service: 'sqs' }
 */
export function credentialOf(headers: IncomingHttpHeaders, query: URLSearchParams): Credential | undefined {
  const auth = headers.authorization;
  const fromHeader = typeof auth === 'string' ? SCOPE.exec(auth) : null;
  const presigned = query.get('X-Amz-Credential');
  const m = fromHeader ?? (presigned ? SCOPE.exec(`Credential=${presigned}`) : null);
  if (!m) return undefined;
  return { accessKeyId: m[1]!, region: m[2]!, service: m[3]! };
}

/** The same headers with the credential's access key id replaced (the local servers key their data or accounts by it). */
export function withAccessKey(headers: IncomingHttpHeaders, accessKeyId: string): IncomingHttpHeaders {
  const auth = headers.authorization;
  if (typeof auth !== 'string') return headers;
  return { ...headers, authorization: auth.replace(/Credential=[^/,\s]+\//, `Credential=${accessKeyId}/`) };
}

/** The STS session ARN AWS shows for a role's session: arn:aws:sts::ACCOUNT:assumed-role/ROLE/SESSION. */
export function sessionArn(roleArn: string, session: string): string {
  const m = /^arn:aws:iam::(\d+):role\/(?:.*\/)?([^/]+)$/.exec(roleArn);
  return m ? `arn:aws:sts::${m[1]}:assumed-role/${m[2]}/${session}` : roleArn;
}
