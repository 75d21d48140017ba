/**
 * One local endpoint for the AWS services the bundled worker calls (AWS_ENDPOINT_URL, as
 * LocalStack sets it in its Lambda containers): requests are routed by their protocol to
 * DynamoDB Local, local-aws-sqs or s3rver, and counted on the wire. The worker's bundle
 * has its own copies of the adapters, so what it spends is read here, not from its store:
 * DynamoDB capacity from each response's `ConsumedCapacity` (every request of the store
 * asks for it), SQS requests by action (a batch is one request) and the messages sent.
 */
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What passed through the proxy so far. */
export interface WireUsage {
  dynamoRequests: number;
  wcu: number;
  rcu: number;
  /** SQS requests by action (`SendMessageBatch`, `ReceiveMessage`, ...). */
  sqs: Record<string, number>;
  /** Messages put on queues (SendMessage and each SendMessageBatch entry). */
  messagesSent: number;
  s3Requests: number;
  /** Requests for a service the proxy does not route (EventBridge Scheduler...): answered 501. */
  unrouted: number;
}

export interface AwsProxy {
  url: string;
  usage: WireUsage;
  /** A copy of the counters now. */
  snapshot(): WireUsage;
  close(): Promise<void>;
}

const WRITES = new Set(['PutItem', 'UpdateItem', 'DeleteItem', 'TransactWriteItems', 'BatchWriteItem']);

function emptyUsage(): WireUsage {
  return { dynamoRequests: 0, wcu: 0, rcu: 0, sqs: {}, messagesSent: 0, s3Requests: 0, unrouted: 0 };
}

async function readAll(stream: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

type Capacity = { CapacityUnits?: number; ReadCapacityUnits?: number; WriteCapacityUnits?: number };

/**
 * Starts the proxy on 127.0.0.1 at a free port.
 *
 * @example
 * const proxy = await startAwsProxy({ dynamodb: ddbEndpoint, sqs: sqsEndpoint, s3: s3Endpoint });
 * process.env.AWS_ENDPOINT_URL = proxy.url;
 */
export async function startAwsProxy(upstream: { dynamodb: string; sqs: string; s3: string }): Promise<AwsProxy> {
  const usage = emptyUsage();
  const forward = (req: IncomingMessage, res: ServerResponse, to: string, body: Buffer | undefined, onBody?: (b: Buffer) => void) => {
    const target = new URL(to);
    const out = request(
      { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers },
      async (up) => {
        if (!onBody) {
          res.writeHead(up.statusCode ?? 502, up.headers);
          up.pipe(res);
          return;
        }
        const b = await readAll(up);
        onBody(b);
        res.writeHead(up.statusCode ?? 502, up.headers);
        res.end(b);
      },
    );
    out.on('error', (err) => {
      res.writeHead(502, { 'content-type': 'text/plain' });
      res.end(String(err));
    });
    if (body) out.end(body);
    else req.pipe(out);
  };

  const server: Server = createServer((req, res) => {
    const target = String(req.headers['x-amz-target'] ?? '');
    if (target.startsWith('DynamoDB_')) {
      const op = target.slice(target.indexOf('.') + 1);
      usage.dynamoRequests++;
      void readAll(req).then((body) => forward(req, res, upstream.dynamodb, body, (b) => {
        let cc: Capacity | Capacity[] | undefined;
        try {
          cc = (JSON.parse(b.toString('utf8')) as { ConsumedCapacity?: Capacity | Capacity[] }).ConsumedCapacity;
        } catch {
          return;
        }
        for (const c of Array.isArray(cc) ? cc : cc ? [cc] : []) {
          const write = WRITES.has(op);
          usage.wcu += c.WriteCapacityUnits ?? (write ? (c.CapacityUnits ?? 0) : 0);
          usage.rcu += c.ReadCapacityUnits ?? (write ? 0 : (c.CapacityUnits ?? 0));
        }
      }));
      return;
    }
    if (target.startsWith('AmazonSQS.')) {
      const action = target.slice('AmazonSQS.'.length);
      usage.sqs[action] = (usage.sqs[action] ?? 0) + 1;
      void readAll(req).then((body) => {
        if (action === 'SendMessage') usage.messagesSent++;
        if (action === 'SendMessageBatch') usage.messagesSent += ((JSON.parse(body.toString('utf8')) as { Entries?: unknown[] }).Entries ?? []).length;
        forward(req, res, upstream.sqs, body);
      });
      return;
    }
    const auth = String(req.headers.authorization ?? '');
    if (auth.includes('/scheduler/') || auth.includes('/ssm/') || auth.includes('/secretsmanager/')) {
      usage.unrouted++;
      res.writeHead(501, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ message: 'not served by the bench proxy' }));
      return;
    }
    usage.s3Requests++;
    forward(req, res, upstream.s3, undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    usage,
    snapshot: () => ({ ...usage, sqs: { ...usage.sqs } }),
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

/** `b - a`, field by field. */
export function usageDiff(a: WireUsage, b: WireUsage): WireUsage {
  const sqs: Record<string, number> = {};
  for (const k of new Set([...Object.keys(a.sqs), ...Object.keys(b.sqs)])) sqs[k] = (b.sqs[k] ?? 0) - (a.sqs[k] ?? 0);
  return {
    dynamoRequests: b.dynamoRequests - a.dynamoRequests, wcu: b.wcu - a.wcu, rcu: b.rcu - a.rcu, sqs,
    messagesSent: b.messagesSent - a.messagesSent, s3Requests: b.s3Requests - a.s3Requests, unrouted: b.unrouted - a.unrouted,
  };
}
