/**
 * What the REST API accepts and what it can show (issue 19, defects 1, 2, 3 and 6): run
 * ids in the engine's grammar, checked before anything is stored; no conf nested deeper
 * than the engine takes; `dag_id_pattern` matched in linear time; `order_by` refused in
 * Airflow's validation-error shape; every XCom value the codec keeps served as JSON.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dag } from '../../lib/sdk/index.js';
import { apiOverRuntime } from './support.js';

const nested = (levels: number): unknown => {
  let v: unknown = 1;
  for (let i = 0; i < levels; i++) v = { a: v };
  return v;
};

const loop: Record<string, unknown> = { name: 'loop' };
loop.self = loop;
const values = dag('values', {}, ({ task }) => {
  task('bigint', () => ({ total: 12345678901234567890n }));
  task('circular', () => loop);
  task('kinds', () => ({ m: new Map([['a', new Set([1])]]), u: undefined, n: NaN, d: new Date(0), bytes: new Uint8Array([1, 2]) }));
  task('logs_bigint', (ctx) => { ctx.log.info('counted', { n: 10n, loop }); });
});
const plain = dag('plain', { maxActiveRuns: 1 }, ({ task }) => { task('only', () => 1); });
// 60 characters: the old regular expression took minutes on `%a%a%a%a%a%a%b` against it.
const longId = dag('a'.repeat(60), {}, ({ task }) => { task('t', () => 1); });

let h: Awaited<ReturnType<typeof apiOverRuntime>>;
let valuesRun: string;
beforeAll(async () => {
  h = await apiOverRuntime([values, plain, longId]);
  valuesRun = (await h.call('POST', '/api/v2/dags/values/dagRuns', {})).json.dag_run_id;
  expect(await h.rt.runToCompletion('values', valuesRun)).toBe('done');
});
afterAll(async () => { await h.api.close(); });

describe('dag_run_id', () => {
  it('refuses an id outside the engine grammar with 400 and stores nothing', async () => {
    for (const [id, why] of [['nightly@1', /use 1-250 characters from A-Z a-z 0-9 _ \. ~ : \+ -/], ['a b', /use 1-250/], ['x'.repeat(251), /use 1-250 .*\(it has 251\)/],
      ['scheduled__2026-01-01T00:00:00.000Z', /the prefix scheduled__ is reserved for scheduled runs/]] as const) {
      const r = await h.call('POST', '/api/v2/dags/plain/dagRuns', { dag_run_id: id });
      expect(r.status).toBe(400);
      expect(r.json.detail).toMatch(/^dag_run_id: run id ".*" is not valid: /);
      expect(r.json.detail).toMatch(why);
    }
    expect(await h.rt.ports.store.listRuns('plain', {})).toEqual([]);
  });

  it('runs an id with ~ to the end, and the next run of a maxActiveRuns 1 DAG after it', async () => {
    const first = await h.call('POST', '/api/v2/dags/plain/dagRuns', { dag_run_id: 'nightly~1' });
    const second = await h.call('POST', '/api/v2/dags/plain/dagRuns', { dag_run_id: 'nightly~2' });
    expect([first.status, second.status]).toEqual([200, 200]);
    expect(await h.rt.runToCompletion('plain', 'nightly~2')).toBe('done');
    const runs = (await h.call('GET', '/api/v2/dags/plain/dagRuns')).json.dag_runs;
    expect(runs.map((r: any) => [r.dag_run_id, r.state]).sort()).toEqual([['nightly~1', 'success'], ['nightly~2', 'success']]);
  });
});

describe('a body nested too deeply', () => {
  it('gets a 400 naming the depth and where, and stores no run', async () => {
    const before = (await h.rt.ports.store.listRuns('plain', {})).length;
    // As text: JSON.stringify itself overflows near 4,000 levels.
    const r = await h.call('POST', '/api/v2/dags/plain/dagRuns', `{"conf":${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}}`);
    expect(r.status).toBe(400);
    expect(r.json.detail).toMatch(/^body: nested more than 1000 levels deep \(at body\.conf\.a\.a.*….*\.a\)$/);
    const ok = await h.call('POST', '/api/v2/dags/plain/dagRuns', { conf: nested(999) });
    expect(ok.status).toBe(200);
    expect((await h.rt.ports.store.listRuns('plain', {})).length).toBe(before + 1);
  });
});

describe('dag_id_pattern', () => {
  it('is a case-insensitive LIKE anywhere in the id, with _ and alternatives', async () => {
    const ids = async (pattern: string) => (await h.call('GET', `/api/v2/dags?dag_id_pattern=${encodeURIComponent(pattern)}`)).json.dags.map((d: any) => d.dag_id);
    expect(await ids('VAL')).toEqual(['values']);
    expect(await ids('p_a%n')).toEqual(['plain']);
    expect(await ids('val | pla')).toEqual(['plain', 'values']);
    expect(await ids('p\\_a')).toEqual([]);
  });

  it('answers a pattern of many % at once (a backtracking regular expression never did)', async () => {
    const r = await h.call('GET', `/api/v2/dags?dag_id_pattern=${encodeURIComponent(`${'%a'.repeat(6)}%b`)}`);
    expect(r.status).toBe(200);
    expect(r.json.dags).toEqual([]);
    const many = await h.call('GET', `/api/v2/dags?dag_id_pattern=${encodeURIComponent(`${'%'.repeat(200)}a${'%'.repeat(200)}`)}`);
    expect(many.json.dags.map((d: any) => d.dag_id)).toEqual(['a'.repeat(60), 'plain', 'values']);
  });
});

describe('order_by', () => {
  it("refuses a field that is not one, __proto__ and constructor included, with 422 in Airflow's validation shape", async () => {
    for (const field of ['__proto__', '-constructor', 'color']) {
      const r = await h.call('GET', `/api/v2/dags/plain/dagRuns?order_by=${field}`);
      expect(r.status).toBe(422);
      expect(r.json).toEqual({ detail: [{ type: 'value_error', loc: ['query', 'order_by'], input: field, msg: expect.stringMatching(/^order_by: Ordering with ".*" is disallowed or the attribute does not exist on the model/) }] });
    }
    expect((await h.call('GET', '/api/v2/dags/plain/dagRuns?order_by=-dag_run_id')).status).toBe(200);
  });
});

describe('XCom values JSON cannot write', () => {
  const xcom = async (taskId: string) => h.call('GET', `/api/v2/dags/values/dagRuns/${encodeURIComponent(valuesRun)}/taskInstances/${taskId}/xcomEntries/return_value`);

  it('are served as JSON data with a body, never an empty 200', async () => {
    const big = await xcom('bigint');
    expect(big.status).toBe(200);
    expect(big.json.value).toEqual({ total: { $bigint: '12345678901234567890' } });
    const circular = await xcom('circular');
    expect(circular.status).toBe(200);
    expect(circular.json.value).toEqual({ name: 'loop', self: { $ref: '$' } });
    expect((await xcom('kinds')).json.value).toEqual({
      m: { $map: [['a', { $set: [1] }]] }, u: { $undefined: true }, n: { $number: 'NaN' }, d: '1970-01-01T00:00:00.000Z', bytes: { $Uint8Array: [1, 2] },
    });
    const list = await h.call('GET', `/api/v2/dags/values/dagRuns/${encodeURIComponent(valuesRun)}/taskInstances/circular/xcomEntries`);
    expect(list.json.xcom_entries[0].value).toEqual({ name: 'loop', self: { $ref: '$' } });
    const ti = await h.call('GET', `/api/v2/dags/values/dagRuns/${encodeURIComponent(valuesRun)}/taskInstances/circular`);
    expect(ti).toMatchObject({ status: 200, json: { task_id: 'circular', state: 'success' } });
    // A log line's fields are the task's own values: the response falls back to the display, not to an empty 200.
    const log = await h.call('GET', `/api/v2/dags/values/dagRuns/${encodeURIComponent(valuesRun)}/taskInstances/logs_bigint/logs/1`);
    expect(log.status).toBe(200);
    expect(log.json.content.find((l: any) => l.event === 'counted')).toMatchObject({ n: { $bigint: '10' }, loop: { name: 'loop', self: { $ref: expect.stringMatching(/^\$\.content\[\d+\]\.loop$/) } } });
  });
});
