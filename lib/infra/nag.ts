/**
 * cdk-nag acknowledgements. cdk-nag v3 matches each finding by its exact id, e.g.
 * `AwsSolutions-IAM5[Resource::<StateTable1234.Arn>/index/*]`, and logical ids change
 * with the construct path, so the ids are computed from the resources, never typed in.
 * Only `aws-cdk-lib` is needed here: the constructs do not depend on cdk-nag.
 */
import { Stack, Validations } from 'aws-cdk-lib';
import type { IGrantable } from 'aws-cdk-lib/aws-iam';
import { Construct, type IConstruct } from 'constructs';

/**
 * Flattens a resolved CloudFormation value the way cdk-nag prints it in finding ids
 * (`Ref` as `<Id>`, `Fn::GetAtt` as `<Id.Attr>`, `Fn::Join` joined).
 *
 * @example
 * flattenReference({ 'Fn::Join': ['', [{ 'Fn::GetAtt': ['T', 'Arn'] }, '/index/*']] }); // '<T.Arn>/index/*'
 */
export function flattenReference(node: unknown): string {
  if (node === undefined) return '';
  if (typeof node === 'string') return node.replace(/\$\{/g, '<').replace(/}/g, '>');
  if (node && typeof node === 'object') {
    const o = node as Record<string, unknown>;
    if (Array.isArray(o['Fn::Join'])) {
      const [delimiter, items] = o['Fn::Join'] as [string, unknown[]];
      return items.map(flattenReference).join(delimiter);
    }
    if ('Fn::Sub' in o) return flattenReference(o['Fn::Sub']);
    if (Array.isArray(o['Fn::GetAtt'])) {
      const [resource, attribute] = o['Fn::GetAtt'] as [unknown, unknown];
      return `<${flattenReference(resource)}.${flattenReference(attribute)}>`;
    }
    if ('Fn::ImportValue' in o) return flattenReference(o['Fn::ImportValue']);
    if ('Ref' in o) return `<${flattenReference(o.Ref)}>`;
  }
  return JSON.stringify(node);
}

/**
 * The IAM5 finding id of a wildcard resource, as cdk-nag reports it.
 *
 * @example
 * wildcardResourceFinding(stack, `${table.tableArn}/index/*`);
 */
export function wildcardResourceFinding(scope: IConstruct, resource: string): string {
  return `AwsSolutions-IAM5[Resource::${flattenReference(Stack.of(scope).resolve(resource))}]`;
}

/**
 * Acknowledges a finding on the construct that holds a grantee's policy (a role).
 * Does nothing for principals that are not constructs (imported or service principals).
 *
 * @example
 * acknowledgeOnGrantee(fn, wildcardResourceFinding(fn, `${table.tableArn}/index/*`), 'query any index of the table');
 */
export function acknowledgeOnGrantee(grantee: IGrantable, id: string, reason: string): void {
  const principal = grantee.grantPrincipal;
  if (principal instanceof Construct) Validations.of(principal).acknowledge({ id, reason });
}

/**
 * Acknowledges a wildcard resource in a grantee's policy.
 *
 * @example
 * acknowledgeWildcardResource(worker, `${bucket.bucketArn}/blobs/*`, 'value keys are generated per task');
 */
export function acknowledgeWildcardResource(grantee: IGrantable, resource: string, reason: string): void {
  const principal = grantee.grantPrincipal;
  if (principal instanceof Construct) {
    Validations.of(principal).acknowledge({ id: wildcardResourceFinding(principal, resource), reason });
  }
}
