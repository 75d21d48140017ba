/**
 * Secrets Manager, in process: the operations Airless sends (GetSecretValue, CreateSecret,
 * PutSecretValue, DeleteSecret, ListSecrets; lib/adapters/aws/secrets-aws.ts) over their
 * JSON 1.1 protocol (`X-Amz-Target: secretsmanager.Op`), answered as AWS answers them:
 * secret ARNs end in `-` and six random characters (`secret:NAME-AbCdEf`), a secret is
 * found by name or ARN, ResourceNotFoundException, ResourceExistsException, a secret
 * scheduled for deletion refused (InvalidRequestException) until its window ends or it is
 * force-deleted, versions staged AWSCURRENT/AWSPREVIOUS, the `name` filter a case-sensitive
 * prefix (https://docs.aws.amazon.com/secretsmanager/latest/apireference/API_Filter.html).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { errorResponse, type GatewayResponse } from '../errors.js';

interface Version { id: string; value: string; created: number; stages: string[] }

export interface Secret {
  ARN: string;
  Name: string;
  created: number;
  changed: number;
  versions: Version[];
  /** Set when deleted with a recovery window: the secret is kept but refused. */
  deletionDate?: number;
}

/** A Secrets Manager API error, raised by the SDK by `code`. */
export class SecretsApiError extends Error {
  constructor(readonly code: string, message: string) {
    super(message);
    this.name = 'SecretsApiError';
  }
}

const SUFFIX_CHARS = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
const NOT_FOUND = "Secrets Manager can't find the specified secret.";
const DAY = 86_400_000;

/**
 * @example
 * const secrets = new SecretStore({ region: 'us-east-1', accountId: '000000000000' });
 * secrets.create({ Name: 'airless/connections/db', SecretString: 'postgres://h' }, Date.now());
 */
export class SecretStore {
  private readonly byName = new Map<string, Secret>();
  /** ARNs handed to IAM for a CreateSecret not yet served, so that the secret gets the ARN that was authorized. */
  private readonly reserved = new Map<string, string>();
  constructor(private readonly scope: { region: string; accountId: string }) {}

  private base(name: string): string {
    return `arn:aws:secretsmanager:${this.scope.region}:${this.scope.accountId}:secret:${name}`;
  }

  /** The secret a SecretId names (its name, or its full ARN), deleted ones included. */
  find(secretId: unknown): Secret | undefined {
    if (typeof secretId !== 'string') return undefined;
    if (secretId.startsWith('arn:')) return [...this.byName.values()].find((s) => s.ARN === secretId);
    return this.byName.get(secretId);
  }

  /**
   * The resource IAM evaluates for a request on `secretId`: the secret's full ARN (with its
   * suffix) when it exists; else the ARN as given, or `secret:NAME` for a name.
   */
  resourceOf(secretId: unknown): string {
    const s = this.find(secretId);
    if (s) return s.ARN;
    return typeof secretId === 'string' && secretId.startsWith('arn:') ? secretId : this.base(String(secretId ?? ''));
  }

  /** The ARN a CreateSecret of `name` will get (an existing secret's, or a new random suffix). */
  arnForCreate(name: unknown): string {
    const n = String(name ?? '');
    // A secret deleted with a recovery window: CreateSecret is refused while it lasts, and
    // after it the new secret gets a new ARN.
    const existing = this.byName.get(n);
    if (existing && existing.deletionDate === undefined) return existing.ARN;
    let arn = this.reserved.get(n);
    if (!arn) {
      const suffix = [...randomBytes(6)].map((b) => SUFFIX_CHARS[b % SUFFIX_CHARS.length]).join('');
      arn = `${this.base(n)}-${suffix}`;
      this.reserved.set(n, arn);
    }
    return arn;
  }

  private live(secretId: unknown, now: number): Secret {
    const s = this.find(secretId);
    if (!s) throw new SecretsApiError('ResourceNotFoundException', NOT_FOUND);
    if (s.deletionDate !== undefined) {
      if (s.deletionDate > now) throw new SecretsApiError('InvalidRequestException', "You can't perform this operation on the secret because it was marked for deletion.");
      this.byName.delete(s.Name);
      throw new SecretsApiError('ResourceNotFoundException', NOT_FOUND);
    }
    return s;
  }

  create(i: { Name?: unknown; SecretString?: unknown; ClientRequestToken?: unknown }, now: number): Secret {
    const name = i.Name;
    if (typeof name !== 'string' || !/^[A-Za-z0-9/_+=.@-]{1,512}$/.test(name)) throw new SecretsApiError('ValidationException', 'Invalid name. Must be a valid name containing alphanumeric characters, or any of the following: -/_+=.@!');
    const old = this.byName.get(name);
    if (old?.deletionDate !== undefined && old.deletionDate > now) throw new SecretsApiError('InvalidRequestException', "You can't create this secret because a secret with this name is already scheduled for deletion.");
    if (old && old.deletionDate === undefined) throw new SecretsApiError('ResourceExistsException', `The operation failed because the secret ${name} already exists.`);
    // A secret whose recovery window has ended is gone: the new one gets a new ARN.
    if (old) this.byName.delete(name);
    const arn = this.arnForCreate(name);
    this.reserved.delete(name);
    const s: Secret = { ARN: arn, Name: name, created: now, changed: now, versions: [] };
    this.byName.set(name, s);
    if (i.SecretString !== undefined) this.addVersion(s, i.SecretString, i.ClientRequestToken, now);
    return s;
  }

  putValue(i: { SecretId?: unknown; SecretString?: unknown; ClientRequestToken?: unknown }, now: number): { s: Secret; v: Version } {
    const s = this.live(i.SecretId, now);
    return { s, v: this.addVersion(s, i.SecretString, i.ClientRequestToken, now) };
  }

  private addVersion(s: Secret, value: unknown, token: unknown, now: number): Version {
    if (typeof value !== 'string') throw new SecretsApiError('InvalidParameterException', 'You must provide either SecretString or SecretBinary.');
    if (Buffer.byteLength(value) > 65_536) throw new SecretsApiError('InvalidParameterException', 'The secret value exceeds the maximum size of 65536 bytes.');
    for (const v of s.versions) v.stages = v.stages.includes('AWSCURRENT') ? ['AWSPREVIOUS'] : [];
    s.versions = s.versions.filter((v) => v.stages.length > 0);
    const v: Version = { id: typeof token === 'string' ? token : randomUUID(), value, created: now, stages: ['AWSCURRENT'] };
    s.versions.push(v);
    s.changed = now;
    return v;
  }

  getValue(i: { SecretId?: unknown; VersionId?: unknown; VersionStage?: unknown }, now: number): { s: Secret; v: Version } {
    const s = this.live(i.SecretId, now);
    const stage = typeof i.VersionStage === 'string' ? i.VersionStage : 'AWSCURRENT';
    const v = typeof i.VersionId === 'string' ? s.versions.find((x) => x.id === i.VersionId) : s.versions.find((x) => x.stages.includes(stage));
    if (!v) throw new SecretsApiError('ResourceNotFoundException', "Secrets Manager can't find the specified secret value for staging label: " + stage);
    return { s, v };
  }

  delete(i: { SecretId?: unknown; ForceDeleteWithoutRecovery?: unknown; RecoveryWindowInDays?: unknown }, now: number): { s: Secret; at: number } {
    if (i.ForceDeleteWithoutRecovery === true && i.RecoveryWindowInDays !== undefined) {
      throw new SecretsApiError('InvalidParameterException', 'You can\'t use ForceDeleteWithoutRecovery in conjunction with RecoveryWindowInDays.');
    }
    const s = this.live(i.SecretId, now);
    if (i.ForceDeleteWithoutRecovery === true) {
      this.byName.delete(s.Name);
      return { s, at: now };
    }
    const days = i.RecoveryWindowInDays === undefined ? 30 : Number(i.RecoveryWindowInDays);
    if (!Number.isInteger(days) || days < 7 || days > 30) throw new SecretsApiError('InvalidParameterException', 'The RecoveryWindowInDays value must be between 7 and 30 days (inclusive).');
    s.deletionDate = now + days * DAY;
    return { s, at: s.deletionDate };
  }

  /** Live secrets (and, when asked, those scheduled for deletion) whose names start with one of `prefixes`. */
  list(prefixes: string[] | undefined, includeDeleted: boolean): Secret[] {
    return [...this.byName.values()]
      .filter((s) => includeDeleted || s.deletionDate === undefined)
      .filter((s) => !prefixes || prefixes.some((p) => (p.startsWith('!') ? !s.Name.startsWith(p.slice(1)) : s.Name.startsWith(p))))
      .sort((a, b) => a.Name.localeCompare(b.Name));
  }
}

const ok = (body: unknown): GatewayResponse => ({ status: 200, headers: { 'content-type': 'application/x-amz-json-1.1', 'x-amzn-requestid': 'rehearsal' }, body: JSON.stringify(body) });
const sec = (ms: number) => ms / 1000;

/**
 * Serve one authorized request.
 *
 * @example
 * serveSecrets(secrets, 'secretsmanager.GetSecretValue', { SecretId: 'airless/connections/db' }, Date.now());
 */
export function serveSecrets(store: SecretStore, target: string, b: Record<string, unknown>, now: number): GatewayResponse {
  const op = target.split('.')[1];
  try {
    switch (op) {
      case 'CreateSecret': {
        const s = store.create(b, now);
        return ok({ ARN: s.ARN, Name: s.Name, ...(s.versions[0] ? { VersionId: s.versions[0].id } : {}) });
      }
      case 'PutSecretValue': {
        const { s, v } = store.putValue(b, now);
        return ok({ ARN: s.ARN, Name: s.Name, VersionId: v.id, VersionStages: v.stages });
      }
      case 'GetSecretValue': {
        const { s, v } = store.getValue(b, now);
        return ok({ ARN: s.ARN, Name: s.Name, VersionId: v.id, SecretString: v.value, VersionStages: v.stages, CreatedDate: sec(v.created) });
      }
      case 'DeleteSecret': {
        const { s, at } = store.delete(b, now);
        return ok({ ARN: s.ARN, Name: s.Name, DeletionDate: sec(at) });
      }
      case 'ListSecrets': {
        const filters = (b.Filters ?? []) as { Key?: string; Values?: string[] }[];
        const other = filters.find((f) => f.Key !== 'name');
        if (other) throw new SecretsApiError('InvalidParameterException', `the rehearsal filters ListSecrets by name only, not by ${String(other.Key)}`);
        const prefixes = filters.length ? filters.flatMap((f) => f.Values ?? []) : undefined;
        const max = b.MaxResults === undefined ? 100 : Number(b.MaxResults);
        if (!Number.isInteger(max) || max < 1 || max > 100) throw new SecretsApiError('InvalidParameterException', 'MaxResults must be between 1 and 100.');
        const all = store.list(prefixes, b.IncludePlannedDeletion === true);
        const start = typeof b.NextToken === 'string' ? Number(Buffer.from(b.NextToken, 'base64').toString('utf8')) : 0;
        if (!Number.isInteger(start) || start < 0) throw new SecretsApiError('InvalidNextTokenException', 'The NextToken value is invalid.');
        const page = all.slice(start, start + max).map((s) => ({
          ARN: s.ARN, Name: s.Name, CreatedDate: sec(s.created), LastChangedDate: sec(s.changed),
          SecretVersionsToStages: Object.fromEntries(s.versions.map((v) => [v.id, v.stages])),
          ...(s.deletionDate !== undefined ? { DeletedDate: sec(s.deletionDate) } : {}),
        }));
        const next = start + max < all.length ? Buffer.from(String(start + max)).toString('base64') : undefined;
        return ok({ SecretList: page, ...(next ? { NextToken: next } : {}) });
      }
      default:
        throw new SecretsApiError('InvalidRequestException', `the rehearsal serves GetSecretValue, CreateSecret, PutSecretValue, DeleteSecret and ListSecrets of Secrets Manager, not ${op ?? target}`);
    }
  } catch (e) {
    if (e instanceof SecretsApiError) return errorResponse('secretsmanager', 400, e.code, e.message);
    throw e;
  }
}
