/**
 * Airflow's variables endpoints over the file `airless variables` keeps (.airless/variables.json
 * under AIRLESS_SECRETS_DIR): create, read, list, update, delete, in Airflow's shapes.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import etl from '../../examples/dags/etl_daily.js';
import { apiOverRuntime, errorText } from './support.js';

let h: Awaited<ReturnType<typeof apiOverRuntime>>;
beforeAll(async () => { h = await apiOverRuntime([etl]); });
afterAll(async () => { await h.api.close(); });

const file = () => JSON.parse(readFileSync(path.join(h.secretsDir, 'variables.json'), 'utf8'));

describe('variables', () => {
  it('creates, reads, lists, updates and deletes a variable in the file the CLI and tasks read', async () => {
    const made = await h.call('POST', '/api/v2/variables', { key: 'region', value: 'eu-west-1', description: null });
    expect(made.status).toBe(201);
    expect(made.json).toEqual({ key: 'region', value: 'eu-west-1', description: null, is_encrypted: false });
    expect(file()).toEqual({ region: 'eu-west-1' });
    // A JSON value is kept as its JSON text, as Airflow's json.dumps does.
    await h.call('POST', '/api/v2/variables', { key: 'limits', value: { rows: 10 } });
    expect((await h.call('GET', '/api/v2/variables/limits')).json.value).toBe('{"rows":10}');
    const listed = await h.call('GET', '/api/v2/variables?order_by=-key');
    expect(listed.json).toMatchObject({ total_entries: 2, variables: [{ key: 'region' }, { key: 'limits' }] });
    expect((await h.call('GET', '/api/v2/variables?variable_key_pattern=reg%')).json.variables.map((v: { key: string }) => v.key)).toEqual(['region']);
    const patched = await h.call('PATCH', '/api/v2/variables/region', { key: 'region', value: 'us-east-1' });
    expect(patched.json.value).toBe('us-east-1');
    expect(file().region).toBe('us-east-1');
    const del = await h.call('DELETE', '/api/v2/variables/region');
    expect(del.status).toBe(204);
    expect(del.text).toBe('');
    expect((await h.call('GET', '/api/v2/variables/region')).status).toBe(404);
    expect(file()).toEqual({ limits: '{"rows":10}' });
  });

  it('masks the value of a sensitive key', async () => {
    await h.call('POST', '/api/v2/variables', { key: 'api_password', value: 'hunter2' });
    expect((await h.call('GET', '/api/v2/variables/api_password')).json.value).toBe('***');
    expect(JSON.stringify((await h.call('GET', '/api/v2/variables')).json)).not.toMatch(/hunter2/);
  });

  it('answers bad input in Airflow\'s shapes and changes nothing', async () => {
    await h.call('POST', '/api/v2/variables', { key: 'kept', value: 'v' });
    for (const [method, path, body, status, detail] of [
      ['POST', '/api/v2/variables', { key: 'kept', value: 'x' }, 409, /already exists/],
      ['POST', '/api/v2/variables', { key: 'a b', value: 'x' }, 422, /^key: /],
      ['POST', '/api/v2/variables', { key: 'k' }, 422, /^value: Field required/],
      ['POST', '/api/v2/variables', { key: 'k', value: 'x', color: 1 }, 422, /^color: unknown field/],
      ['PATCH', '/api/v2/variables/kept', { key: 'other', value: 'x' }, 400, /doesn't match/],
      ['PATCH', '/api/v2/variables/kept?update_mask=key', { key: 'kept', value: 'x' }, 400, /^update_mask: /],
      ['PATCH', '/api/v2/variables/nope', { key: 'nope', value: 'x' }, 404, /was not found/],
      ['DELETE', '/api/v2/variables/nope', undefined, 404, /was not found/],
      ['GET', '/api/v2/variables?order_by=value', undefined, 422, /^order_by: /],
    ] as const) {
      const r = await h.call(method, path, body);
      expect({ method, path, status: r.status }).toEqual({ method, path, status });
      expect(errorText(r)).toMatch(detail);
    }
    expect(file().kept).toBe('v');
    expect(file()).not.toHaveProperty('k');
  });
});
