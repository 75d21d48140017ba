/**
 * The gateway's HTTP server: identify → work out the IAM checks → authorize → forward to
 * the local server (DynamoDB Local, local-aws-sqs, s3rver) or serve from the Scheduler
 * emulator. Bodies of JSON protocols are read whole (their parameters name the resource);
 * S3 bodies stream through untouched, except DeleteObjects whose keys must be read and
 * aws-chunked uploads, which are decoded as S3 does (s3rver would store the framing).
 */
import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Access } from './access.js';
import { decodeAwsChunked, decodedHeaders, isAwsChunked } from './aws-chunked.js';
import { dynamodbChecks } from './actions-dynamodb.js';
import { deleteObjectsKeys, s3Checks, s3Target } from './actions-s3.js';
import { schedulerChecks } from './actions-scheduler.js';
import { sqsChecks } from './actions-sqs.js';
import { evaluate } from './authorize.js';
import type { Check } from './checks.js';
import { accessDenied, deniedMessage, errorResponse, GatewayError, unknownAccessKey, type GatewayResponse, type Service } from './errors.js';
import { credentialOf, withAccessKey } from './identify.js';
import type { Gateway, GatewayOptions, Principal } from './index.js';
import { Scheduler } from './scheduler/emulator.js';
import { schedulerRoute, serveScheduler } from './scheduler/http.js';
import { settingsRequest, settingsStores } from './params/index.js';
import { JobApiError, jobsAndEvents } from './jobs-events.js';
import { faultError, Faults, noSuchKey } from './faults.js';

const SERVICES = new Set<Service>(['dynamodb', 'sqs', 's3', 'scheduler', 'ssm', 'secretsmanager']);
const GATEWAY_HOSTS = ['localhost', '127.0.0.1'];

/**
 * Start the gateway on 127.0.0.1 at a free port.
 *
 * @example
 * const gw = await startGateway({ region: 'us-east-1', accountId: '000000000000', upstream, resourcePolicies: {}, principals, clock: () => Date.now() });
 * new SQSClient({ endpoint: gw.url, credentials: { accessKeyId: principals[0].accessKeyId, secretAccessKey: 'x' } });
 */
export async function startGateway(o: GatewayOptions): Promise<Gateway> {
  const access = new Access(o);
  const scheduler = new Scheduler({
    region: o.region,
    accountId: o.accountId,
    clock: o.clock,
    authorizeFire: (fire) => access.authorizeFire(fire),
    ...(o.onScheduleFire ? { onFire: o.onScheduleFire } : {}),
  });
  const scope = { region: o.region, accountId: o.accountId };
  const upstreamKey = o.upstreamAccessKeyId ?? 'S3RVER';
  const settings = settingsStores(scope);
  const extra = jobsAndEvents(o, access);
  const faults = new Faults();

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://gateway');
    const cred = credentialOf(req.headers, url.searchParams);
    const target = String(req.headers['x-amz-target'] ?? '');
    const service = (cred?.service ?? (target.startsWith('DynamoDB_') ? 'dynamodb' : target.startsWith('AmazonSQS.') ? 'sqs' : 's3')) as Service;
    if (!SERVICES.has(service) && !extra.serves(service)) {
      return send(res, { status: 400, headers: { 'content-type': 'application/json', 'x-amzn-errortype': 'UnknownOperationException' }, body: JSON.stringify({ message: `The rehearsal gateway does not serve the '${service}' service` }) });
    }
    const principal = access.byKey(cred?.accessKeyId ?? '');
    if (!principal) return send(res, unknownAccessKey(service, cred?.accessKeyId ?? '(unsigned)'));

    const chunked = service === 's3' && isAwsChunked(req.headers);
    const streamS3 = service === 's3' && !chunked && !(req.method === 'POST' && url.searchParams.has('delete'));
    const body = streamS3 ? undefined : await readBody(req);
    let checks: Check[];
    let route: ReturnType<typeof schedulerRoute> | undefined;
    let local: (() => GatewayResponse | Promise<GatewayResponse>) | undefined;
    let path = url.pathname + url.search;
    try {
      const json = () => (body && body.length ? JSON.parse(body.toString('utf8')) as Record<string, unknown> : {});
      if (service === 'dynamodb') checks = dynamodbChecks(target, json(), scope);
      else if (service === 'sqs') checks = sqsChecks(target, json(), scope);
      else if (service === 'scheduler') {
        route = schedulerRoute(req.method ?? 'GET', url.pathname, url.searchParams, json());
        checks = schedulerChecks(route, scope);
      } else if (service === 'ssm' || service === 'secretsmanager') {
        ({ checks, serve: local } = settingsRequest(service, target, json(), scope, settings, o.clock));
      } else if (extra.serves(service)) {
        ({ checks, serve: local } = extra.request(service, req, url, target, body, principal));
      } else {
        const t = s3Target(String(req.headers.host ?? ''), url.pathname, GATEWAY_HOSTS);
        path = t.pathStyle + url.search;
        checks = s3Checks(req.method ?? 'GET', t, url.searchParams, req.headers, body && !chunked ? deleteObjectsKeys(body.toString('utf8')) : []);
      }
    } catch (err) {
      if (err instanceof JobApiError) return send(res, errorResponse(service, err.status, err.code, err.message));
      const message = err instanceof GatewayError ? err.message : `malformed ${service} request: ${(err as Error).message}`;
      req.resume();
      return send(res, errorResponse(service, 400, service === 's3' ? 'InvalidRequest' : 'ValidationException', message));
    }

    for (const c of checks) {
      const { result, callerArn } = await access.check(principal, c);
      if (!result.allowed) {
        req.resume();
        const why = result.reason === 'ExplicitlyDenied' ? (result.deniedBy === 'identity' ? 'identity-deny' : 'resource-deny') : 'implicit';
        return send(res, accessDenied(service, deniedMessage(callerArn, c.action, c.resource, why)));
      }
    }

    const fault = faults.take(principal.name, checks);
    if (fault) {
      req.resume();
      if (fault.kind === 'error' || service !== 's3') return send(res, faultError(service));
      const bucket = checks[0]!.resource.replace(/^(arn:aws:s3:::[^/]+)\/.*$/, '$1');
      const list = await access.check(principal, { action: 's3:ListBucket', resource: bucket });
      return send(res, list.result.allowed ? noSuchKey(checks[0]!.resource) : accessDenied('s3', deniedMessage(list.callerArn, 's3:ListBucket', bucket, 'implicit')));
    }
    if (route) return send(res, serveScheduler(scheduler, route));
    if (local) return send(res, await local());
    if (chunked && body) {
      const payload = decodeAwsChunked(body);
      return forward(req, res, o.upstream.s3, path, upstreamKey, payload, decodedHeaders(req.headers, payload.length));
    }
    // S3 answers a missing key with 404 only to a caller that may list the bucket; anyone
    // else gets 403 AccessDenied (so it cannot probe for keys). The check is recorded.
    const read = checks.length === 1 && /^s3:GetObject(Version)?$/.test(checks[0]!.action) ? checks[0]! : undefined;
    const onMissing = read && (async (): Promise<GatewayResponse | undefined> => {
      const bucket = read.resource.replace(/^(arn:aws:s3:::[^/]+)\/.*$/, '$1');
      const list = await access.check(principal, { action: 's3:ListBucket', resource: bucket });
      return list.result.allowed ? undefined : accessDenied('s3', deniedMessage(list.callerArn, 's3:ListBucket', bucket, 'implicit'));
    });
    forward(req, res, o.upstream[service as 'dynamodb' | 'sqs' | 's3'], path, upstreamKey, body, req.headers, onMissing || undefined);
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) send(res, { status: 500, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ message: `rehearsal gateway: ${(err as Error).message}` }) });
      else res.destroy(err as Error);
    });
  });
  // Longer than any pause between a container's calls, so a kept-alive socket is not closed
  // just as the SDK reuses it (a spurious "socket hang up"); close() ends them all anyway.
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url,
    decisions: access.decisions,
    scheduler,
    events: extra.events,
    jobs: extra.jobs,
    faults,
    setJobHooks: (h) => Object.assign(extra.hooks, h),
    evaluate,
    async authorize(p: Principal | string, action: string, resource: string, context?: Record<string, string | string[]>) {
      const c = { action, resource, ...(context ? { context } : {}) };
      if (typeof p !== 'string') return (await access.check(p, c)).result.allowed;
      const known = access.byName(p);
      if (known) return (await access.check(known, c)).result.allowed;
      if (p.endsWith('.amazonaws.com')) return (await access.checkService(p, c)).result.allowed;
      access.refuse(p, c, 'UnknownPrincipal');
      return false;
    },
    close: () => new Promise<void>((resolve, reject) => {
      server.closeAllConnections();
      server.close((err) => (err ? reject(err) : resolve()));
    }),
  };
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function send(res: ServerResponse, r: GatewayResponse): void {
  res.writeHead(r.status, { ...r.headers, 'content-length': Buffer.byteLength(r.body) });
  res.end(r.body);
}

/** Pass the request on unchanged but for the host and the credential's key id; stream the answer back. */
function forward(
  req: IncomingMessage, res: ServerResponse, base: string, path: string, upstreamKey: string, body: Buffer | undefined, reqHeaders = req.headers,
  onMissing?: () => Promise<GatewayResponse | undefined>,
): void {
  const up = new URL(base);
  const headers = { ...withAccessKey(reqHeaders, upstreamKey), host: up.host };
  const out = request({ hostname: up.hostname, port: up.port, method: req.method, path, headers }, (answer) => {
    if (answer.statusCode === 404 && onMissing) {
      const chunks: Buffer[] = [];
      answer.on('data', (c: Buffer) => chunks.push(c));
      answer.on('end', () => {
        onMissing().then((denied) => {
          if (denied) return send(res, denied);
          res.writeHead(404, answer.headers);
          res.end(Buffer.concat(chunks));
        }).catch((err: Error) => res.destroy(err));
      });
      return;
    }
    res.writeHead(answer.statusCode ?? 502, answer.headers);
    answer.pipe(res);
  });
  out.on('error', (err) => {
    if (!res.headersSent) send(res, { status: 502, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ message: `rehearsal gateway: upstream ${base} failed: ${err.message}` }) });
    else res.destroy(err);
  });
  if (body) out.end(body);
  else req.pipe(out);
}
