import { RemovalPolicy } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type { IGrantable } from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';
import { InvalidInputError } from '../engine/index.js';
import { acknowledgeWildcardResource } from './nag.js';
import { tableDefinitions, tableEnvName, type KeyAttr, type TableDefinition } from '../adapters/aws/stack-contract.js';

export interface StateTablesProps {
  /**
   * Name the tables `tablePrefix + suffix` (`Airless-tasks`). Without it CloudFormation
   * names them (`Airless-StateTasks1A2B3C-XYZ`), so a table retained by an earlier stack
   * never blocks the next deploy; the functions get each name in `AIRLESS_TABLE_<ID>` and
   * the CLI from the stack's `Table<Id>` outputs. Set it only to keep the tables of a
   * stack deployed with fixed names (`${stackName}-`) instead of creating new ones.
   * @default none: CloudFormation-generated names
   */
  readonly tablePrefix?: string;
  /**
   * What happens to the tables when they leave the stack. With RETAIN, deletion
   * protection is on as well.
   * @default RemovalPolicy.RETAIN
   */
  readonly removalPolicy?: RemovalPolicy;
  /**
   * The table definitions to create.
   * @default tableDefinitions: every table of lib/adapters/aws/dynamo-schema.ts
   */
  readonly definitions?: readonly TableDefinition[];
}

const attributeType: Record<KeyAttr['type'], dynamodb.AttributeType> = {
  S: dynamodb.AttributeType.STRING,
  N: dynamodb.AttributeType.NUMBER,
};

function key(a: KeyAttr): dynamodb.Attribute {
  return { name: a.name, type: attributeType[a.type] };
}

/**
 * The orchestrator state in DynamoDB: on-demand, point-in-time recovery, encrypted at
 * rest with DynamoDB's AWS owned key, TTL on finished runs.
 *
 * @example
 * const state = new StateTables(this, 'State', { removalPolicy: RemovalPolicy.DESTROY });
 * state.grantReadWriteData(myFunction);
 */
export class StateTables extends Construct {
  /** Tables by schema id (`dags`, `runs`, `tasks`, `triggers`, `kv`). */
  public readonly tables: Readonly<Record<string, dynamodb.Table>>;
  /** The prefix of every table name, when names are fixed ({@link StateTablesProps.tablePrefix}). */
  public readonly tablePrefix?: string;
  private readonly indexed = new Set<dynamodb.Table>();

  constructor(scope: Construct, id: string, props: StateTablesProps = {}) {
    super(scope, id);
    const removalPolicy = props.removalPolicy ?? RemovalPolicy.RETAIN;
    this.tablePrefix = props.tablePrefix;
    const tables: Record<string, dynamodb.Table> = {};
    for (const { id: tableId, def } of props.definitions ?? tableDefinitions) {
      const table = new dynamodb.Table(this, pascal(tableId), {
        // Unnamed by default: a fixed name makes a RETAINed table of a deleted stack block
        // the next deploy of the same stack ("already exists").
        tableName: this.tablePrefix === undefined ? undefined : `${this.tablePrefix}${def.suffix}`,
        partitionKey: key(def.partitionKey),
        sortKey: def.sortKey && key(def.sortKey),
        billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
        pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
        // DynamoDB's AWS owned key (no key fee, no KMS requests): with the AWS managed key
        // (aws/dynamodb) every function container re-reads each table's key from KMS every
        // few minutes, a billed request, for no control the stack uses (docs/adr/0024).
        encryption: dynamodb.TableEncryption.DEFAULT,
        timeToLiveAttribute: def.ttlAttribute,
        deletionProtection: removalPolicy === RemovalPolicy.RETAIN,
        removalPolicy,
      });
      for (const index of def.gsis) {
        table.addGlobalSecondaryIndex({
          indexName: index.indexName,
          partitionKey: key(index.partitionKey),
          sortKey: index.sortKey && key(index.sortKey),
          projectionType: index.projection === 'KEYS_ONLY' ? dynamodb.ProjectionType.KEYS_ONLY : dynamodb.ProjectionType.ALL,
        });
      }
      for (const index of def.lsis) {
        if (!index.sortKey) throw new InvalidInputError(`local index ${index.indexName} of ${tableId} needs a sort key`);
        table.addLocalSecondaryIndex({
          indexName: index.indexName,
          sortKey: key(index.sortKey),
          projectionType: dynamodb.ProjectionType.ALL,
        });
      }
      if (def.gsis.length + def.lsis.length > 0) this.indexed.add(table);
      tables[tableId] = table;
    }
    this.tables = tables;
  }

  /** Whether the table `id` has secondary indexes (its grants then cover `/index/*`). */
  hasIndexes(id: string): boolean {
    const table = this.tables[id];
    return table !== undefined && this.indexed.has(table);
  }

  /** Every table, in definition order. */
  get all(): dynamodb.Table[] {
    return Object.values(this.tables);
  }

  /**
   * The environment a function needs to find the tables.
   * @example
   * new lambda.Function(this, 'F', { ..., environment: state.environment() });
   */
  environment(): Record<string, string> {
    const env: Record<string, string> = {};
    for (const [tableId, table] of Object.entries(this.tables)) env[tableEnvName(tableId)] = table.tableName;
    return env;
  }

  /**
   * Read and write items (and query indexes) of every table; no table management.
   * @example
   * state.grantReadWriteData(worker);
   */
  grantReadWriteData(grantee: IGrantable): void {
    for (const table of this.all) {
      table.grantReadWriteData(grantee);
      if (this.indexed.has(table)) {
        acknowledgeWildcardResource(
          grantee,
          `${table.tableArn}/index/*`,
          'Queries the secondary indexes of this table only (index names are fixed by dynamo-schema.ts).',
        );
      }
    }
  }
}

function pascal(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}
