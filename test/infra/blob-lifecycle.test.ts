/**
 * Offloaded values under `blobs/` expire with their runs; DAG specs and bundles do not.
 */
import { readFile } from 'node:fs/promises';
import { beforeAll, describe, expect, it } from 'vitest';
import { BLOBS_PREFIX, BUNDLES_PREFIX, EXPIRING_BLOB_KINDS } from '../../lib/infra/bundle-bucket.js';
import { PROJECT_ROOT } from '../../lib/infra/functions.js';
import type { AirlessStack } from '../../lib/infra/stack.js';
import { logicalId, resourcesOf, synthAirless } from './synth.js';

interface Rule {
  Id?: string;
  Prefix?: string;
  Status: string;
  ExpirationInDays?: number;
  ExpiredObjectDeleteMarker?: boolean;
  NoncurrentVersionExpiration?: { NoncurrentDays: number };
}

let rules: Rule[];

beforeAll(() => {
  const { stack, template } = synthAirless();
  rules = bucketRules(stack as AirlessStack, resourcesOf(template, 'AWS::S3::Bucket'));
});

function bucketRules(stack: AirlessStack, buckets: ReturnType<typeof resourcesOf>): Rule[] {
  return buckets[logicalId(stack, stack.airless.bundles.bucket)].Properties.LifecycleConfiguration.Rules;
}

describe('bundle bucket lifecycle', () => {
  it('expires run-scoped blobs 120 days after they are written (90-day run retention + 30)', () => {
    const expiring = rules.filter((r) => r.ExpirationInDays !== undefined);
    expect(expiring.map((r) => r.Prefix).sort()).toEqual(['blobs/conf/', 'blobs/signal/', 'blobs/xcom/']);
    for (const r of expiring) expect(r).toMatchObject({ Status: 'Enabled', ExpirationInDays: 120 });
  });

  it('never expires bundles or DAG specs, and still drops old versions and stale delete markers', () => {
    for (const r of rules.filter((x) => x.ExpirationInDays !== undefined)) {
      expect(`${BUNDLES_PREFIX}v1/manifest.json`.startsWith(r.Prefix ?? '')).toBe(false);
      expect(`${BLOBS_PREFIX}spec/etl_daily`.startsWith(r.Prefix ?? '')).toBe(false);
    }
    expect(rules).toContainEqual(expect.objectContaining({
      NoncurrentVersionExpiration: { NoncurrentDays: 30 }, ExpiredObjectDeleteMarker: true,
    }));
  });

  it('covers every kind of blob the store writes, except DAG specs', async () => {
    const source = await readFile(`${PROJECT_ROOT}lib/adapters/aws/dynamo-store.ts`, 'utf8');
    const kinds = new Set([...source.matchAll(/blobPath\(\s*'([^']+)'/g)].map((m) => m[1]));
    expect(kinds.size).toBeGreaterThan(0);
    expect([...kinds].sort()).toEqual([...EXPIRING_BLOB_KINDS, 'spec'].sort());
  });
});
