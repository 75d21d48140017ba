/**
 * Record <-> DynamoDB item mapping. The encoding is driven by JavaScript types, so new
 * optional fields of the model need no change here: strings are S, numbers N, booleans
 * BOOL, objects and arrays B (UTF-8 JSON, which round-trips exactly what JSON does, as the
 * memory store does), and a value offloaded to a {@link BlobStore} is M `{ $blob: key }`.
 * Upstream outcomes of a task are one top-level attribute each (`u:<taskId>`), so that
 * recording one is a single-attribute SET that works on a missing item.
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { AirlessError, InvalidInputError, OversizedValueError } from '../../engine/index.js';
import { parseRunState, parseTaskState, type UpstreamOutcome } from '../../engine/index.js';
import type { BlobStore } from './blob.js';
import { UPSTREAM_PREFIX } from './dynamo-schema.js';

export type Item = Record<string, AttributeValue>;

/** An item read from DynamoDB does not decode to a valid record (e.g. an unknown state). */
export class CorruptItemError extends AirlessError {}

/** JSON values above this many bytes leave the item for the blob store (items hold 400 KB). */
export const MAX_INLINE_JSON_BYTES = 350_000;

/** Attributes the store adds for keys and indexes; they are not record fields. */
export const INTERNAL_ATTRS: ReadonlySet<string> = new Set(['runKey', 'dueShard', 'activeDag', 'pk', 'ttl']);

const utf8 = new TextEncoder();
const fromUtf8 = new TextDecoder();

export function jsonBytes(value: unknown): Uint8Array {
  return utf8.encode(JSON.stringify(value === undefined ? null : value));
}

/** Encodes one field value; `undefined`/`null` have no attribute (the caller removes). */
export function encodeValue(name: string, v: unknown): AttributeValue {
  switch (typeof v) {
    case 'string':
      return { S: v };
    case 'number':
      if (!Number.isFinite(v)) throw new InvalidInputError(`field ${name} is ${v}: only finite numbers can be stored`);
      return { N: String(v) };
    case 'boolean':
      return { BOOL: v };
    case 'object':
      return { B: jsonBytes(v) };
    default:
      throw new InvalidInputError(`field ${name} has type ${typeof v}, which cannot be stored`);
  }
}

/**
 * Encodes a JSON value inline, or offloads it when too large.
 * `what` names the value in the error a user sees when there is no blob store.
 */
export async function encodeJson(value: unknown, blobKey: string, what: string, blobs?: BlobStore): Promise<AttributeValue> {
  const bytes = jsonBytes(value);
  if (bytes.byteLength <= MAX_INLINE_JSON_BYTES) return { B: bytes };
  if (!blobs) {
    throw new OversizedValueError(
      `${what} is ${bytes.byteLength} bytes of JSON; DynamoDB items hold at most 400 KB and no blob store (S3) is configured. ` +
        `Store large data elsewhere (e.g. S3) and pass its location instead.`,
    );
  }
  await blobs.put(blobKey, bytes);
  return { M: { $blob: { S: blobKey } } };
}

/** Decodes one attribute value (loading offloaded JSON from the blob store). */
export async function decodeValue(av: AttributeValue, blobs?: BlobStore): Promise<unknown> {
  if (av.S !== undefined) return av.S;
  if (av.N !== undefined) return Number(av.N);
  if (av.BOOL !== undefined) return av.BOOL;
  if (av.B !== undefined) return JSON.parse(fromUtf8.decode(av.B));
  const blobKey = av.M?.['$blob']?.S;
  if (blobKey !== undefined) {
    if (!blobs) throw new CorruptItemError(`value stored in blob ${blobKey} but no blob store is configured`);
    return JSON.parse(fromUtf8.decode(await blobs.get(blobKey)));
  }
  if (av.NULL) return null;
  throw new CorruptItemError(`unsupported attribute value ${JSON.stringify(Object.keys(av))}`);
}

/** Turns a record into item attributes (undefined and null fields are left out). */
export function encodeFields(rec: object, skip: ReadonlySet<string> = new Set()): Item {
  const item: Item = {};
  for (const [k, v] of Object.entries(rec)) {
    if (v === undefined || v === null || skip.has(k)) continue;
    item[k] = encodeValue(k, v);
  }
  return item;
}

/** Turns item attributes back into a plain record; upstream attributes go to `upstream`. */
export async function decodeFields(item: Item, blobs?: BlobStore): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  let upstream: Record<string, UpstreamOutcome> | undefined;
  for (const [k, av] of Object.entries(item)) {
    if (INTERNAL_ATTRS.has(k)) continue;
    if (k.startsWith(UPSTREAM_PREFIX)) {
      (upstream ??= {})[k.slice(UPSTREAM_PREFIX.length)] = av.S as UpstreamOutcome;
      continue;
    }
    out[k] = await decodeValue(av, blobs);
  }
  if (upstream) out['upstream'] = upstream;
  return out;
}

/** Validates the state of a decoded task or run, naming the item in the error. */
export function checkState(kind: 'task' | 'run', rec: Record<string, unknown>, where: string): void {
  try {
    if (kind === 'task') parseTaskState(rec['state']);
    else parseRunState(rec['state']);
  } catch (err) {
    throw new CorruptItemError(`${kind} item ${where} in DynamoDB is invalid: ${(err as Error).message}`, { cause: err });
  }
}

/**
 * Builds condition and update expressions with generated placeholders, so that names
 * and values never collide with reserved words or with each other.
 *
 * @example
 * const x = new Expr();
 * const cond = and(notExists(x, 'dagId'));
 * send(new PutItemCommand({ ..., ConditionExpression: cond, ...x.params() }));
 */
export class Expr {
  private readonly names: Record<string, string> = {};
  private readonly nameIds = new Map<string, string>();
  private readonly values: Record<string, AttributeValue> = {};
  private n = 0;
  private readonly sets: string[] = [];
  private readonly removes: string[] = [];

  name(attr: string): string {
    let id = this.nameIds.get(attr);
    if (!id) {
      id = `#n${this.nameIds.size}`;
      this.nameIds.set(attr, id);
      this.names[id] = attr;
    }
    return id;
  }

  value(av: AttributeValue): string {
    const id = `:v${this.n++}`;
    this.values[id] = av;
    return id;
  }

  set(attr: string, av: AttributeValue): this {
    this.sets.push(`${this.name(attr)} = ${this.value(av)}`);
    return this;
  }

  setRaw(clause: string): this {
    this.sets.push(clause);
    return this;
  }

  remove(attr: string): this {
    this.removes.push(this.name(attr));
    return this;
  }

  get hasUpdates(): boolean {
    return this.sets.length + this.removes.length > 0;
  }

  update(): string {
    const parts: string[] = [];
    if (this.sets.length) parts.push(`SET ${this.sets.join(', ')}`);
    if (this.removes.length) parts.push(`REMOVE ${this.removes.join(', ')}`);
    return parts.join(' ');
  }

  params(): { ExpressionAttributeNames?: Record<string, string>; ExpressionAttributeValues?: Item } {
    return {
      ExpressionAttributeNames: this.nameIds.size ? this.names : undefined,
      ExpressionAttributeValues: this.n ? this.values : undefined,
    };
  }
}

// Named sub-conditions: every conditional write is an `and` of these.
export const exists = (x: Expr, attr: string): string => `attribute_exists(${x.name(attr)})`;
export const notExists = (x: Expr, attr: string): string => `attribute_not_exists(${x.name(attr)})`;
export function stateIs(x: Expr, state: string | readonly string[]): string {
  const states = typeof state === 'string' ? [state] : state;
  if (states.length === 0) return `attribute_exists(${x.name('airless:never')})`;
  return `${x.name('state')} IN (${states.map((s) => x.value({ S: s })).join(', ')})`;
}
export const tryIs = (x: Expr, n: number): string => `${x.name('tryNumber')} = ${x.value({ N: String(n) })}`;
export const ownerIs = (x: Expr, owner: string): string => `${x.name('owner')} = ${x.value({ S: owner })}`;
/** `attr` equals `v`, or is absent when `v` is null. */
export const numberIs = (x: Expr, attr: string, v: number | null): string =>
  v === null ? notExists(x, attr) : `${x.name(attr)} = ${x.value({ N: String(v) })}`;
/** Absent (counts as 0 / never) or strictly below `limit`. */
export const below = (x: Expr, attr: string, limit: number): string =>
  `(attribute_not_exists(${x.name(attr)}) OR ${x.name(attr)} < ${x.value({ N: String(limit) })})`;
export const and = (...parts: (string | undefined | false)[]): string => parts.filter(Boolean).join(' AND ');
