/**
 * Register-bundle: when `bundles/<version>/manifest.json` lands in S3, validates the
 * manifest, upserts the DAG registry and syncs one EventBridge schedule per scheduled
 * DAG. An invalid manifest is logged with the reason and registers nothing.
 */
import middy from '@middy/core';
import type { S3Event } from 'aws-lambda';
import { registerBundleVersion } from '../lib/adapters/aws/register.js';
import { flushMetrics, lambdaPorts } from '../lib/adapters/aws/lambda.js';

export const run = async (event: S3Event) => {
  const ports = lambdaPorts();
  const out = [];
  for (const r of event.Records ?? []) {
    const key = decodeURIComponent(r.s3.object.key.replace(/\+/g, ' '));
    out.push(await registerBundleVersion(ports, key));
  }
  return out;
};

export const handler = middy(run).use(flushMetrics());
