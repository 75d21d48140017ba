/**
 * Every operation the API serves conforms to Airflow's spec (test/api/coverage-probes.ts
 * drives each one: its success, its errors, and once without the token), and the count
 * served does not fall (`npm run api:coverage` prints the same figures).
 */
import { describe, expect, it } from 'vitest';
import { coverageReport, probeOperations } from './coverage-probes.js';

/** Served and conforming on this branch; raise it with the operations added. */
const SERVED_AT_LEAST = 89;

describe('conformance to Airflow 3.2.1\'s REST API', () => {
  it('serves at least the operations counted, each conforming to the spec, none left without requests', async () => {
    const results = await probeOperations();
    const served = results.filter((r) => r.served);
    const failing = served.filter((r) => !r.conforming).map((r) => ({ op: r.operationId, probed: r.probed, problems: r.responses.flatMap((x) => x.problems) }));
    expect(failing, coverageReport(results).join('\n')).toEqual([]);
    expect(served.length).toBeGreaterThanOrEqual(SERVED_AT_LEAST);
    expect(results.length).toBe(110);
  }, 120_000);
});
