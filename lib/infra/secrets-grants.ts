/**
 * What the functions may read of variables and connections, and where they may notify:
 * ssm:GetParameter on the variables prefix, secretsmanager:GetSecretValue on the
 * connections prefix (a secret's ARN ends in a random suffix, hence `prefix*`), and
 * sns:Publish on the given topics only. Values encrypted with the AWS managed keys
 * (aws/ssm, aws/secretsmanager) need no KMS grant; a customer managed key does (add it
 * with `taskPolicies`).
 */
import { Arn, ArnFormat, Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type { IConstruct } from 'constructs';
import { acknowledgeWildcardResource } from './nag.js';
import { DEFAULT_CONNECTIONS_PREFIX, DEFAULT_VARIABLES_PREFIX, FUNCTION_ENV } from '../adapters/aws/stack-contract.js';

export interface SecretsGrantProps {
  /** @default '/airless/variables/' */
  readonly variablesPrefix?: string;
  /** @default 'airless/connections/' */
  readonly connectionsPrefix?: string;
  /** SNS topics that `notify.sns` may publish to. @default none */
  readonly notificationTopicArns?: string[];
}

/**
 * Grants `grantees` exactly the prefixes and topics; returns the environment the functions need.
 *
 * @example
 * const env = grantSecrets(this, [worker, poker, tick], { notificationTopicArns: [alerts.topicArn] });
 */
export function grantSecrets(scope: IConstruct, grantees: iam.IGrantable[], props: SecretsGrantProps): Record<string, string> {
  const variablesPrefix = props.variablesPrefix ?? DEFAULT_VARIABLES_PREFIX;
  const connectionsPrefix = props.connectionsPrefix ?? DEFAULT_CONNECTIONS_PREFIX;
  for (const [name, prefix] of [['variablesPrefix', variablesPrefix], ['connectionsPrefix', connectionsPrefix]] as const) {
    if (!/^[A-Za-z0-9_.\-/]+$/.test(prefix)) throw new Error(`${name} ${JSON.stringify(prefix)} may hold only letters, digits, _ . - /`);
  }
  const stack = Stack.of(scope);
  // Parameter ARNs drop the name's leading slash: parameter/airless/variables/x.
  const parameters = Arn.format({ service: 'ssm', resource: 'parameter', resourceName: `${variablesPrefix.replace(/^\//, '')}*` }, stack);
  const secrets = Arn.format({ service: 'secretsmanager', resource: 'secret', resourceName: `${connectionsPrefix}*`, arnFormat: ArnFormat.COLON_RESOURCE_NAME }, stack);
  for (const g of grantees) {
    g.grantPrincipal.addToPrincipalPolicy(new iam.PolicyStatement({ actions: ['ssm:GetParameter'], resources: [parameters] }));
    g.grantPrincipal.addToPrincipalPolicy(new iam.PolicyStatement({ actions: ['secretsmanager:GetSecretValue'], resources: [secrets] }));
    acknowledgeWildcardResource(g, parameters, 'Reads the Airflow variables under the configured prefix only (keys are chosen by DAG authors).');
    acknowledgeWildcardResource(g, secrets, 'Reads the Airflow connections under the configured prefix only (a secret ARN ends in a random suffix).');
    if (props.notificationTopicArns?.length) {
      g.grantPrincipal.addToPrincipalPolicy(new iam.PolicyStatement({ actions: ['sns:Publish'], resources: [...props.notificationTopicArns] }));
    }
  }
  return { [FUNCTION_ENV.variablesPrefix]: variablesPrefix, [FUNCTION_ENV.connectionsPrefix]: connectionsPrefix };
}
