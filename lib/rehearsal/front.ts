/**
 * The endpoint the CLI is given (`--endpoint` / AIRLESS_AWS_ENDPOINT): CloudFormation
 * DescribeStacks (the stack outputs, resolved) and CloudWatch Logs FilterLogEvents (the
 * function log streams) answered here; every other request passes to the gateway, which
 * authorizes and forwards it as it does the functions' requests.
 */
import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { LogSink } from './logs.js';
import { ACCOUNT_ID, REGION } from './template.js';

export interface Front {
  url: string;
  close(): Promise<void>;
}

const xml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/**
 * @example
 * const front = await startFront({ gatewayUrl, stackName: 'Airless', outputs, logs });
 */
export async function startFront(o: { gatewayUrl: string; stackName: string; outputs: Record<string, string>; logs: LogSink }): Promise<Front> {
  const gateway = new URL(o.gatewayUrl);
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      try {
        if (answerCloudFormation(req, body, res, o) || answerLogs(req, body, res, o.logs)) return;
      } catch (e) {
        res.statusCode = 500;
        res.end(String(e));
        return;
      }
      const up = request({ host: gateway.hostname, port: gateway.port, method: req.method, path: req.url, headers: req.headers }, (r) => {
        res.writeHead(r.statusCode ?? 502, r.headers);
        r.pipe(res);
      });
      up.on('error', (e) => {
        res.statusCode = 502;
        res.end(String(e));
      });
      up.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

function answerCloudFormation(req: IncomingMessage, body: Buffer, res: ServerResponse, o: { stackName: string; outputs: Record<string, string> }): boolean {
  if (!String(req.headers['content-type'] ?? '').includes('x-www-form-urlencoded')) return false;
  const form = new URLSearchParams(body.toString('utf8'));
  const action = form.get('Action');
  if (action !== 'DescribeStacks') return false;
  res.setHeader('content-type', 'text/xml');
  const name = form.get('StackName') ?? o.stackName;
  if (name !== o.stackName) {
    res.statusCode = 400;
    res.end(`<ErrorResponse xmlns="http://cloudformation.amazonaws.com/doc/2010-05-15/"><Error><Type>Sender</Type><Code>ValidationError</Code><Message>Stack with id ${xml(name)} does not exist</Message></Error><RequestId>rehearsal</RequestId></ErrorResponse>`);
    return true;
  }
  const outputs = Object.entries(o.outputs).map(([k, v]) => `<member><OutputKey>${xml(k)}</OutputKey><OutputValue>${xml(v)}</OutputValue></member>`).join('');
  res.end(`<DescribeStacksResponse xmlns="http://cloudformation.amazonaws.com/doc/2010-05-15/"><DescribeStacksResult><Stacks><member>`
    + `<StackName>${xml(o.stackName)}</StackName><StackId>arn:aws:cloudformation:${REGION}:${ACCOUNT_ID}:stack/${xml(o.stackName)}/rehearsal</StackId>`
    + `<CreationTime>2026-01-01T00:00:00Z</CreationTime><StackStatus>CREATE_COMPLETE</StackStatus><Outputs>${outputs}</Outputs>`
    + `</member></Stacks></DescribeStacksResult><ResponseMetadata><RequestId>rehearsal</RequestId></ResponseMetadata></DescribeStacksResponse>`);
  return true;
}

/** `{ ($.a = "x") && ($.n = 2) }`: the equality terms `airless logs` uses. */
function matchesPattern(pattern: string | undefined, message: string): boolean {
  if (!pattern) return true;
  const terms = [...pattern.matchAll(/\$\.([A-Za-z0-9_]+)\s*=\s*("(?:[^"\\]|\\.)*"|[^\s)]+)/g)];
  if (terms.length === 0) return message.includes(pattern.replace(/^"|"$/g, ''));
  const start = message.indexOf('{');
  if (start < 0) return false;
  let line: Record<string, unknown>;
  try {
    line = JSON.parse(message.slice(start));
  } catch {
    return false;
  }
  return terms.every(([, key, raw]) => String(line[key]) === String(JSON.parse(raw)));
}

function answerLogs(req: IncomingMessage, body: Buffer, res: ServerResponse, logs: LogSink): boolean {
  const target = String(req.headers['x-amz-target'] ?? '');
  if (!target.startsWith('Logs_20140328.')) return false;
  res.setHeader('content-type', 'application/x-amz-json-1.1');
  if (target !== 'Logs_20140328.FilterLogEvents') {
    res.statusCode = 400;
    res.end(JSON.stringify({ __type: 'InvalidOperationException', message: `the rehearsal answers only FilterLogEvents, not ${target}` }));
    return true;
  }
  const q = JSON.parse(body.toString('utf8') || '{}') as { logGroupName?: string; filterPattern?: string; startTime?: number; endTime?: number };
  const events = logs.events
    .filter((e) => e.logGroupName === q.logGroupName)
    .filter((e) => (q.startTime === undefined || e.timestamp >= q.startTime) && (q.endTime === undefined || e.timestamp <= q.endTime))
    .filter((e) => matchesPattern(q.filterPattern, e.message))
    .map((e, i) => ({ logStreamName: `rehearsal/${e.functionName}`, timestamp: e.timestamp, ingestionTime: e.timestamp, message: e.message, eventId: String(i) }));
  res.end(JSON.stringify({ events, searchedLogStreams: [] }));
  return true;
}
