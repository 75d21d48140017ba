import { App, type StackProps } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import type { AirlessProps } from '../../lib/infra/airless.js';
import { AirlessStack } from '../../lib/infra/stack.js';

/** Skips esbuild bundling: the template is the same, the synth is seconds faster. */
export const NO_BUNDLING = { 'aws:cdk:bundling-stacks': [] as string[] };

/** Synthesizes one AirlessStack and returns it with its template. */
export function synthAirless(airless: AirlessProps = {}, stackProps: StackProps = {}) {
  const app = new App({ context: NO_BUNDLING });
  const stack = new AirlessStack(app, 'Airless', { ...stackProps, airless });
  return { app, stack, template: Template.fromStack(stack) };
}

type Resources = Record<string, { Type: string; Properties?: any; DeletionPolicy?: string }>;

/** Resources of a type, by logical id. */
export function resourcesOf(template: Template, type: string): Resources {
  return template.findResources(type) as Resources;
}

/** Logical id of a construct's default CloudFormation resource. */
export function logicalId(stack: AirlessStack, construct: { node: { defaultChild?: unknown } }): string {
  return stack.getLogicalId(construct.node.defaultChild as never);
}

/** Every Allow statement of the policies attached to a role. */
export function statementsOfRole(template: Template, roleLogicalId: string): any[] {
  // Managed policies too: CDK moves what outgrows a role's inline policy into "OverflowPolicy" ones.
  return [...Object.values(resourcesOf(template, 'AWS::IAM::Policy')), ...Object.values(resourcesOf(template, 'AWS::IAM::ManagedPolicy'))]
    .filter((p) => (p.Properties.Roles ?? []).some((r: any) => r.Ref === roleLogicalId))
    .flatMap((p) => p.Properties.PolicyDocument.Statement);
}

/** Actions of a statement as an array. */
export function actionsOf(statement: any): string[] {
  return Array.isArray(statement.Action) ? statement.Action : [statement.Action];
}
