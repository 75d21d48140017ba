/**
 * Asset URIs, names and ids, with Airflow 3's rules (task-sdk `_sanitize_uri` and the
 * identifier validators of `Asset`): a string that is not a URI (no scheme) is a plain
 * name and kept as is; a scheme is lower-cased; `x-` schemes are kept verbatim; `airflow`
 * is reserved; the query is sorted (blank values dropped, as `parse_qsl` does); trailing
 * slashes of the path and the fragment go; `s3://` and `gs://` need a bucket.
 * One difference, on purpose: a URI with credentials (`user:pass@`) is refused, where
 * Airflow drops them with a warning: a secret must not travel in a manifest.
 */
import { InvalidInputError } from '../model/errors.js';
import { sha256Hex } from './hash.js';

/** Airflow's limit on names, URIs and groups. */
export const ASSET_ID_MAX = 1500;

// RFC 3986 appendix B, which is how Python's urlsplit cuts a URI too.
const SPLIT = /^(?:([^:/?#]+):)?(?:\/\/([^/?#]*))?([^?#]*)(?:\?([^#]*))?(?:#(.*))?$/s;
const SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*$/;
// Schemes whose URIs keep `//` even with an empty authority (Python's urllib.parse.uses_netloc).
const USES_NETLOC = new Set(['ftp', 'http', 'gopher', 'nntp', 'telnet', 'imap', 'wais', 'file', 'mms', 'https', 'shttp', 'snews',
  'prospero', 'rtsp', 'rtspu', 'rsync', 'svn', 'svn+ssh', 'sftp', 'nfs', 'git', 'git+ssh', 'ws', 'wss']);
/** Schemes whose provider normalizer requires a bucket (Airflow's amazon and google providers). */
const NEEDS_BUCKET = new Set(['s3', 'gs', 'gcs']);

function identifierProblem(what: string, value: unknown, nonEmpty: boolean): string | undefined {
  if (typeof value !== 'string') return `asset ${what} must be a string, got ${JSON.stringify(value)}`;
  if (value.length > ASSET_ID_MAX) return `asset ${what} cannot exceed ${ASSET_ID_MAX} characters (got ${value.length})`;
  if (nonEmpty && value.length === 0) return `asset ${what} cannot be empty`;
  if (value.length > 0 && value.trim().length === 0) return `asset ${what} cannot be just whitespace`;
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(value)) return `asset ${what} ${JSON.stringify(value)} contains a control character`;
  return undefined;
}

/**
 * Why an asset name is invalid, or undefined.
 *
 * @example
 * assetNameProblem('self'); // 'prohibited name for asset: "self"'
 */
export function assetNameProblem(name: unknown): string | undefined {
  const p = identifierProblem('name', name, true);
  if (p) return p;
  if (name === 'self' || name === 'context') return `prohibited name for asset: ${JSON.stringify(name)}`;
  return undefined;
}

/** Why an asset group is invalid, or undefined. */
export function assetGroupProblem(group: unknown): string | undefined {
  return identifierProblem('group', group, false);
}

// Python's quote_plus: unreserved characters stay, space becomes +, the rest is %XX (UTF-8).
function quotePlus(s: string): string {
  return encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`).replace(/%20/g, '+');
}

function unquotePlus(s: string): string {
  const plus = s.replace(/\+/g, ' ');
  try {
    return decodeURIComponent(plus);
  } catch {
    return plus;
  }
}

/** Python's `urlencode(sorted(parse_qsl(query)))`: blank values and bare keys are dropped. */
function normalizeQuery(query: string): string {
  const pairs: [string, string][] = [];
  for (const part of query.split('&')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    const value = unquotePlus(part.slice(eq + 1));
    if (value === '') continue;
    pairs.push([unquotePlus(part.slice(0, eq)), value]);
  }
  pairs.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0));
  return pairs.map(([k, v]) => `${quotePlus(k)}=${quotePlus(v)}`).join('&');
}

/**
 * The normalised form of an asset URI, as Airflow stores it.
 *
 * @example
 * normalizeAssetUri('S3://Bucket/raw/?b=2&a=1#x'); // 's3://Bucket/raw?a=1&b=2'
 * normalizeAssetUri('daily_sales');                  // 'daily_sales' (a plain name)
 * @throws InvalidInputError with the reason in one line.
 */
export function normalizeAssetUri(uri: unknown): string {
  const problem = identifierProblem('uri', uri, true);
  if (problem) throw new InvalidInputError(problem);
  const text = uri as string;
  const m = SPLIT.exec(text)!;
  const [, rawScheme, netloc, path = '', query, fragment] = m;
  const scheme = rawScheme && SCHEME.test(rawScheme) ? rawScheme.toLowerCase() : undefined;
  // Not a URI (no scheme): a plain name, kept as it is.
  if (!scheme) return text;
  if (scheme.startsWith('x-')) return text;
  if (scheme === 'airflow') throw new InvalidInputError(`asset uri ${JSON.stringify(text)}: the scheme "airflow" is reserved`);
  const host = netloc ?? '';
  if (host.includes('@')) {
    throw new InvalidInputError(`asset uri ${JSON.stringify(text)} must not contain credentials (user or password before "@"): name the resource, keep secrets in connections`);
  }
  if (NEEDS_BUCKET.has(scheme) && !host) throw new InvalidInputError(`asset uri ${JSON.stringify(text)}: ${scheme}:// URIs must contain a bucket name`);
  const trimmed = path.replace(/\/+$/, '') || '/';
  const q = query ? normalizeQuery(query) : '';
  void fragment; // fragments are ignored, as Airflow does
  const authority = netloc !== undefined || USES_NETLOC.has(scheme) ? `//${host}` : '';
  const body = authority && !trimmed.startsWith('/') ? `/${trimmed}` : trimmed;
  return `${scheme}:${authority}${body}${q ? `?${q}` : ''}`;
}

/**
 * A stable integer id for an asset (Airflow's asset ids are integers): 52 bits of the
 * sha256 of its URI, so every store and every engine computes the same one.
 *
 * @example
 * assetId('s3://b/raw') === assetId('s3://b/raw'); // true
 */
export function assetId(uri: string): number {
  return parseInt(sha256Hex(`asset\n${uri}`).slice(0, 13), 16);
}

/** The hash naming an event of `uri` with dedup key `key` (the store's key for it). */
export function assetEventHash(uri: string, key: string): string {
  return sha256Hex(`event\n${uri}\n${key}`).slice(0, 32);
}

/**
 * An event's ref: its time (13 digits, so refs sort by time) and its hash.
 *
 * @example
 * assetEventRef(1767225600000, 'ab12'); // '1767225600000.ab12'
 */
export function assetEventRef(timestamp: number, hash: string): string {
  return `${String(Math.max(0, Math.floor(timestamp))).padStart(13, '0')}.${hash}`;
}

/** The parts of a ref. */
export function parseAssetEventRef(ref: string): { timestamp: number; hash: string } {
  const dot = ref.indexOf('.');
  return { timestamp: Number(ref.slice(0, dot)), hash: ref.slice(dot + 1) };
}

/** The integer id of an event (52 bits of its hash). */
export function assetEventId(hash: string): number {
  return parseInt(hash.slice(0, 13), 16);
}
