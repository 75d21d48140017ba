/**
 * Variables in SSM Parameter Store and connections in Secrets Manager, under prefixes, as
 * Airflow's AWS secrets backends keep them (defaults `/airless/variables/` and
 * `airless/connections/`; a secret holds Airflow's URI or JSON form). Read with the
 * worker's role (the stack grants ssm:GetParameter and secretsmanager:GetSecretValue on
 * exactly those prefixes) and cached per invocation: the worker handler calls `reset()`.
 * The admin methods serve `airless variables|connections --stack`.
 */
import {
  CreateSecretCommand, DeleteSecretCommand, GetSecretValueCommand, ListSecretsCommand, PutSecretValueCommand,
  type SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import {
  DeleteParameterCommand, GetParameterCommand, GetParametersByPathCommand, PutParameterCommand, type SSMClient,
} from '@aws-sdk/client-ssm';
import { isSensitiveKey, type Connection, type SecretsSource } from '../../engine/index.js';
import { parseConnection } from '../secrets-parse.js';

import { DEFAULT_CONNECTIONS_PREFIX, DEFAULT_VARIABLES_PREFIX } from './stack-contract.js';

export { DEFAULT_CONNECTIONS_PREFIX, DEFAULT_VARIABLES_PREFIX } from './stack-contract.js';

export interface AwsSecretsOptions {
  ssm: SSMClient;
  secretsManager: SecretsManagerClient;
  variablesPrefix?: string;
  connectionsPrefix?: string;
}

const named = (e: unknown, ...names: string[]) => names.includes((e as { name?: string })?.name ?? '');

/**
 * @example
 * const secrets = new AwsSecrets({ ssm: new SSMClient({}), secretsManager: new SecretsManagerClient({}) });
 * await secrets.variable('bucket'); // GetParameter /airless/variables/bucket
 */
export class AwsSecrets implements SecretsSource {
  readonly variablesPrefix: string;
  readonly connectionsPrefix: string;
  private vars = new Map<string, Promise<string | undefined>>();
  private conns = new Map<string, Promise<Connection | undefined>>();

  constructor(private readonly o: AwsSecretsOptions) {
    this.variablesPrefix = o.variablesPrefix ?? DEFAULT_VARIABLES_PREFIX;
    this.connectionsPrefix = o.connectionsPrefix ?? DEFAULT_CONNECTIONS_PREFIX;
  }

  /** Forgets what was read: called at the start of each invocation. */
  reset(): void {
    this.vars = new Map();
    this.conns = new Map();
  }

  variable(key: string): Promise<string | undefined> {
    let p = this.vars.get(key);
    if (!p) {
      p = this.readVariable(key);
      // A failed read is not cached: the next try asks again.
      p.catch(() => this.vars.delete(key));
      this.vars.set(key, p);
    }
    return p;
  }

  connection(connId: string): Promise<Connection | undefined> {
    let p = this.conns.get(connId);
    if (!p) {
      p = this.readConnection(connId);
      p.catch(() => this.conns.delete(connId));
      this.conns.set(connId, p);
    }
    return p;
  }

  private async readVariable(key: string): Promise<string | undefined> {
    try {
      const r = await this.o.ssm.send(new GetParameterCommand({ Name: `${this.variablesPrefix}${key}`, WithDecryption: true }));
      return r.Parameter?.Value;
    } catch (e) {
      if (named(e, 'ParameterNotFound')) return undefined;
      throw e;
    }
  }

  private async readConnection(connId: string): Promise<Connection | undefined> {
    const text = await this.connectionText(connId);
    return text === undefined ? undefined : parseConnection(connId, text);
  }

  /** The secret's text (URI or JSON), undefined when absent. */
  async connectionText(connId: string): Promise<string | undefined> {
    try {
      const r = await this.o.secretsManager.send(new GetSecretValueCommand({ SecretId: `${this.connectionsPrefix}${connId}` }));
      return r.SecretString;
    } catch (e) {
      if (named(e, 'ResourceNotFoundException')) return undefined;
      throw e;
    }
  }

  // ---- admin (the CLI) ----

  /** Sensitive keys (Airflow's list) are stored as SecureString. */
  async setVariable(key: string, value: string): Promise<void> {
    await this.o.ssm.send(new PutParameterCommand({
      Name: `${this.variablesPrefix}${key}`, Value: value, Overwrite: true, Type: isSensitiveKey(key) ? 'SecureString' : 'String',
    }));
  }

  async deleteVariable(key: string): Promise<boolean> {
    try {
      await this.o.ssm.send(new DeleteParameterCommand({ Name: `${this.variablesPrefix}${key}` }));
      return true;
    } catch (e) {
      if (named(e, 'ParameterNotFound')) return false;
      throw e;
    }
  }

  async listVariables(): Promise<string[]> {
    const out: string[] = [];
    let NextToken: string | undefined;
    do {
      const r = await this.o.ssm.send(new GetParametersByPathCommand({ Path: this.variablesPrefix.replace(/\/$/, '') || '/', Recursive: true, NextToken }));
      for (const p of r.Parameters ?? []) if (p.Name?.startsWith(this.variablesPrefix)) out.push(p.Name.slice(this.variablesPrefix.length));
      NextToken = r.NextToken;
    } while (NextToken);
    return out.sort();
  }

  async setConnection(connId: string, text: string): Promise<void> {
    parseConnection(connId, text);
    const SecretId = `${this.connectionsPrefix}${connId}`;
    try {
      await this.o.secretsManager.send(new PutSecretValueCommand({ SecretId, SecretString: text }));
    } catch (e) {
      if (!named(e, 'ResourceNotFoundException')) throw e;
      await this.o.secretsManager.send(new CreateSecretCommand({ Name: SecretId, SecretString: text }));
    }
  }

  /** Deleted without a recovery window, so that the id can be set again at once. */
  async deleteConnection(connId: string): Promise<boolean> {
    try {
      await this.o.secretsManager.send(new DeleteSecretCommand({ SecretId: `${this.connectionsPrefix}${connId}`, ForceDeleteWithoutRecovery: true }));
      return true;
    } catch (e) {
      if (named(e, 'ResourceNotFoundException')) return false;
      throw e;
    }
  }

  async listConnections(): Promise<string[]> {
    const out: string[] = [];
    let NextToken: string | undefined;
    do {
      const r = await this.o.secretsManager.send(new ListSecretsCommand({ Filters: [{ Key: 'name', Values: [this.connectionsPrefix] }], NextToken }));
      for (const s of r.SecretList ?? []) if (s.Name?.startsWith(this.connectionsPrefix)) out.push(s.Name.slice(this.connectionsPrefix.length));
      NextToken = r.NextToken;
    } while (NextToken);
    return out.sort();
  }
}
