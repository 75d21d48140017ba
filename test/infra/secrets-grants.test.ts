/**
 * The stack grants variables, connections and notifications exactly: ssm:GetParameter on
 * the variables prefix, secretsmanager:GetSecretValue on the connections prefix*, sns:Publish
 * on the given topics only, and tells the functions the prefixes.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { Template } from 'aws-cdk-lib/assertions';
import type { AirlessStack } from '../../lib/infra/stack.js';
import { actionsOf, logicalId, statementsOfRole, synthAirless } from './synth.js';

let stack: AirlessStack;
let template: Template;
const topic = 'arn:aws:sns:eu-west-1:123456789012:etl-alerts';

beforeAll(() => {
  ({ stack, template } = synthAirless({ variablesPrefix: '/team-a/vars/', notificationTopicArns: [topic] }));
});

describe('variables, connections and notifications', () => {
  it('grants the worker exactly the two prefixes and the topic', () => {
    const worker = stack.airless.functions.worker;
    const statements = statementsOfRole(template, logicalId(stack, worker.role as never));
    const of = (action: string) => statements.filter((s) => actionsOf(s).includes(action));
    expect(of('ssm:GetParameter')).toHaveLength(1);
    expect(JSON.stringify(of('ssm:GetParameter')[0].Resource)).toContain(':parameter/team-a/vars/*');
    expect(JSON.stringify(of('secretsmanager:GetSecretValue')[0].Resource)).toContain(':secret:airless/connections/*');
    expect(of('sns:Publish').map((s) => s.Resource)).toEqual([topic]);
    // Nothing broader: no other SSM, Secrets Manager or SNS action.
    const actions = statements.flatMap(actionsOf).filter((a: string) => /^(ssm|secretsmanager|sns):/.test(a));
    expect(actions.sort()).toEqual(['secretsmanager:GetSecretValue', 'sns:Publish', 'ssm:GetParameter']);
    const env = template.toJSON().Resources[logicalId(stack, worker)].Properties.Environment.Variables;
    expect(env).toMatchObject({ AIRLESS_VARIABLES_PREFIX: '/team-a/vars/', AIRLESS_CONNECTIONS_PREFIX: 'airless/connections/' });
  });

});
