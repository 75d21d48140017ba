/**
 * Airflow's connections endpoints over the file `airless connections` keeps
 * (connections.json under AIRLESS_SECRETS_DIR), a password never answered.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import etl from '../../examples/dags/etl_daily.js';
import { fileConnection } from '../../lib/adapters/secrets-local.js';
import { apiOverRuntime, errorText } from './support.js';

let h: Awaited<ReturnType<typeof apiOverRuntime>>;
beforeAll(async () => { h = await apiOverRuntime([etl]); });
afterAll(async () => { await h.api.close(); });

const file = () => JSON.parse(readFileSync(path.join(h.secretsDir, 'connections.json'), 'utf8'));

describe('connections', () => {
  it('creates, reads, lists, updates and deletes a connection in the file the tasks read; the password is never answered', async () => {
    const made = await h.call('POST', '/api/v2/connections', {
      connection_id: 'warehouse', conn_type: 'postgres', host: 'db.internal', port: 5432, login: 'etl', password: 's3cret', schema: 'dw', extra: '{"sslmode":"require","api_token":"tok-123"}',
    });
    expect(made.status).toBe(201);
    expect(made.json).toMatchObject({ connection_id: 'warehouse', conn_type: 'postgres', host: 'db.internal', port: 5432, login: 'etl', password: '***', schema: 'dw' });
    expect(JSON.parse(made.json.extra)).toEqual({ sslmode: 'require', api_token: '***' });
    // What a task's ctx.connections.get('warehouse') reads back from the file.
    expect(fileConnection('warehouse', file().warehouse)).toEqual({
      connId: 'warehouse', connType: 'postgres', host: 'db.internal', port: 5432, login: 'etl', password: 's3cret', schema: 'dw', extra: { sslmode: 'require', api_token: 'tok-123' },
    });
    const listed = await h.call('GET', '/api/v2/connections');
    expect(listed.json.total_entries).toBe(1);
    expect(JSON.stringify(listed.json)).not.toMatch(/s3cret|tok-123/);
    const patched = await h.call('PATCH', '/api/v2/connections/warehouse?update_mask=host', { connection_id: 'warehouse', conn_type: 'postgres', host: 'db2.internal' });
    expect(patched.json).toMatchObject({ host: 'db2.internal', port: 5432, login: 'etl', password: '***' });
    expect(fileConnection('warehouse', file().warehouse).password).toBe('s3cret');
    expect((await h.call('DELETE', '/api/v2/connections/warehouse')).status).toBe(204);
    expect((await h.call('GET', '/api/v2/connections/warehouse')).status).toBe(404);
    expect(file()).toEqual({});
  });

  it('answers bad input in Airflow\'s shapes and changes nothing', async () => {
    await h.call('POST', '/api/v2/connections', { connection_id: 'kept', conn_type: 'http', host: 'a' });
    for (const [method, path, body, status, detail] of [
      ['POST', '/api/v2/connections', { connection_id: 'kept', conn_type: 'http' }, 409, /already exists/],
      ['POST', '/api/v2/connections', { connection_id: 'a b', conn_type: 'http' }, 422, /^connection_id: /],
      ['POST', '/api/v2/connections', { connection_id: 'k' }, 422, /^conn_type: Field required/],
      ['POST', '/api/v2/connections', { connection_id: 'k', conn_type: 'http', port: 'x' }, 422, /^port: /],
      ['POST', '/api/v2/connections', { connection_id: 'k', conn_type: 'http', extra: '[1]' }, 422, /^extra: /],
      ['PATCH', '/api/v2/connections/kept', { connection_id: 'other', conn_type: 'http' }, 400, /does not match/],
      ['PATCH', '/api/v2/connections/nope', { connection_id: 'nope', conn_type: 'http' }, 404, /was not found/],
      ['DELETE', '/api/v2/connections/nope', undefined, 404, /was not found/],
    ] as const) {
      const r = await h.call(method, path, body);
      expect({ method, path, status: r.status }).toEqual({ method, path, status });
      expect(errorText(r)).toMatch(detail);
    }
    expect(file()).toEqual({ kept: { conn_type: 'http', host: 'a' } });
  });
});
