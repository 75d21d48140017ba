/**
 * The deploy defaults of ADR 0008 on the default stack (one synth):
 * - tables named by CloudFormation: a table RETAINed by an earlier stack can never block
 *   the next deploy ("already exists"), and every reader gets the generated names from
 *   the functions' environment or the stack's outputs, never from a prefix;
 * - offloaded values under `blobs/` expire with their runs; DAG specs and bundles do not.
 */
import { App, Stack } from 'aws-cdk-lib';
import { Template, type Template as T } from 'aws-cdk-lib/assertions';
import { readdir, readFile } from 'node:fs/promises';
import { beforeAll, describe, expect, it } from 'vitest';
import { tableNames, type TableNames } from '../../lib/adapters/aws/dynamo-schema.js';
import { envFromOutputs } from '../../lib/cli/aws-stack.js';
import type { AirlessStack } from '../../lib/infra/stack.js';
import { BLOBS_PREFIX, BUNDLES_PREFIX, EXPIRING_BLOB_KINDS } from '../../lib/infra/bundle-bucket.js';
import { PROJECT_ROOT } from '../../lib/infra/functions.js';
import { StateTables } from '../../lib/infra/state-tables.js';
import { readAwsEnv, tableDefinitions, tableEnvName, tableOutputName } from '../../lib/adapters/aws/stack-contract.js';
import { NO_BUNDLING, logicalId, resourcesOf, synthAirless } from './synth.js';

interface Rule {
  Id?: string;
  Prefix?: string;
  Status: string;
  ExpirationInDays?: number;
  ExpiredObjectDeleteMarker?: boolean;
  NoncurrentVersionExpiration?: { NoncurrentDays: number };
}

let stack: AirlessStack;
let template: T;
let rules: Rule[];
/** What CloudFormation would call each table, by logical id. */
const generated: Record<string, string> = {};

/** Replaces `{ Ref: table }` by the name CloudFormation would generate. */
function resolve(values: Record<string, unknown>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(values).map(([k, v]) => {
      const ref = (v as { Ref?: string })?.Ref;
      return [k, ref && generated[ref] ? generated[ref] : typeof v === 'string' ? v : JSON.stringify(v)];
    }),
  );
}

beforeAll(() => {
  ({ stack, template } = synthAirless());
  for (const id of Object.keys(resourcesOf(template, 'AWS::DynamoDB::Table'))) generated[id] = `Airless-${id}-1X2Y3Z`;
  rules = resourcesOf(template, 'AWS::S3::Bucket')[logicalId(stack, stack.airless.bundles.bucket)].Properties.LifecycleConfiguration.Rules;
});

describe('tables named by CloudFormation', () => {
  it('names no table, though each is retained with deletion protection', () => {
    const tables = Object.values(resourcesOf(template, 'AWS::DynamoDB::Table'));
    expect(tables).toHaveLength(tableDefinitions.length);
    for (const t of tables) {
      expect(t.DeletionPolicy).toBe('Retain');
      expect(t.Properties.TableName).toBeUndefined();
    }
  });

  it('gives every function each table name, and no prefix', () => {
    const fns = stack.airless.functions.all.map((f) => resourcesOf(template, 'AWS::Lambda::Function')[logicalId(stack, f)].Properties);
    for (const fn of fns) {
      const env = fn.Environment.Variables;
      expect(env.AIRLESS_TABLE_PREFIX).toBeUndefined();
      for (const { id } of tableDefinitions) {
        expect(env[tableEnvName(id)]).toEqual({ Ref: logicalId(stack, stack.airless.state.tables[id]) });
      }
    }
  });

  it('the functions find the generated names in their environment', () => {
    const worker = resourcesOf(template, 'AWS::Lambda::Function')[logicalId(stack, stack.airless.functions.worker)].Properties;
    const env = readAwsEnv(resolve(worker.Environment.Variables));
    const expected = Object.fromEntries(tableDefinitions.map(({ id }) => [id, generated[logicalId(stack, stack.airless.state.tables[id])]]));
    expect(tableNames(env.tablePrefix, env.tableNames)).toEqual(expected);
  });

  it('the CLI finds the generated names in the stack outputs', () => {
    const outputs = template.findOutputs('*');
    expect(outputs.TablePrefix).toBeUndefined();
    const values = resolve(Object.fromEntries(Object.entries(outputs).map(([k, o]) => [k, (o as { Value: unknown }).Value])));
    const env = envFromOutputs(values, { stackName: 'Airless' });
    for (const { id } of tableDefinitions) {
      expect(env.tableNames[id]).toBe(generated[logicalId(stack, stack.airless.state.tables[id])]);
      expect(values[tableOutputName(id)]).toBe(env.tableNames[id]);
    }
  });

  it('still reads a stack deployed with fixed names (TablePrefix output, no table outputs)', () => {
    const env = envFromOutputs(
      { BucketName: 'b', TablePrefix: 'Old-', QueueUrl: 'https://sqs.us-east-1.amazonaws.com/1/q', SchedulerGroup: 't', DagScheduleGroup: 'd' },
      { stackName: 'Old' },
    );
    expect(tableNames(env.tablePrefix, env.tableNames).tasks).toBe('Old-tasks');
  });
});

describe('readAwsEnv table names', () => {
  const base = { AIRLESS_QUEUE_URL: 'q', AIRLESS_QUEUE_ARN: 'a', AIRLESS_BUCKET: 'b' };

  it('falls back to AIRLESS_TABLE_PREFIX for local setups', () => {
    const env = readAwsEnv({ ...base, AIRLESS_TABLE_PREFIX: 'dev-' });
    expect(tableNames(env.tablePrefix, env.tableNames)).toEqual(tableNames('dev-'));
  });

  it('names the missing variable in one line', () => {
    const names: Partial<Record<string, string>> = Object.fromEntries(tableDefinitions.map(({ id }) => [tableEnvName(id), `n-${id}`]));
    delete names.AIRLESS_TABLE_KV;
    expect(() => readAwsEnv({ ...base, ...names })).toThrow(/^environment variable AIRLESS_TABLE_KV \(or AIRLESS_TABLE_PREFIX\) is not set/);
  });
});

describe('StateTables with a tablePrefix', () => {
  it('names the tables prefix + suffix, to keep the tables of a stack deployed with fixed names', () => {
    const s = new Stack(new App({ context: NO_BUNDLING }), 'S');
    const state = new StateTables(s, 'State', { tablePrefix: 'Airless-' });
    const names = Object.values(Template.fromStack(s).findResources('AWS::DynamoDB::Table')).map((t) => t.Properties.TableName);
    expect(names.sort()).toEqual(Object.values(tableNames('Airless-') as TableNames).sort());
    expect(state.tablePrefix).toBe('Airless-');
  });
});

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
    // The DynamoDB store and the parts split out of it (dynamo-dags.ts, dynamo-values.ts, ...).
    const dir = `${PROJECT_ROOT}lib/adapters/aws/`;
    const files = (await readdir(dir)).filter((f) => /^dynamo-.*\.ts$/.test(f));
    const source = (await Promise.all(files.map((f) => readFile(dir + f, 'utf8')))).join('\n');
    const kinds = new Set([...source.matchAll(/blobPath\(\s*'([^']+)'/g)].map((m) => m[1]));
    expect(kinds.size).toBeGreaterThan(0);
    expect([...kinds].sort()).toEqual([...EXPIRING_BLOB_KINDS, 'spec'].sort());
  });
});
