/**
 * Variables and connections: Airflow's URI and JSON forms, the local backends (environment
 * and .airless files), template references and masking.
 */
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalSecrets, SecretsFile } from '../../lib/adapters/secrets-local.js';
import { connectionUri, parseConnection, parseConnectionUri } from '../../lib/adapters/secrets-parse.js';
import { Connections, Variables, secretRefs, withSecretVars } from '../../lib/engine/secrets.js';
import { isSensitiveKey, maskSecret, redact, redactDeep } from '../../lib/engine/secrets-mask.js';
import { renderTemplate, templateVars } from '../../lib/engine/index.js';

let dir: string;
beforeAll(async () => { dir = await mkdtemp(path.join(tmpdir(), 'airless-secrets-')); });
afterAll(async () => { await rm(dir, { recursive: true, force: true }); });

describe('connection URIs (Airflow form)', () => {
  it('parses every part, percent-decoded, with query params as extra', () => {
    expect(parseConnectionUri('warehouse', 'postgres://us%40er:p%3Ass%2Fw%20d@db.example:5432/my%2Fdb?sslmode=require&opt=1&opt=2')).toEqual({
      connId: 'warehouse', connType: 'postgres', host: 'db.example', port: 5432, login: 'us@er', password: 'p:ss/w d', schema: 'my/db',
      extra: { sslmode: 'require', opt: ['1', '2'] },
    });
  });

  it('keeps host case and default ports (no http special-casing), maps postgresql and dashes as Airflow', () => {
    expect(parseConnectionUri('a', 'http://Api.Example.COM:80/v1')).toMatchObject({ connType: 'http', host: 'Api.Example.COM', port: 80, schema: 'v1' });
    expect(parseConnectionUri('b', 'postgresql://h').connType).toBe('postgres');
    expect(parseConnectionUri('c', 'google-cloud-platform://?__extra__=%7B%22project%22%3A%22p1%22%2C%22n%22%3A2%7D')).toEqual({
      connId: 'c', connType: 'google_cloud_platform', extra: { project: 'p1', n: 2 },
    });
    expect(parseConnectionUri('d', 'aws://?region_name=eu-west-1')).toEqual({ connId: 'd', connType: 'aws', extra: { region_name: 'eu-west-1' } });
  });

  it('parses the JSON form, extra as an object or as text', () => {
    expect(parseConnection('api', '{"conn_type":"http","host":"h","port":"8080","login":"u","password":"p","schema":"s","extra":"{\\"timeout\\":5}"}')).toEqual({
      connId: 'api', connType: 'http', host: 'h', port: 8080, login: 'u', password: 'p', schema: 's', extra: { timeout: 5 },
    });
    expect(parseConnection('x', ' {"host":"h","extra":{"a":[1]}}')).toEqual({ connId: 'x', host: 'h', extra: { a: [1] } });
  });

  it('refuses bad input with one line naming the connection, never echoing the password', () => {
    expect(() => parseConnection('db', 'not a uri')).toThrow(/^connection "db": "not a uri" is not a URI like/);
    expect(() => parseConnection('db', 'postgres://u:hunter22@h:99999')).toThrow(/connection "db": "postgres:\/\/u:\*\*\*@h:99999" is not a valid URI/);
    expect(() => parseConnection('db', 'postgres://u:p%ZZ@h')).toThrow(/connection "db": its password has a bad percent-encoding/);
    expect(() => parseConnection('db', 'x://h?__extra__=nope')).toThrow(/connection "db": extra is not JSON/);
    expect(() => parseConnection('db', '{"port":"abc"}')).toThrow(/connection "db": port "abc" is not a port number/);
  });

  it('round-trips through connectionUri', () => {
    const c = parseConnectionUri('w', 'postgres://u%40x:p%40ss@h:5432/db?__extra__=%7B%22a%22%3A1%7D');
    expect(parseConnectionUri('w', connectionUri(c))).toEqual(c);
  });
});

describe('local backend', () => {
  it('reads the environment first, then .airless/variables.json and connections.json', async () => {
    await new SecretsFile(dir, 'variables').set('bucket', 'from-file');
    await new SecretsFile(dir, 'variables').set('cfg', { rows: 3 });
    await new SecretsFile(dir, 'connections').set('db', 'mysql://u:p@filehost:3306/s');
    await new SecretsFile(dir, 'connections').set('api', { conn_type: 'http', host: 'api' });
    const s = new LocalSecrets({ dir, env: { AIRLESS_VAR_BUCKET: 'from-env', AIRLESS_CONN_MY_DB: 'postgres://e:x@envhost/db' } });
    expect(await s.variable('bucket')).toBe('from-env');
    expect(await s.variable('cfg')).toBe('{"rows":3}');
    expect(await s.variable('nope')).toBeUndefined();
    expect(await s.connection('my-db')).toMatchObject({ host: 'envhost', login: 'e' });
    expect(await s.connection('db')).toMatchObject({ host: 'filehost', port: 3306, connType: 'mysql' });
    expect(await s.connection('api')).toMatchObject({ host: 'api', connType: 'http' });
    // The file holds passwords: owner-only.
    expect((await stat(path.join(dir, 'connections.json'))).mode & 0o777).toBe(0o600);
    expect(JSON.parse(await readFile(path.join(dir, 'variables.json'), 'utf8'))).toEqual({ bucket: 'from-file', cfg: { rows: 3 } });
  });
});

describe('ctx.variables and ctx.connections', () => {
  const source = {
    calls: 0,
    async variable(k: string) { this.calls++; return ({ a: 'alpha', j: '{"x":{"y":[1,2]}}', db_password: 'sup3rsecret' } as Record<string, string>)[k]; },
    async connection(id: string) { this.calls++; return id === 'wh' ? { connId: 'wh', host: 'wh.example', port: 5439, password: 'conn-pass-1', extra: { token: 'tok-12345' } } : undefined; },
  };

  it('get with default, JSON, a missing key with a clear error; one read per key', async () => {
    const v = new Variables(source);
    source.calls = 0;
    expect(await v.get('a')).toBe('alpha');
    expect(await v.get('a')).toBe('alpha');
    expect(source.calls).toBe(1);
    expect(await v.get('missing', { default: 7 })).toBe(7);
    expect(await v.get('j', { deserializeJson: true })).toEqual({ x: { y: [1, 2] } });
    await expect(v.get('missing')).rejects.toThrow('variable "missing" does not exist (set it with `airless variables set missing VALUE` or AIRLESS_VAR_MISSING)');
    await expect(v.get('bad key!')).rejects.toThrow(/variable key "bad key!" is not valid/);
    await expect(new Connections(source).get('none')).rejects.toThrow(/connection "none" is not defined/);
  });

  it('templates: var.value, var.json paths and conn fields resolve; nothing is read without references', async () => {
    const base = templateVars({ dagId: 'd', runId: 'r', taskId: 't', logicalDate: 0, dataIntervalStart: 0, dataIntervalEnd: 0 });
    const tpl = { path: '{{ var.value.a }}/{{ var.json.j.x.y }}', host: '{{ conn.wh.host }}:{{conn.wh.port}}', ds: '{{ ds }}' };
    expect([...secretRefs(tpl).vars, ...secretRefs(tpl).json, ...secretRefs(tpl).conns]).toEqual(['a', 'j', 'wh']);
    source.calls = 0;
    const vars = await withSecretVars(base, tpl, new Variables(source), new Connections(source));
    expect(renderTemplate(tpl.path, vars)).toBe('alpha/[1,2]');
    expect(renderTemplate(tpl.host, vars)).toBe('wh.example:5439');
    expect(source.calls).toBe(3);
    expect(await withSecretVars(base, { ds: '{{ ds }}' }, new Variables(source), new Connections(source))).toBe(base);
    expect(source.calls).toBe(3);
    await expect(withSecretVars(base, '{{ var.value.zzz }}', new Variables(source), new Connections(source))).rejects.toThrow(/variable "zzz" does not exist/);
  });

  it('masks passwords, sensitive extras and sensitive variables once read', async () => {
    expect(isSensitiveKey('slack_API_KEY')).toBe(true);
    expect(isSensitiveKey('bucket')).toBe(false);
    await new Connections(source).get('wh');
    await new Variables(source).get('db_password');
    await new Variables(source).get('a');
    expect(redact('pw conn-pass-1 tok tok-12345 var sup3rsecret plain alpha')).toBe('pw *** tok *** var *** plain alpha');
    expect(redactDeep({ a: ['x conn-pass-1'], n: 1 })).toEqual({ a: ['x ***'], n: 1 });
    maskSecret('abc'); // shorter than Airflow's minimum: not masked
    expect(redact('abc')).toBe('abc');
  });
});
