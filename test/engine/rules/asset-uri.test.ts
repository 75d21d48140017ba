/**
 * Asset URIs as Airflow 3 sanitizes them (task-sdk definitions/asset/__init__.py
 * `_sanitize_uri` and the identifier validators), plus Airless's one refusal: credentials.
 */
import { describe, expect, it } from 'vitest';
import { assetEventRef, assetId, assetNameProblem, normalizeAssetUri, parseAssetEventRef } from '../../../lib/engine/index.js';

describe('normalizeAssetUri (Airflow rules)', () => {
  it.each([
    ['S3://bucket/raw/orders/', 's3://bucket/raw/orders'],
    ['s3://bucket', 's3://bucket/'],
    ['s3://bucket/', 's3://bucket/'],
    ['s3://b/k?z=1&a=2&a=1#frag', 's3://b/k?a=1&a=2&z=1'],
    ['s3://b/k?blank=&x=1&bare', 's3://b/k?x=1'],
    ['file:///tmp/data/', 'file:///tmp/data'],
    ['postgres://db:5432/sales/public/orders', 'postgres://db:5432/sales/public/orders'],
    ['HTTPS://Example.com/a b?q=x y', 'https://Example.com/a b?q=x+y'],
    ['daily_sales', 'daily_sales'],
    ['x-custom://Keep/This/?b=1&a=2#as-is', 'x-custom://Keep/This/?b=1&a=2#as-is'],
  ])('%s -> %s', (input, out) => {
    expect(normalizeAssetUri(input)).toBe(out);
  });

  it.each([
    ['airflow://dag/x', /scheme "airflow" is reserved/],
    ['s3://user:secret@bucket/key', /must not contain credentials/],
    ['s3:///no-bucket', /must contain a bucket name/],
    ['gs://', /must contain a bucket name/],
    ['', /cannot be empty/],
    ['   ', /just whitespace/],
    ['a'.repeat(1501), /cannot exceed 1500/],
    ['s3://b/a\nb', /control character/],
  ])('refuses %j', (input, msg) => {
    expect(() => normalizeAssetUri(input)).toThrow(msg);
  });

  it('names: not empty, not self or context, at most 1500 characters', () => {
    expect(assetNameProblem('orders')).toBeUndefined();
    expect(assetNameProblem('self')).toMatch(/prohibited name/);
    expect(assetNameProblem('context')).toMatch(/prohibited name/);
    expect(assetNameProblem('')).toMatch(/cannot be empty/);
  });

  it('ids are stable 52-bit integers; refs sort by time', () => {
    expect(assetId('s3://b/x')).toBe(assetId('s3://b/x'));
    expect(assetId('s3://b/x')).not.toBe(assetId('s3://b/y'));
    expect(Number.isSafeInteger(assetId('s3://b/x'))).toBe(true);
    const early = assetEventRef(9_000, 'ff');
    const late = assetEventRef(10_000, '00');
    expect(early < late).toBe(true);
    expect(parseAssetEventRef(late)).toEqual({ timestamp: 10_000, hash: '00' });
  });
});
