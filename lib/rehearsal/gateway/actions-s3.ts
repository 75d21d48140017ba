/**
 * S3 (REST, path-style or virtual-host-style) → IAM checks, with the condition keys our
 * policies use (s3:prefix, s3:delimiter, s3:max-keys on ListBucket).
 */
import type { IncomingHttpHeaders } from 'node:http';
import { GatewayError } from './errors.js';
import type { Check } from './checks.js';

export interface S3Target {
  bucket?: string;
  /** Decoded object key. */
  key?: string;
  /** The request path in path-style form (/bucket/key...), still URL-encoded, for forwarding. */
  pathStyle: string;
}

/**
 * Splits bucket and key from the Host header (bucket.localhost:PORT) or the path (/bucket/key).
 *
 * @example
 * s3Target('127.0.0.1:4000', '/bundles/v1/manifest.json') // { bucket: 'bundles', key: 'v1/manifest.json', pathStyle: '/bundles/v1/manifest.json' }
 */
export function s3Target(host: string, rawPath: string, gatewayHosts: string[]): S3Target {
  const hostname = host.replace(/:\d+$/, '');
  const vhost = gatewayHosts.find((h) => hostname.endsWith(`.${h}`));
  const pathStyle = vhost ? `/${hostname.slice(0, -(vhost.length + 1))}${rawPath === '/' ? '' : rawPath}` : rawPath;
  const [, bucket, ...rest] = pathStyle.split('/');
  const key = rest.length ? decodeURIComponent(rest.join('/')) : undefined;
  return { ...(bucket ? { bucket } : {}), ...(key ? { key } : {}), pathStyle: pathStyle || '/' };
}

const BUCKET_SUBRESOURCES: Record<string, [get: string, put: string, del?: string]> = {
  policy: ['GetBucketPolicy', 'PutBucketPolicy', 'DeleteBucketPolicy'],
  notification: ['GetBucketNotification', 'PutBucketNotification'],
  cors: ['GetBucketCORS', 'PutBucketCORS', 'PutBucketCORS'],
  lifecycle: ['GetLifecycleConfiguration', 'PutLifecycleConfiguration', 'PutLifecycleConfiguration'],
  tagging: ['GetBucketTagging', 'PutBucketTagging', 'PutBucketTagging'],
  versioning: ['GetBucketVersioning', 'PutBucketVersioning'],
  encryption: ['GetEncryptionConfiguration', 'PutEncryptionConfiguration', 'PutEncryptionConfiguration'],
  acl: ['GetBucketAcl', 'PutBucketAcl'],
  website: ['GetBucketWebsite', 'PutBucketWebsite', 'DeleteBucketWebsite'],
  location: ['GetBucketLocation', 'GetBucketLocation'],
  uploads: ['ListBucketMultipartUploads', 'ListBucketMultipartUploads'],
  versions: ['ListBucketVersions', 'ListBucketVersions'],
};

/**
 * @example
 * s3Checks('GET', { bucket: 'b', pathStyle: '/b' }, new URLSearchParams('list-type=2&prefix=bundles/'), {})
 * // [{ action: 's3:ListBucket', resource: 'arn:aws:s3:::b', context: { 's3:prefix': 'bundles/' } }]
 */
export function s3Checks(method: string, t: S3Target, query: URLSearchParams, headers: IncomingHttpHeaders, deleteKeys: string[] = []): Check[] {
  if (!t.bucket) {
    if (method === 'GET') return [{ action: 's3:ListAllMyBuckets', resource: '*' }];
    throw new GatewayError(`S3 ${method} / is not an S3 operation`);
  }
  const bucketArn = `arn:aws:s3:::${t.bucket}`;
  if (t.key === undefined) {
    const sub = Object.keys(BUCKET_SUBRESOURCES).find((s) => query.has(s));
    if (sub) {
      const [get, put, del] = BUCKET_SUBRESOURCES[sub]!;
      const action = method === 'GET' || method === 'HEAD' ? get : method === 'DELETE' ? del ?? put : put;
      return [{ action: `s3:${action}`, resource: bucketArn }];
    }
    if (method === 'POST' && query.has('delete')) {
      return deleteKeys.map((k) => ({ action: 's3:DeleteObject', resource: `${bucketArn}/${k}` }));
    }
    if (method === 'GET' || method === 'HEAD') {
      const context: Record<string, string> = {};
      for (const [param, key] of [['prefix', 's3:prefix'], ['delimiter', 's3:delimiter'], ['max-keys', 's3:max-keys']] as const) {
        const v = query.get(param);
        if (v !== null) context[key] = v;
      }
      return [{ action: 's3:ListBucket', resource: bucketArn, ...(Object.keys(context).length ? { context } : {}) }];
    }
    if (method === 'PUT') return [{ action: 's3:CreateBucket', resource: bucketArn }];
    if (method === 'DELETE') return [{ action: 's3:DeleteBucket', resource: bucketArn }];
    throw new GatewayError(`S3 ${method} on a bucket is not an operation the gateway knows`);
  }
  const objectArn = `${bucketArn}/${t.key}`;
  const versioned = query.has('versionId') ? 'Version' : '';
  if (query.has('tagging')) {
    const action = method === 'GET' ? 'GetObjectTagging' : method === 'DELETE' ? 'DeleteObjectTagging' : 'PutObjectTagging';
    return [{ action: `s3:${action}`, resource: objectArn }];
  }
  if (query.has('acl')) return [{ action: method === 'GET' ? 's3:GetObjectAcl' : 's3:PutObjectAcl', resource: objectArn }];
  switch (method) {
    case 'GET':
      if (query.has('uploadId')) return [{ action: 's3:ListMultipartUploadParts', resource: objectArn }];
      return [{ action: `s3:GetObject${versioned}`, resource: objectArn }];
    case 'HEAD':
      return [{ action: `s3:GetObject${versioned}`, resource: objectArn }];
    case 'PUT':
    case 'POST': {
      const checks: Check[] = [{ action: 's3:PutObject', resource: objectArn }];
      const source = headers['x-amz-copy-source'];
      if (typeof source === 'string') {
        const [path] = decodeURIComponent(source).replace(/^\//, '').split('?');
        checks.push({ action: 's3:GetObject', resource: `arn:aws:s3:::${path}` });
      }
      return checks;
    }
    case 'DELETE':
      if (query.has('uploadId')) return [{ action: 's3:AbortMultipartUpload', resource: objectArn }];
      return [{ action: `s3:DeleteObject${versioned}`, resource: objectArn }];
    default:
      throw new GatewayError(`S3 ${method} on an object is not an operation the gateway knows`);
  }
}

/** Keys named in a DeleteObjects body (<Delete><Object><Key>k</Key>...). */
export function deleteObjectsKeys(xml: string): string[] {
  const unescape = (s: string) => s.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&apos;/g, "'").replace(/&amp;/g, '&');
  return [...xml.matchAll(/<Key>([\s\S]*?)<\/Key>/g)].map((m) => unescape(m[1]!));
}
