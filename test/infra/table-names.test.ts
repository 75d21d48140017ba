/**
 * Tables named by CloudFormation: a table RETAINed by an earlier stack can never block
 * the next deploy ("already exists"), and every reader gets the generated names from the
 * functions' environment or the stack's outputs, never from a prefix.
 */
import { App, Stack } from 'aws-cdk-lib';
import { Template, type Template as T } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { tableNames, type TableNames } from '../../lib/adapters/aws/dynamo-schema.js';
import { readAwsEnv } from '../../lib/adapters/aws/wiring.js';
import { envFromOutputs } from '../../lib/cli/aws-stack.js';
import type { AirlessStack } from '../../lib/infra/stack.js';
import { StateTables } from '../../lib/infra/state-tables.js';
import { tableDefinitions, tableEnvName, tableOutputName } from '../../lib/infra/table-definitions.js';
import { NO_BUNDLING, logicalId, resourcesOf, synthAirless } from './synth.js';

let stack: AirlessStack;
let template: T;
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
