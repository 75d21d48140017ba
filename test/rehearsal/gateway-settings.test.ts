/**
 * SSM Parameter Store and Secrets Manager in the rehearsal gateway, through the real
 * `@aws-sdk/client-ssm` and `@aws-sdk/client-secrets-manager`: what AWS answers, and the
 * action and resource IAM evaluates (a function role with the stack's two grants).
 */
import {
  CreateSecretCommand, DeleteSecretCommand, GetSecretValueCommand, ListSecretsCommand, PutSecretValueCommand, SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import { DeleteParameterCommand, GetParameterCommand, GetParametersByPathCommand, PutParameterCommand, SSMClient } from '@aws-sdk/client-ssm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AwsSecrets } from '../../lib/adapters/aws/secrets-aws.js';
import { runCli } from '../../lib/cli/main.js';
import { RehearsalClock } from '../../lib/rehearsal/clock.js';
import { startFront } from '../../lib/rehearsal/front.js';
import { LogSink } from '../../lib/rehearsal/logs.js';
import { ssmChecks } from '../../lib/rehearsal/gateway/actions-ssm.js';
import { startGateway, type Gateway, type Principal } from '../../lib/rehearsal/gateway/index.js';

const ACCOUNT = '000000000000';
const scope = { region: 'us-east-1', accountId: ACCOUNT };
// The stack's grants (lib/infra/secrets-grants.ts): the variables and connections prefixes only.
const worker: Principal = {
  accessKeyId: 'AKIAWORKER', name: 'Worker', roleArn: `arn:aws:iam::${ACCOUNT}:role/Worker-role`,
  policies: [{ name: 'Secrets', document: { Version: '2012-10-17', Statement: [
    { Sid: 'Vars', Effect: 'Allow', Action: 'ssm:GetParameter', Resource: `arn:aws:ssm:us-east-1:${ACCOUNT}:parameter/airless/variables/*` },
    { Sid: 'Conns', Effect: 'Allow', Action: 'secretsmanager:GetSecretValue', Resource: `arn:aws:secretsmanager:us-east-1:${ACCOUNT}:secret:airless/connections/*` },
  ] } }],
};

describe('rehearsal gateway: SSM Parameter Store and Secrets Manager', () => {
  let gw: Gateway;
  const now = Date.parse('2026-01-01T00:00:00Z');
  const clients: { destroy(): void }[] = [];
  const client = <T extends { destroy(): void }>(make: (o: object) => T, key: string): T => {
    const c = make({ endpoint: gw.url, region: 'us-east-1', maxAttempts: 1, credentials: { accessKeyId: key, secretAccessKey: 'x' } });
    clients.push(c);
    return c;
  };
  let ssm: SSMClient;
  let sm: SecretsManagerClient;
  let workerSsm: SSMClient;
  let workerSm: SecretsManagerClient;

  beforeAll(async () => {
    gw = await startGateway({ ...scope, upstream: { dynamodb: 'http://127.0.0.1:1', sqs: 'http://127.0.0.1:1', s3: 'http://127.0.0.1:1' }, resourcePolicies: {}, principals: [worker], clock: () => now });
    ssm = client((o) => new SSMClient(o), 'AKIACLI');
    sm = client((o) => new SecretsManagerClient(o), 'AKIACLI');
    workerSsm = client((o) => new SSMClient(o), worker.accessKeyId);
    workerSm = client((o) => new SecretsManagerClient(o), worker.accessKeyId);
  });
  afterAll(async () => {
    for (const c of clients) c.destroy();
    await gw?.close();
  });

  it('SSM: put, overwrite, get (SecureString decrypted only WithDecryption), by path, delete', async () => {
    expect(await ssm.send(new PutParameterCommand({ Name: '/airless/variables/region', Value: 'eu-west-1', Type: 'String' }))).toMatchObject({ Version: 1 });
    await expect(ssm.send(new PutParameterCommand({ Name: '/airless/variables/region', Value: 'x', Type: 'String' }))).rejects.toMatchObject({ name: 'ParameterAlreadyExists' });
    expect(await ssm.send(new PutParameterCommand({ Name: '/airless/variables/region', Value: 'us-east-2', Overwrite: true }))).toMatchObject({ Version: 2 });
    await ssm.send(new PutParameterCommand({ Name: '/airless/variables/api_key', Value: 's3cr3t', Type: 'SecureString' }));
    await ssm.send(new PutParameterCommand({ Name: '/airless/variables/team/owner', Value: 'ops', Type: 'String' }));

    const got = (await ssm.send(new GetParameterCommand({ Name: '/airless/variables/region' }))).Parameter!;
    expect(got).toMatchObject({ Name: '/airless/variables/region', Value: 'us-east-2', Version: 2, Type: 'String', ARN: `arn:aws:ssm:us-east-1:${ACCOUNT}:parameter/airless/variables/region` });
    expect(got.LastModifiedDate).toEqual(new Date(now));
    const hidden = (await ssm.send(new GetParameterCommand({ Name: '/airless/variables/api_key' }))).Parameter!.Value;
    expect(hidden).not.toContain('s3cr3t');
    expect((await ssm.send(new GetParameterCommand({ Name: '/airless/variables/api_key', WithDecryption: true }))).Parameter!.Value).toBe('s3cr3t');

    const direct = await ssm.send(new GetParametersByPathCommand({ Path: '/airless/variables' }));
    expect(direct.Parameters!.map((p) => p.Name)).toEqual(['/airless/variables/api_key', '/airless/variables/region']);
    const page1 = await ssm.send(new GetParametersByPathCommand({ Path: '/airless/variables/', Recursive: true, MaxResults: 2 }));
    const page2 = await ssm.send(new GetParametersByPathCommand({ Path: '/airless/variables/', Recursive: true, MaxResults: 2, NextToken: page1.NextToken }));
    expect([...page1.Parameters!, ...page2.Parameters!].map((p) => p.Name)).toEqual(['/airless/variables/api_key', '/airless/variables/region', '/airless/variables/team/owner']);
    expect(page2.NextToken).toBeUndefined();
    await expect(ssm.send(new GetParametersByPathCommand({ Path: 'airless' }))).rejects.toMatchObject({ name: 'ValidationException' });
    await expect(ssm.send(new PutParameterCommand({ Name: 'airless/x', Value: 'v' }))).rejects.toMatchObject({ name: 'ValidationException', message: 'Parameter name must be a fully qualified name.' });

    await ssm.send(new DeleteParameterCommand({ Name: '/airless/variables/team/owner' }));
    await expect(ssm.send(new DeleteParameterCommand({ Name: '/airless/variables/team/owner' }))).rejects.toMatchObject({ name: 'ParameterNotFound' });
    await expect(ssm.send(new GetParameterCommand({ Name: '/airless/variables/nope' }))).rejects.toMatchObject({ name: 'ParameterNotFound' });
  });

  it('Secrets Manager: ARNs with a random suffix, create/put/get/list/delete as AWS answers them', async () => {
    const created = await sm.send(new CreateSecretCommand({ Name: 'airless/connections/db', SecretString: 'postgres://u:p@db:5432/x' }));
    expect(created.ARN).toMatch(new RegExp(`^arn:aws:secretsmanager:us-east-1:${ACCOUNT}:secret:airless/connections/db-[A-Za-z0-9]{6}$`));
    await expect(sm.send(new CreateSecretCommand({ Name: 'airless/connections/db', SecretString: 'x' }))).rejects.toMatchObject({
      name: 'ResourceExistsException', message: 'The operation failed because the secret airless/connections/db already exists.',
    });
    const put = await sm.send(new PutSecretValueCommand({ SecretId: 'airless/connections/db', SecretString: 'postgres://u:p2@db:5432/x' }));
    expect(put.VersionStages).toEqual(['AWSCURRENT']);
    const byArn = await sm.send(new GetSecretValueCommand({ SecretId: created.ARN }));
    expect(byArn).toMatchObject({ Name: 'airless/connections/db', ARN: created.ARN, SecretString: 'postgres://u:p2@db:5432/x', VersionId: put.VersionId });
    expect((await sm.send(new GetSecretValueCommand({ SecretId: 'airless/connections/db', VersionStage: 'AWSPREVIOUS' }))).SecretString).toBe('postgres://u:p@db:5432/x');
    await expect(sm.send(new PutSecretValueCommand({ SecretId: 'airless/connections/none', SecretString: 'x' }))).rejects.toMatchObject({ name: 'ResourceNotFoundException' });

    await sm.send(new CreateSecretCommand({ Name: 'other/thing', SecretString: 'x' }));
    const listed = await sm.send(new ListSecretsCommand({ Filters: [{ Key: 'name', Values: ['airless/connections/'] }] }));
    expect(listed.SecretList!.map((s) => s.Name)).toEqual(['airless/connections/db']);
    expect((await sm.send(new ListSecretsCommand({ Filters: [{ Key: 'name', Values: ['Airless/'] }] }))).SecretList).toEqual([]);

    // A recovery window keeps the name taken and the secret refused; a forced delete frees it.
    await sm.send(new DeleteSecretCommand({ SecretId: 'other/thing' }));
    await expect(sm.send(new GetSecretValueCommand({ SecretId: 'other/thing' }))).rejects.toMatchObject({ name: 'InvalidRequestException' });
    await expect(sm.send(new CreateSecretCommand({ Name: 'other/thing', SecretString: 'y' }))).rejects.toMatchObject({ name: 'InvalidRequestException' });
    await sm.send(new DeleteSecretCommand({ SecretId: created.ARN, ForceDeleteWithoutRecovery: true }));
    await expect(sm.send(new GetSecretValueCommand({ SecretId: 'airless/connections/db' }))).rejects.toMatchObject({ name: 'ResourceNotFoundException' });
    const again = await sm.send(new CreateSecretCommand({ Name: 'airless/connections/db', SecretString: 'mysql://h' }));
    expect(again.ARN).not.toBe(created.ARN);
  });

  it('authorizes each call with the action and ARN AWS evaluates; a denied call raises AccessDeniedException', async () => {
    await ssm.send(new PutParameterCommand({ Name: '/airless/variables/bucket', Value: 'b', Type: 'String', Overwrite: true }));
    await ssm.send(new PutParameterCommand({ Name: '/other/bucket', Value: 'o', Type: 'String', Overwrite: true }));
    const conn = await sm.send(new CreateSecretCommand({ Name: 'airless/connections/api', SecretString: 'http://api' }));
    const from = gw.decisions.length;

    // What the worker does (lib/adapters/aws/secrets-aws.ts), through the adapter itself.
    const secrets = new AwsSecrets({ ssm: workerSsm, secretsManager: workerSm });
    expect(await secrets.variable('bucket')).toBe('b');
    expect(await secrets.variable('missing')).toBeUndefined();
    expect((await secrets.connection('api'))?.host).toBe('api');
    await expect(workerSsm.send(new GetParameterCommand({ Name: '/other/bucket' }))).rejects.toMatchObject({
      name: 'AccessDeniedException',
      message: `User: arn:aws:sts::${ACCOUNT}:assumed-role/Worker-role/Worker is not authorized to perform: ssm:GetParameter on resource: arn:aws:ssm:us-east-1:${ACCOUNT}:parameter/other/bucket because no identity-based policy allows the ssm:GetParameter action`,
    });
    await expect(workerSsm.send(new PutParameterCommand({ Name: '/airless/variables/bucket', Value: 'x', Overwrite: true }))).rejects.toMatchObject({ name: 'AccessDeniedException' });
    await expect(workerSm.send(new ListSecretsCommand({}))).rejects.toMatchObject({ name: 'AccessDeniedException' });
    expect((await ssm.send(new GetParameterCommand({ Name: '/airless/variables/bucket' }))).Parameter?.Value).toBe('b');

    expect(gw.decisions.slice(from).map((d) => `${d.principal} ${d.action} ${d.resource} ${d.allowed}`)).toEqual([
      `Worker ssm:GetParameter arn:aws:ssm:us-east-1:${ACCOUNT}:parameter/airless/variables/bucket true`,
      `Worker ssm:GetParameter arn:aws:ssm:us-east-1:${ACCOUNT}:parameter/airless/variables/missing true`,
      `Worker secretsmanager:GetSecretValue ${conn.ARN} true`,
      `Worker ssm:GetParameter arn:aws:ssm:us-east-1:${ACCOUNT}:parameter/other/bucket false`,
      `Worker ssm:PutParameter arn:aws:ssm:us-east-1:${ACCOUNT}:parameter/airless/variables/bucket false`,
      'Worker secretsmanager:ListSecrets * false',
      `cli ssm:GetParameter arn:aws:ssm:us-east-1:${ACCOUNT}:parameter/airless/variables/bucket true`,
    ]);
    expect(ssmChecks('AmazonSSM.GetParametersByPath', { Path: '/airless/variables' }, scope)).toEqual([
      { action: 'ssm:GetParametersByPath', resource: `arn:aws:ssm:us-east-1:${ACCOUNT}:parameter/airless/variables` },
    ]);
  });

  it('airless variables --stack writes under the prefix the stack outputs, and names a missing stack', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'airless-gw-settings-'));
    const front = await startFront({ gatewayUrl: gw.url, stackName: 'Team', outputs: { VariablesPrefix: '/team/vars/' }, logs: new LogSink(join(dir, 'logs'), new RehearsalClock(now)) });
    const env = { AIRLESS_AWS_ENDPOINT: front.url, AWS_ACCESS_KEY_ID: 'AKIACLI', AWS_SECRET_ACCESS_KEY: 'x' };
    try {
      const set = await runCli(['variables', 'set', 'owner', 'data-team', '--stack', 'Team'], { env });
      expect(set).toEqual({ code: 0, stdout: ['variable owner set'], stderr: [] });
      expect((await ssm.send(new GetParameterCommand({ Name: '/team/vars/owner' }))).Parameter?.Value).toBe('data-team');
      expect(await runCli(['variables', 'get', 'owner', '--stack', 'Team'], { env })).toEqual({ code: 0, stdout: ['data-team'], stderr: [] });
      const nope = await runCli(['variables', 'get', 'owner', '--stack', 'Nope'], { env });
      expect(nope.code).not.toBe(0);
      expect(nope.stderr.join('\n')).toContain('stack Nope does not exist');
    } finally {
      await front.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
