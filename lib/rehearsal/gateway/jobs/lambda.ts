/**
 * AWS Lambda's Invoke (REST-JSON, `POST /2015-03-31/functions/{name}/invocations`), for one
 * function starting another: `lambda:InvokeFunction` on the function's ARN (its resource policy
 * beside the caller's), then the rehearsal runs it (`LambdaInvoker`): `Event` queues it and
 * answers 202 (the function's retries and its EventInvokeConfig destinations are the
 * rehearsal's, as the Lambda service's are), `RequestResponse` answers its result (with
 * `X-Amz-Function-Error` when it threw), `DryRun` 204.
 */
import { randomUUID } from 'node:crypto';
import { answering, JobApiError, ok, type JobModule } from './api.js';

export interface LambdaInvoker {
  /** The function's ARN (unqualified) for a name, ARN or partial ARN; undefined when the rehearsal has no such function. */
  arnOf(nameOrArn: string): string | undefined;
  /** Runs it: `Event` resolves once it is queued. */
  invoke(arn: string, payload: unknown, type: 'Event' | 'RequestResponse'): Promise<{ result?: unknown; error?: { errorType: string; errorMessage: string }; requestId?: string }>;
}

export function lambdaInvoke(invoker: () => LambdaInvoker | undefined): JobModule {
  return (r, _runner, scope) => {
    const m = /^\/2015-03-31\/functions\/([^/]+)\/invocations\/?$/.exec(r.path);
    if (!m || r.method !== 'POST') throw new JobApiError('InvalidRequestContentException', `the rehearsal's Lambda serves Invoke only, not ${r.method} ${r.path}`);
    const name = decodeURIComponent(m[1]!);
    const i = invoker();
    const arn = i?.arnOf(name) ?? (name.startsWith('arn:') ? name : `arn:aws:lambda:${scope.region}:${scope.accountId}:function:${name}`);
    const qualifier = r.query.get('Qualifier');
    const type = String(r.headers['x-amz-invocation-type'] ?? 'RequestResponse');
    return {
      checks: [{ action: 'lambda:InvokeFunction', resource: qualifier ? `${arn}:${qualifier}` : arn }],
      serve: answering('lambda', async () => {
        if (!i || !i.arnOf(name)) throw new JobApiError('ResourceNotFoundException', `Function not found: ${arn}`, 404);
        if (type === 'DryRun') return ok('lambda', undefined, 204);
        if (type !== 'Event' && type !== 'RequestResponse') throw new JobApiError('InvalidParameterValueException', `Unsupported invocation type ${type}`);
        const text = r.body?.toString('utf8') ?? '';
        let payload: unknown = {};
        try {
          payload = text === '' ? {} : JSON.parse(text);
        } catch {
          throw new JobApiError('InvalidRequestContentException', 'Could not parse request body into json: Unexpected character');
        }
        const out = await i.invoke(arn, payload, type);
        // The request id the Lambda service answers with is the one its destinations' records carry.
        const id = { 'x-amzn-requestid': out.requestId ?? randomUUID() };
        if (type === 'Event') return ok('lambda', undefined, 202, id);
        if (out.error) return ok('lambda', out.error, 200, { ...id, 'x-amz-function-error': 'Unhandled', 'x-amz-executed-version': '$LATEST' });
        return ok('lambda', out.result ?? null, 200, { ...id, 'x-amz-executed-version': '$LATEST' });
      }),
    };
  };
}
