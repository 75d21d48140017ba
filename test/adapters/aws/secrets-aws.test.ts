/**
 * The AWS secrets backend against a local endpoint: the exact SSM and Secrets Manager
 * requests (target, body), not-found as a miss, one read per key per invocation (reset()
 * forgets), and the admin calls the CLI makes.
 */
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SSMClient } from '@aws-sdk/client-ssm';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AwsSecrets } from '../../../lib/adapters/aws/secrets-aws.js';

const calls: { target: string; body: any }[] = [];
let server: Server;
let endpoint: string;

function answer(target: string, body: any): [number, unknown] {
  switch (target) {
    case 'AmazonSSM.GetParameter':
      return body.Name === '/airless/variables/bucket'
        ? [200, { Parameter: { Name: body.Name, Value: 'raw-data', Type: 'String' } }]
        : [400, { __type: 'ParameterNotFound', message: 'not found' }];
    case 'secretsmanager.GetSecretValue':
      return body.SecretId === 'airless/connections/warehouse'
        ? [200, { Name: body.SecretId, SecretString: 'postgres://etl:p%40ss@dw:5439/analytics' }]
        : [400, { __type: 'ResourceNotFoundException', message: 'no secret' }];
    case 'AmazonSSM.PutParameter':
      return [200, { Version: 1 }];
    case 'AmazonSSM.GetParametersByPath':
      return [200, { Parameters: [{ Name: '/airless/variables/b' }, { Name: '/airless/variables/a/x' }] }];
    case 'secretsmanager.PutSecretValue':
      return [400, { __type: 'ResourceNotFoundException', message: 'no secret' }];
    default:
      return [200, {}];
  }
}

beforeAll(async () => {
  server = createServer((req, res) => {
    let text = '';
    req.on('data', (c) => { text += c; });
    req.on('end', () => {
      const target = String(req.headers['x-amz-target']);
      const body = JSON.parse(text || '{}');
      calls.push({ target, body });
      const [status, out] = answer(target, body);
      res.writeHead(status, { 'content-type': 'application/x-amz-json-1.1' });
      res.end(JSON.stringify(out));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

function secrets() {
  const config = { region: 'eu-west-1', endpoint, credentials: { accessKeyId: 'a', secretAccessKey: 'b' }, maxAttempts: 1 };
  return new AwsSecrets({ ssm: new SSMClient(config), secretsManager: new SecretsManagerClient(config) });
}

describe('AwsSecrets', () => {
  it('reads variables from SSM and connections from Secrets Manager under the default prefixes, once per invocation', async () => {
    calls.length = 0;
    const s = secrets();
    expect(await s.variable('bucket')).toBe('raw-data');
    expect(await s.variable('bucket')).toBe('raw-data');
    expect(await s.variable('nope')).toBeUndefined();
    expect(await s.connection('warehouse')).toEqual({ connId: 'warehouse', connType: 'postgres', host: 'dw', port: 5439, login: 'etl', password: 'p@ss', schema: 'analytics', extra: {} });
    expect(await s.connection('missing')).toBeUndefined();
    expect(calls).toEqual([
      { target: 'AmazonSSM.GetParameter', body: { Name: '/airless/variables/bucket', WithDecryption: true } },
      { target: 'AmazonSSM.GetParameter', body: { Name: '/airless/variables/nope', WithDecryption: true } },
      { target: 'secretsmanager.GetSecretValue', body: { SecretId: 'airless/connections/warehouse' } },
      { target: 'secretsmanager.GetSecretValue', body: { SecretId: 'airless/connections/missing' } },
    ]);
    s.reset();
    await s.variable('bucket');
    expect(calls).toHaveLength(5);
  });

  it('admin: sensitive keys as SecureString, list under the prefix, create a connection when absent', async () => {
    calls.length = 0;
    const s = secrets();
    await s.setVariable('bucket', 'x');
    await s.setVariable('slack_token', 'y');
    expect(await s.listVariables()).toEqual(['a/x', 'b']);
    await s.setConnection('api', 'http://h');
    expect(calls.map((c) => [c.target, c.body])).toEqual([
      ['AmazonSSM.PutParameter', { Name: '/airless/variables/bucket', Value: 'x', Overwrite: true, Type: 'String' }],
      ['AmazonSSM.PutParameter', { Name: '/airless/variables/slack_token', Value: 'y', Overwrite: true, Type: 'SecureString' }],
      ['AmazonSSM.GetParametersByPath', { Path: '/airless/variables', Recursive: true }],
      ['secretsmanager.PutSecretValue', expect.objectContaining({ SecretId: 'airless/connections/api', SecretString: 'http://h' })],
      ['secretsmanager.CreateSecret', expect.objectContaining({ Name: 'airless/connections/api', SecretString: 'http://h' })],
    ]);
  });
});
