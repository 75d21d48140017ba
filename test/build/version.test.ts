/**
 * A version id hashes the bundle and the manifest: the same code whose definition reads
 * the environment gets a new version (and its own manifest) when the definition changes.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { bundleVersion as s3BundleVersion } from '../../lib/adapters/aws/s3-bundles.js';
import { buildToLocalVersion, bundleVersion } from '../../lib/build/index.js';
import { LocalBundleSource } from '../../lib/build/local-source.js';

const dir = path.resolve(__dirname, '../fixtures/env-dag');

describe('bundle versions', () => {
  afterEach(() => { delete process.env.AIRLESS_TEST_SCHEDULE; });

  it('changes when only the manifest changes, and keeps each version\'s own manifest', async () => {
    const root = mkdtempSync(path.join(tmpdir(), 'airless-versions-'));
    process.env.AIRLESS_TEST_SCHEDULE = '@daily';
    const daily = await buildToLocalVersion(dir, root);
    process.env.AIRLESS_TEST_SCHEDULE = '@hourly';
    const hourly = await buildToLocalVersion(dir, root);
    expect(hourly.manifest.bundleSha256).toBe(daily.manifest.bundleSha256);
    expect(hourly.version).not.toBe(daily.version);
    expect(hourly.manifest.dags[0].schedule).not.toEqual(daily.manifest.dags[0].schedule);
    process.env.AIRLESS_TEST_SCHEDULE = '@daily';
    const again = await buildToLocalVersion(dir, root);
    expect(again.version).toBe(daily.version);
    expect(again.manifest.dags[0].schedule).toEqual(daily.manifest.dags[0].schedule);
  });

  it('keeps the text of each file defining a DAG beside the bundle, served by the local source', async () => {
    const root = mkdtempSync(path.join(tmpdir(), 'airless-versions-'));
    const { version, manifest } = await buildToLocalVersion(dir, root);
    const sources = await new LocalBundleSource(root).sources(version);
    expect(Object.keys(sources)).toEqual([manifest.dags[0].file]);
    expect(sources[manifest.dags[0].file]).toBe(readFileSync(path.join(dir, manifest.dags[0].file), 'utf8'));
  });

  it('is the same rule locally and for push', async () => {
    const root = mkdtempSync(path.join(tmpdir(), 'airless-versions-'));
    const { version, manifest } = await buildToLocalVersion(dir, root);
    expect(bundleVersion(manifest)).toBe(version);
    expect(s3BundleVersion(manifest)).toBe(version);
  });
});
