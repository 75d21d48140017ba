/**
 * Error responses shaped as each AWS protocol sends them, so the real SDK clients raise the
 * same error names and messages they raise against AWS.
 */

/** The services the gateway knows, by SigV4 signing name. */
export type Service = 'dynamodb' | 'sqs' | 's3' | 'scheduler' | 'ssm' | 'secretsmanager'
  // EventBridge and the job services (events/, jobs/): JSON 1.1, JSON 1.0 (states) or REST-JSON.
  | 'events' | 'ecs' | 'glue' | 'athena' | 'states' | 'batch' | 'emr-serverless' | 'lambda';

export interface GatewayResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Root of the gateway's own errors (bad requests it cannot route). */
export class GatewayError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'GatewayError';
  }
}

const xmlEscape = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/**
 * One error in the protocol of `service`: JSON 1.0 `__type` (DynamoDB, SQS), REST-JSON
 * `x-amzn-errortype` (Scheduler), or S3's XML `<Error>`.
 *
 * @example
 * errorResponse('dynamodb', 400, 'AccessDeniedException', 'User: ... is not authorized ...')
 */
export function errorResponse(service: Service, status: number, code: string, message: string, requestId = 'rehearsal'): GatewayResponse {
  switch (service) {
    case 'dynamodb':
      return json(status, { __type: `com.amazon.coral.service#${code}`, Message: message }, 'application/x-amz-json-1.0', requestId);
    case 'sqs':
      return json(status, { __type: `com.amazon.coral.service#${code}`, message }, 'application/x-amz-json-1.0', requestId);
    case 'ssm':
    case 'secretsmanager':
    case 'events':
    case 'ecs':
    case 'glue':
    case 'athena':
      return json(status, { __type: code, message }, 'application/x-amz-json-1.1', requestId);
    case 'states':
      return json(status, { __type: code, message }, 'application/x-amz-json-1.0', requestId);
    case 'batch':
    case 'emr-serverless':
    case 'lambda':
    case 'scheduler':
      return {
        status,
        headers: { 'content-type': 'application/json', 'x-amzn-errortype': code, 'x-amzn-requestid': requestId },
        body: JSON.stringify({ Message: message, message }),
      };
    case 's3':
      return {
        status,
        headers: { 'content-type': 'application/xml', 'x-amz-request-id': requestId },
        body: `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${xmlEscape(code)}</Code><Message>${xmlEscape(message)}</Message><RequestId>${requestId}</RequestId></Error>`,
      };
  }
}

function json(status: number, body: unknown, contentType: string, requestId: string): GatewayResponse {
  return { status, headers: { 'content-type': contentType, 'x-amzn-requestid': requestId }, body: JSON.stringify(body) };
}

/**
 * AWS's access-denied message. The caller is shown as the Lambda session ARN
 * (`arn:aws:sts::ACCOUNT:assumed-role/ROLE/SESSION`), as AWS shows it.
 */
export function deniedMessage(caller: string, action: string, resource: string, why: 'implicit' | 'identity-deny' | 'resource-deny'): string {
  const because =
    why === 'implicit' ? `because no identity-based policy allows the ${action} action`
      : why === 'identity-deny' ? 'with an explicit deny in an identity-based policy'
        : 'with an explicit deny in a resource-based policy';
  return `User: ${caller} is not authorized to perform: ${action} on resource: ${resource} ${because}`;
}

/** The access-denied response of `service` (S3: 403 AccessDenied; Scheduler: 403; DynamoDB/SQS: 400). */
export function accessDenied(service: Service, message: string): GatewayResponse {
  if (service === 's3') return errorResponse('s3', 403, 'AccessDenied', message);
  if (service === 'scheduler' || service === 'batch' || service === 'emr-serverless' || service === 'lambda') return errorResponse(service, 403, 'AccessDeniedException', message);
  return errorResponse(service, 400, 'AccessDeniedException', message);
}

/** The unknown-access-key response of `service`, as AWS sends it. */
export function unknownAccessKey(service: Service, accessKeyId: string): GatewayResponse {
  if (service === 's3') return errorResponse('s3', 403, 'InvalidAccessKeyId', `The AWS Access Key Id you provided does not exist in our records. (${accessKeyId})`);
  if (service === 'sqs') return errorResponse('sqs', 403, 'InvalidClientTokenId', 'The security token included in the request is invalid.');
  if (service === 'scheduler' || service === 'batch' || service === 'emr-serverless' || service === 'lambda') return errorResponse(service, 403, 'UnrecognizedClientException', 'The security token included in the request is invalid.');
  return errorResponse(service, 400, 'UnrecognizedClientException', 'The security token included in the request is invalid.');
}
