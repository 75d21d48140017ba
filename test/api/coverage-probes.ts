/**
 * How many of the spec's operations the API serves, and how many of those conform: each
 * served operation is driven by the requests below (its success and its errors, and once
 * without the token) over an embedded runtime, and every response is checked against the
 * operation's response in the spec (status listed, content type offered, body valid by
 * its schema). An operation conforms when it has requests here, one of them succeeds, and
 * every response passes. `npm run api:coverage` prints the figures; the conformance test
 * holds them.
 */
import { Router } from '../../lib/api/router.js';
import { apiRoutes } from '../../lib/api/routes.js';
import etl from '../../examples/dags/etl_daily.js';
import { operations, responseProblems, type Operation } from '../helpers/openapi.js';
import { apiOverRuntime } from './support.js';
import { PROBES, probeDags, type Fixture, type Probe } from './coverage-requests.js';

export interface OperationResult {
  operationId: string;
  method: string;
  path: string;
  served: boolean;
  probed: boolean;
  conforming: boolean;
  /** Answered as an Airflow without the feature answers (a probe's `off` status). */
  off: boolean;
  /** Each request's method, path, status and what was wrong with its response. */
  responses: { request: string; status: number; problems: string[] }[];
}

/** A request path for an operation, `{x}` filled with `x`, to ask the router whether it serves it. */
const examplePath = (op: Operation) => op.path.replace(/\{(\w+)\}/g, (_m, n: string) => (/index|number|_id$/.test(n) && n !== 'dag_id' && n !== 'task_id' && n !== 'connection_id' ? '1' : n));

const shape = (template: string) => template.replace(/\{\w+\}/g, '{}');

function served(router: Router, op: Operation): boolean {
  try {
    // The route found must be this operation's own, not a broader one that caught the path.
    return shape(router.match(op.method, examplePath(op)).route.path) === shape(op.path);
  } catch {
    return false;
  }
}

/**
 * Drives every served operation and checks each response by the spec.
 *
 * @example
 * const results = await probeOperations();
 * results.filter((r) => r.conforming).length;
 */
export async function probeOperations(): Promise<OperationResult[]> {
  const router = new Router(apiRoutes());
  const h = await apiOverRuntime([etl, ...probeDags()], { validate: false });
  try {
    const f: Fixture = await PROBES.setup(h);
    const out: OperationResult[] = [];
    for (const op of operations()) {
      const result: OperationResult = { operationId: op.operationId, method: op.method, path: op.path, served: served(router, op), probed: false, conforming: false, off: false, responses: [] };
      out.push(result);
      const make = PROBES.byOperation[op.operationId];
      if (!result.served || !make) continue;
      result.probed = true;
      const requests: Probe[] = [...(await make(f)), { ...(await make(f))[0], anonymous: true, off: undefined }];
      let succeeded = false;
      for (const p of requests) {
        const method = p.method ?? op.method;
        const r = await h.call(method, p.path, p.body, { ...(p.anonymous ? { authorization: '' } : {}), ...(p.headers ?? {}) });
        const problems = responseProblems(method, new URL(p.path, 'http://x').pathname, r.status, r.headers.get('content-type'), r.json ?? (r.text || undefined));
        if (p.anonymous && !op.public && r.status !== 401) problems.push(`${method} ${p.path}: answered ${r.status} without the token (401 expected)`);
        if (p.anonymous && op.public && r.status !== 200) problems.push(`${method} ${p.path}: a public operation answered ${r.status} without the token`);
        if (!p.anonymous && r.status >= 200 && r.status < 300) succeeded = true;
        if (!p.anonymous && p.off !== undefined) {
          if (r.status === p.off) { succeeded = true; result.off = true; } else problems.push(`${method} ${p.path}: answered ${r.status}, ${p.off} expected (Airflow with the feature off)`);
        }
        result.responses.push({ request: `${p.anonymous ? 'anonymous ' : ''}${method} ${p.path}`, status: r.status, problems });
      }
      result.conforming = succeeded && result.responses.every((x) => x.problems.length === 0);
    }
    return out;
  } finally {
    await h.api.close();
  }
}

/** The figures as lines: served and conforming counts, then the operations not served and not conforming. */
export function coverageReport(results: OperationResult[]): string[] {
  const served = results.filter((r) => r.served);
  const conforming = served.filter((r) => r.conforming);
  const lines = [
    `Airflow 3.2.1 REST API (spec/airflow/v2-rest-api-generated.yaml): ${results.length} operations`,
    `served:     ${served.length}`,
    `conforming: ${conforming.length} of ${served.length} served (of which ${conforming.filter((r) => r.off).length} answer as Airflow with the feature off)`,
  ];
  const failing = served.filter((r) => !r.conforming);
  if (failing.length) lines.push('', 'served, not conforming:');
  for (const r of failing) {
    lines.push(`  ${r.operationId} (${r.method} ${r.path})${r.probed ? '' : ': no requests in test/api/coverage-requests.ts'}`);
    for (const x of r.responses) for (const p of x.problems) lines.push(`    ${p}`);
  }
  lines.push('', 'not served:');
  for (const r of results.filter((x) => !x.served)) lines.push(`  ${r.operationId} (${r.method} ${r.path})`);
  return lines;
}
