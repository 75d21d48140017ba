/**
 * SSM Parameter Store, in process: the operations Airless sends (GetParameter,
 * PutParameter, DeleteParameter, GetParametersByPath; lib/adapters/aws/secrets-aws.ts) over
 * their JSON 1.1 protocol (`X-Amz-Target: AmazonSSM.Op`), answered as AWS answers them:
 * ParameterNotFound, ParameterAlreadyExists without Overwrite, a SecureString's value
 * decrypted only WithDecryption (else an opaque ciphertext), versions counted per name,
 * at most 10 results a page by path. No emulator of this API on npm runs without Docker.
 */
import { errorResponse, type GatewayResponse } from '../errors.js';

export interface Parameter {
  Name: string;
  Type: 'String' | 'StringList' | 'SecureString';
  Value: string;
  Version: number;
  /** Milliseconds since the epoch (epoch seconds on the wire). */
  LastModifiedDate: number;
  ARN: string;
}

/** An SSM API error: the SDK raises it by `code` (its exception name). */
export class SsmApiError extends Error {
  constructor(readonly code: string, message: string) {
    super(message);
    this.name = 'SsmApiError';
  }
}

const TYPES = new Set(['String', 'StringList', 'SecureString']);
/** Standard tier: 4 KB values. */
const MAX_VALUE = 4096;

/**
 * @example
 * const params = new ParameterStore({ region: 'us-east-1', accountId: '000000000000' });
 * params.put({ Name: '/airless/variables/x', Value: '1', Type: 'String' }, Date.now());
 */
export class ParameterStore {
  private readonly byName = new Map<string, Parameter>();
  constructor(private readonly scope: { region: string; accountId: string }) {}

  /** The ARN IAM evaluates: the name's leading slash dropped (parameter/airless/variables/x). */
  arn(name: string): string {
    return `arn:aws:ssm:${this.scope.region}:${this.scope.accountId}:parameter/${name.replace(/^\//, '')}`;
  }

  /** A name given as the parameter's ARN is read as its name. */
  nameOf(nameOrArn: string): string {
    const m = /^arn:aws:ssm:[^:]*:\d*:parameter(\/.*)$/.exec(nameOrArn);
    if (!m) return nameOrArn;
    const rest = m[1]!.slice(1);
    return [...this.byName.keys()].find((n) => n.replace(/^\//, '') === rest) ?? (rest.includes('/') ? `/${rest}` : rest);
  }

  put(i: { Name?: unknown; Value?: unknown; Type?: unknown; Overwrite?: unknown }, now: number): { Version: number; Tier: 'Standard' } {
    const name = validName(i.Name);
    if (typeof i.Value !== 'string' || i.Value.length === 0) throw new SsmApiError('ValidationException', '1 validation error detected: Value at \'value\' failed to satisfy constraint: Member must have length greater than or equal to 1');
    if (i.Value.length > MAX_VALUE) throw new SsmApiError('ValidationException', `Standard tier parameters support a maximum parameter value of ${MAX_VALUE} characters. To create a larger parameter value, upgrade the parameter to use the advanced-parameter tier.`);
    if (i.Type !== undefined && !TYPES.has(String(i.Type))) throw new SsmApiError('ValidationException', `1 validation error detected: Value '${String(i.Type)}' at 'type' failed to satisfy constraint: Member must satisfy enum value set: [SecureString, StringList, String]`);
    const old = this.byName.get(name);
    if (old && i.Overwrite !== true) throw new SsmApiError('ParameterAlreadyExists', 'The parameter already exists. To overwrite this value, set the overwrite option in the request to true.');
    const p: Parameter = {
      Name: name, Type: (i.Type as Parameter['Type'] | undefined) ?? old?.Type ?? 'String', Value: i.Value,
      Version: (old?.Version ?? 0) + 1, LastModifiedDate: now, ARN: this.arn(name),
    };
    this.byName.set(name, p);
    return { Version: p.Version, Tier: 'Standard' };
  }

  get(nameOrArn: unknown): Parameter {
    const p = typeof nameOrArn === 'string' ? this.byName.get(this.nameOf(nameOrArn)) : undefined;
    if (!p) throw new SsmApiError('ParameterNotFound', '');
    return p;
  }

  delete(nameOrArn: unknown): void {
    const p = this.get(nameOrArn);
    this.byName.delete(p.Name);
  }

  /** Parameters under `path` (its direct children, or every level when recursive), by name. */
  byPath(path: unknown, recursive: boolean): Parameter[] {
    if (typeof path !== 'string' || !path.startsWith('/')) throw new SsmApiError('ValidationException', 'The parameter doesn\'t meet the parameter name requirements. The parameter name must begin with a forward slash "/".');
    const prefix = path.endsWith('/') ? path : `${path}/`;
    return [...this.byName.values()]
      .filter((p) => p.Name.startsWith(prefix) && (recursive || !p.Name.slice(prefix.length).includes('/')))
      .sort((a, b) => a.Name.localeCompare(b.Name));
  }
}

function validName(name: unknown): string {
  if (typeof name !== 'string' || name.length === 0 || name.length > 2048) throw new SsmApiError('ValidationException', 'Parameter name must be 1 to 2048 characters long.');
  if (!/^[A-Za-z0-9_.\-/]+$/.test(name)) throw new SsmApiError('ValidationException', 'Parameter name: can\'t be prefixed with "aws" or "ssm" (case-insensitive). It must use only letters, numbers, or the following symbols: . (period), - (hyphen), _ (underscore).');
  if (name.includes('/') && !name.startsWith('/')) throw new SsmApiError('ValidationException', 'Parameter name must be a fully qualified name.');
  if (/^\/?(aws|ssm)/i.test(name)) throw new SsmApiError('ValidationException', 'Parameter name: can\'t be prefixed with "aws" or "ssm" (case-insensitive).');
  if (name.split('/').length - 1 > 15) throw new SsmApiError('HierarchyLevelLimitExceededException', 'A hierarchy can have a maximum of 15 levels.');
  return name;
}

/** What a caller without WithDecryption sees of a SecureString: an opaque ciphertext, never the value. */
const ciphertext = (p: Parameter) => Buffer.from(`rehearsal-kms:alias/aws/ssm:${p.ARN}:v${p.Version}`).toString('base64');

const shown = (p: Parameter, decrypt: boolean) => ({
  Name: p.Name, Type: p.Type, Value: p.Type === 'SecureString' && !decrypt ? ciphertext(p) : p.Value,
  Version: p.Version, LastModifiedDate: p.LastModifiedDate / 1000, ARN: p.ARN, DataType: 'text',
});

const ok = (body: unknown): GatewayResponse => ({ status: 200, headers: { 'content-type': 'application/x-amz-json-1.1', 'x-amzn-requestid': 'rehearsal' }, body: JSON.stringify(body) });

/**
 * Serve one authorized request.
 *
 * @example
 * serveSsm(params, 'AmazonSSM.GetParameter', { Name: '/airless/variables/x', WithDecryption: true }, Date.now());
 */
export function serveSsm(s: ParameterStore, target: string, b: Record<string, unknown>, now: number): GatewayResponse {
  const op = target.split('.')[1];
  try {
    switch (op) {
      case 'GetParameter':
        return ok({ Parameter: shown(s.get(b.Name), b.WithDecryption === true) });
      case 'PutParameter':
        return ok(s.put(b, now));
      case 'DeleteParameter':
        s.delete(b.Name);
        return ok({});
      case 'GetParametersByPath': {
        const max = b.MaxResults === undefined ? 10 : Number(b.MaxResults);
        if (!Number.isInteger(max) || max < 1 || max > 10) throw new SsmApiError('ValidationException', `1 validation error detected: Value '${String(b.MaxResults)}' at 'maxResults' failed to satisfy constraint: Member must have value less than or equal to 10`);
        const all = s.byPath(b.Path, b.Recursive === true);
        const start = typeof b.NextToken === 'string' ? Number(Buffer.from(b.NextToken, 'base64').toString('utf8')) : 0;
        if (!Number.isInteger(start) || start < 0) throw new SsmApiError('ValidationException', 'The specified token is not valid.');
        const page = all.slice(start, start + max);
        const next = start + max < all.length ? Buffer.from(String(start + max)).toString('base64') : undefined;
        return ok({ Parameters: page.map((p) => shown(p, b.WithDecryption === true)), ...(next ? { NextToken: next } : {}) });
      }
      default:
        throw new SsmApiError('InvalidAction', `the rehearsal serves GetParameter, PutParameter, DeleteParameter and GetParametersByPath of SSM, not ${op ?? target}`);
    }
  } catch (e) {
    if (e instanceof SsmApiError) return errorResponse('ssm', 400, e.code, e.message);
    throw e;
  }
}
