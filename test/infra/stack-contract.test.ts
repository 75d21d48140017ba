/**
 * The stack contract (lib/adapters/aws/stack-contract.ts) against the synthesized stack:
 * the `AIRLESS_*` variables each function gets and the outputs the stack writes are
 * exactly the contract's names, and the contract's readers (readAwsEnv, envFromOutputs)
 * read back every value the stack writes. One synth, no bundling.
 */
import type { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  AwsConfigError, envFromOutputs, FUNCTION_ENV, functionEnvNames, readAwsEnv, REQUIRED_OUTPUTS, STACK_OUTPUTS,
  tableDefinitions, tableEnvName, tableOutputName, type AwsEnv,
} from '../../lib/adapters/aws/stack-contract.js';
import type { AirlessStack } from '../../lib/infra/stack.js';
import { logicalId, resourcesOf, synthAirless } from './synth.js';

let stack: AirlessStack;
let template: Template;

beforeAll(() => {
  ({ stack, template } = synthAirless());
});

/** Each value the template writes, as a distinct string (tokens become their JSON). */
const asText = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v));

describe('the functions\' environment', () => {
  it('gives each function exactly the contract\'s AIRLESS_* names', () => {
    const fns = resourcesOf(template, 'AWS::Lambda::Function');
    const ours = stack.airless.functions.all.map((f) => logicalId(stack, f));
    expect(ours).toHaveLength(5);
    for (const id of ours) {
      const names = Object.keys(fns[id].Properties.Environment.Variables).filter((k) => k.startsWith('AIRLESS_'));
      expect(names.sort(), id).toEqual(functionEnvNames().sort());
    }
    // 13 names besides one per table (issue 25 §1).
    expect(Object.keys(FUNCTION_ENV)).toHaveLength(13);
  });

  it('readAwsEnv reads every variable the stack writes into its field', () => {
    const worker = resourcesOf(template, 'AWS::Lambda::Function')[logicalId(stack, stack.airless.functions.worker)];
    const written = Object.fromEntries(Object.entries(worker.Properties.Environment.Variables as Record<string, unknown>).map(([k, v]) => [k, asText(v)]));
    const env = readAwsEnv(written);
    for (const [field, name] of Object.entries(FUNCTION_ENV)) {
      expect(String(env[field as keyof AwsEnv]), name).toBe(written[name]);
    }
    for (const { id } of tableDefinitions) expect(env.tableNames[id]).toBe(written[tableEnvName(id)]);
  });
});

describe('the stack\'s outputs', () => {
  it('are exactly the contract\'s output names (no dashboard by default)', () => {
    const outputs = Object.keys(template.toJSON().Outputs as Record<string, unknown>).sort();
    const contract = [
      ...Object.entries(STACK_OUTPUTS).filter(([k]) => k !== 'dashboardUrl').map(([, v]) => v),
      ...tableDefinitions.map(({ id }) => tableOutputName(id)),
    ].sort();
    expect(outputs).toEqual(contract);
  });

  it('envFromOutputs reads back what the functions get', () => {
    const outputs = Object.fromEntries(
      Object.entries(template.toJSON().Outputs as Record<string, { Value: unknown }>).map(([k, o]) => [k, asText(o.Value)]),
    );
    const fromOutputs = envFromOutputs(outputs, { stackName: 'Airless' });
    const worker = resourcesOf(template, 'AWS::Lambda::Function')[logicalId(stack, stack.airless.functions.worker)];
    const fromEnv = readAwsEnv(Object.fromEntries(Object.entries(worker.Properties.Environment.Variables as Record<string, unknown>).map(([k, v]) => [k, asText(v)])));
    // The CLI acts as a function would: the same tables, queue, bucket, groups, role and prefixes.
    // (Retention is the functions' business alone: the CLI never expires runs.)
    expect({ ...fromOutputs, runRetentionMs: 0, maxMapLength: 0 }).toEqual({ ...fromEnv, runRetentionMs: 0, maxMapLength: 0 });
  });

  it('a stack without a required output is named in one line', () => {
    for (const k of REQUIRED_OUTPUTS) {
      const outputs: Record<string, string> = Object.fromEntries(tableDefinitions.map(({ id }) => [tableOutputName(id), 't']));
      for (const other of REQUIRED_OUTPUTS) if (other !== k) outputs[STACK_OUTPUTS[other]] = 'https://sqs.eu-west-1.amazonaws.com/123456789012/q';
      expect(() => envFromOutputs(outputs, { stackName: 'S' })).toThrow(AwsConfigError);
      expect(() => envFromOutputs(outputs, { stackName: 'S' })).toThrow(`stack S has no output ${STACK_OUTPUTS[k]};`);
    }
  });
});
