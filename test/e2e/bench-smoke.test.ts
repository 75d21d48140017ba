/**
 * Smoke test of `npm run bench`: the quick scheduler shapes on the memory store only,
 * asserting the report's shape, never its timings (benchmarks are not tests).
 */
import { describe, expect, it } from 'vitest';
import { formatReport } from '../../bench/report.js';
import { runBench } from '../../bench/run.js';

describe('bench smoke', () => {
  it('runs the quick shapes on memory and reports every field', async () => {
    const report = await runBench({ quick: true, only: new Set(['shapes']), memoryOnly: true });
    expect(report.shapes.map((s) => s.store)).toEqual(['memory', 'memory', 'memory', 'memory', 'memory, isolated', 'memory, isolated', 'memory, isolated', 'memory, isolated']);
    for (const s of report.shapes) {
      expect(s).toMatchObject({
        name: expect.any(String), store: expect.stringMatching(/^memory/), tasks: 100, wallMs: expect.any(Number), totalTaskLagMs: expect.any(Number),
        p50StepLagMs: expect.any(Number), p99StepLagMs: expect.any(Number), tasksPerSec: expect.any(Number), allSucceeded: true,
      });
      expect(s.p99StepLagMs).toBeGreaterThanOrEqual(s.p50StepLagMs);
    }
    expect(report.machine.cores).toBeGreaterThan(0);
    expect(formatReport(report)).toContain('10 runs x 10 linear tasks');
  }, 40_000);
});
