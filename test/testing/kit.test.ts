/**
 * airless/testing: testDag runs a DAG in process on a virtual clock, with mocks, signals
 * and sensors, and returns states, tries, XComs and logs; the assertion helpers report
 * what differed.
 */
import { describe, expect, it } from 'vitest';
import { dag } from '../../lib/sdk/index.js';
import { assertRunState, assertTaskStates, testDag, TestDagAssertionError } from '../../lib/testing/index.js';
import etl from '../../examples/dags/etl_daily.js';
import reports, { partitionReady } from '../../examples/dags/reports.js';

describe('testDag', () => {
  it('runs a DAG with retries and a branch, returning states, tries, XComs and logs', async () => {
    const r = await testDag(etl, { logicalDate: '2026-03-01T00:00:00Z' });
    assertRunState(r, 'success');
    assertTaskStates(r, { extract: 'success', transform: 'success', full: 'skipped', delta: 'success' });
    expect(r.tasks.extract.tries).toBe(2);
    expect(r.xcom('extract')).toEqual({ rows: 42 });
    expect(r.tasks.transform.xcom).toEqual({ return_value: 84 });
    expect(r.taskLogs('audit')).toContain('for 2026-03-01 in eu');
    // The 30 s retry delay passed on the virtual clock.
    expect(r.virtualMs).toBeGreaterThanOrEqual(30_000);
  });

  it('follows conf and replaces task bodies with mocks', async () => {
    const r = await testDag(etl, { conf: { full: true }, mocks: { extract: async () => ({ rows: 5 }) } });
    expect(r.tasks.extract.tries).toBe(1);
    expect(r.xcom('transform')).toBe(10);
    assertTaskStates(r, { full: 'success', delta: 'skipped' });
  });

  it('resolves sensors, deferrals and signals on the virtual clock', async () => {
    const r = await testDag(reports, {
      logicalDate: '2026-01-01',
      sensorMocks: { file: () => true },
      sensors: [partitionReady],
      signals: { 'approve-{{ ds }}': { by: 'qa' } },
    });
    assertRunState(r, 'success');
    expect(r.xcom('approve')).toEqual({ by: 'qa' });
    expect(r.xcom('job')).toBe('done');
    expect(r.virtualMs).toBeGreaterThanOrEqual(10 * 60_000);
  });

  it('reports a stalled run and explains failed assertions', async () => {
    const r = await testDag(reports, { sensorMocks: { file: () => false }, maxVirtualMs: 86_400_000 });
    expect(r.state).not.toBe('success');
    expect(() => assertRunState(r, 'success')).toThrow(TestDagAssertionError);
    expect(() => assertTaskStates(r, { landed: 'success' })).toThrow(/landed: (sensing|failed|up_for_retry), expected success/);
  });

  it('refuses a mock for a task the DAG does not have', async () => {
    const d = dag('tiny', {}, ({ task }) => { task('a', async () => 1); });
    await expect(testDag(d, { mocks: { b: async () => 2 } })).rejects.toThrow(/mocks names task "b"/);
  });
});
