/**
 * testDag (`airless/testing`) reports a mapped task's instances (`size#0`, ...) with their
 * map index and values, and takes the variables and connections a test gives it (only
 * those: not the machine's AIRLESS_VAR_* or .airless files).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { InvalidInputError } from '../../lib/engine/index.js';
import { dag } from '../../lib/sdk/index.js';
import { assertTaskStates, testDag } from '../../lib/testing/index.js';

describe('testDag with a mapped task', () => {
  it('lists each instance with its map index, state, tries and value; the mapped task holds the values in order', async () => {
    const long = 'x'.repeat(600); // too large for the instance item: its value goes to XCom
    const d = dag('mapped', {}, ({ task }) => {
      const list = task('list', async () => ['a', 'bb', long]);
      const size = task('size', async (ctx, s: string) => {
        if (ctx.mapIndex === 1 && ctx.tryNumber === 1) throw new Error('flaky');
        return s === long ? long : s.length;
      }, { retries: 1, retryDelay: '1m' }).expand(list);
      size.before(task('total', async (ctx) => (await ctx.xcom.pull<unknown[]>('size')).length));
    });
    const r = await testDag(d);
    assertTaskStates(r, { list: 'success', size: 'success', 'size#0': 'success', 'size#1': 'success', 'size#2': 'success', total: 'success' });
    expect(Object.keys(r.tasks)).toEqual(['list', 'size', 'size#0', 'size#1', 'size#2', 'total']);
    expect(r.tasks['size#1']).toMatchObject({ taskId: 'size#1', mapIndex: 1, tries: 2, xcom: { return_value: 2 } });
    expect(r.tasks['size#2']!.xcom.return_value).toBe(long);
    expect(r.tasks.size!.mapIndex).toBeUndefined();
    expect(r.xcom('size')).toEqual([1, 2, long]);
    expect(r.xcom('size#0')).toBe(1);
    expect(r.xcom('total')).toBe(3);
  });
});

describe('testDag variables and connections', () => {
  afterEach(() => { delete process.env.AIRLESS_VAR_BUCKET; delete process.env.AIRLESS_CONN_WAREHOUSE; });

  const reader = dag('reads_secrets', {}, ({ task }) => {
    task('read', async (ctx) => {
      const bucket = await ctx.variables.get('bucket');
      const cfg = await ctx.variables.get<{ rows: number }>('cfg', { deserializeJson: true });
      const region = await ctx.variables.get('region', { default: 'none' });
      const db = await ctx.connections.get('warehouse');
      ctx.log.info(`connecting as ${db.login} with ${db.password}`);
      return { bucket, rows: cfg.rows, region, host: db.host, port: db.port, schema: db.schema };
    });
  });

  it('serves exactly the given ones, over the environment, and masks the password in logs', async () => {
    process.env.AIRLESS_VAR_BUCKET = 'from-the-environment';
    process.env.AIRLESS_VAR_REGION = 'eu-west-1';
    try {
      const r = await testDag(reader, {
        variables: { bucket: 'landing', cfg: { rows: 3 } },
        connections: { warehouse: 'postgres://etl:s3cret-pw@db.internal:5432/analytics' },
      });
      expect(r.state).toBe('success');
      expect(r.xcom('read')).toEqual({ bucket: 'landing', rows: 3, region: 'none', host: 'db.internal', port: 5432, schema: 'analytics' });
      expect(r.taskLogs('read')).toContain('connecting as etl with ***');
    } finally {
      delete process.env.AIRLESS_VAR_REGION;
    }
  });

  it('a connection in Airflow JSON form; a missing variable fails the task naming it; bad input is refused', async () => {
    const r = await testDag(reader, {
      variables: { cfg: '{"rows":1}' },
      connections: { warehouse: { conn_type: 'postgres', host: 'h', login: 'u', password: 'p' } },
    });
    expect(r.tasks.read!.state).toBe('failed');
    expect(r.tasks.read!.error).toMatch(/variable "bucket" does not exist/);
    await expect(testDag(reader, { connections: { warehouse: '{not json' } })).rejects.toThrow(/connection "warehouse"/);
    await expect(testDag(reader, { variables: ['bucket'] as never })).rejects.toThrow(InvalidInputError);
  });
});
