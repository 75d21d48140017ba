/**
 * Airflow's bulk forms of the variables and connections endpoints (lib/api/bulk.ts): each
 * action reports what it did, an action that fails writes nothing while the others run,
 * and a body the model refuses writes nothing at all.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import etl from '../../examples/dags/etl_daily.js';
import { apiOverRuntime } from './support.js';

let h: Awaited<ReturnType<typeof apiOverRuntime>>;
beforeAll(async () => { h = await apiOverRuntime([etl]); });
afterAll(async () => { await h.api.close(); });

const vars = () => JSON.parse(readFileSync(path.join(h.secretsDir, 'variables.json'), 'utf8'));

describe('bulk variables', () => {
  it('creates, updates and deletes in one body; a failing action writes nothing and the others still run', async () => {
    const r = await h.call('PATCH', '/api/v2/variables', { actions: [
      { action: 'create', entities: [{ key: 'a', value: '1' }, { key: 'b', value: { n: 2 } }] },
      { action: 'update', entities: [{ key: 'a', value: '10' }] },
    ] });
    expect(r.status).toBe(200);
    expect(r.json).toEqual({ create: { success: ['a', 'b'], errors: [] }, update: { success: ['a'], errors: [] } });
    expect(vars()).toEqual({ a: '10', b: '{"n":2}' });

    const mixed = await h.call('PATCH', '/api/v2/variables', { actions: [
      { action: 'create', entities: [{ key: 'c', value: '3' }, { key: 'a', value: 'x' }] },
      { action: 'delete', entities: ['b', 'nope'], action_on_non_existence: 'skip' },
    ] });
    expect(mixed.json.create).toEqual({ success: [], errors: [{ error: "The variables with these keys: {'a'} already exist.", status_code: 409 }] });
    expect(mixed.json.delete).toEqual({ success: ['b'], errors: [] });
    expect(vars()).toEqual({ a: '10' });

    const skip = await h.call('PATCH', '/api/v2/variables', { actions: [{ action: 'create', entities: [{ key: 'c', value: '3' }, { key: 'a', value: 'x' }], action_on_existence: 'skip' }] });
    expect(skip.json.create.success).toEqual(['c']);
    expect(vars()).toEqual({ a: '10', c: '3' });
    const missing = await h.call('PATCH', '/api/v2/variables', { actions: [{ action: 'update', entities: [{ key: 'zz', value: '1' }] }] });
    expect(missing.json.update.errors[0].status_code).toBe(404);
  });

  it('refuses a body the model refuses with a 422 before writing anything', async () => {
    const r = await h.call('PATCH', '/api/v2/variables', { actions: [
      { action: 'create', entities: [{ key: 'fine', value: '1' }] },
      { action: 'create', entities: [{ key: 'not ok', value: '1' }] },
    ] });
    expect(r.status).toBe(422);
    expect(vars()).not.toHaveProperty('fine');
  });
});

describe('bulk connections', () => {
  it('creates, updates by mask and deletes, passwords never answered', async () => {
    const r = await h.call('PATCH', '/api/v2/connections', { actions: [
      { action: 'create', entities: [{ connection_id: 'db', conn_type: 'postgres', host: 'h1', password: 'p' }] },
      { action: 'update', entities: [{ connection_id: 'db', conn_type: 'postgres', host: 'h2' }], update_mask: ['host'] },
    ] });
    expect(r.json).toEqual({ create: { success: ['db'], errors: [] }, update: { success: ['db'], errors: [] } });
    expect((await h.call('GET', '/api/v2/connections/db')).json).toMatchObject({ host: 'h2', password: '***' });
    const del = await h.call('PATCH', '/api/v2/connections', { actions: [{ action: 'delete', entities: ['db'] }] });
    expect(del.json.delete.success).toEqual(['db']);
    expect((await h.call('GET', '/api/v2/connections/db')).status).toBe(404);
  });
});
