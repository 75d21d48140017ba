/**
 * The DynamoDB tables of Airless: one source for the store, the CDK `StateTables`
 * construct and `createTables` (DynamoDB Local, `airless dev --dynamodb-endpoint`).
 * Rationale and access patterns: docs/adr/0002-dynamodb-state-model.md.
 */
import {
  CreateTableCommand,
  DeleteTableCommand,
  UpdateTimeToLiveCommand,
  waitUntilTableExists,
  type AttributeDefinition,
  type DynamoDBClient,
  type KeySchemaElement,
} from '@aws-sdk/client-dynamodb';

export type KeyType = 'S' | 'N';
export interface KeyAttr {
  name: string;
  type: KeyType;
}
export interface IndexDef {
  indexName: string;
  partitionKey: KeyAttr;
  sortKey?: KeyAttr;
  /**
   * What the index holds besides keys. KEYS_ONLY makes a write that changes no key of the
   * index free of index writes; readers then get the items from the table.
   * @default 'ALL'
   */
  projection?: 'ALL' | 'KEYS_ONLY';
}
export interface TableDef {
  /** Table name = prefix + suffix (unless overridden by name). */
  suffix: string;
  partitionKey: KeyAttr;
  sortKey?: KeyAttr;
  /** Global secondary indexes, all sparse. */
  gsis: readonly IndexDef[];
  /** Local secondary indexes (same partition key), projecting ALL attributes. */
  lsis: readonly IndexDef[];
  /** TTL attribute (epoch seconds), when the table expires items. */
  ttlAttribute?: string;
}

/** Partitions of the low-cardinality GSI key `dueShard`. */
export const INDEX_SHARDS = 4;

/** Attribute-name prefix of the per-upstream outcome attributes on a task item. */
export const UPSTREAM_PREFIX = 'u:';

export const TABLES = {
  /** DAG registry: one item per DAG. */
  dags: {
    suffix: 'dags',
    partitionKey: { name: 'dagId', type: 'S' },
    gsis: [],
    lsis: [],
  },
  /** DAG runs; `active` holds queued/running runs only; TTL on `expiresAt` once finished. */
  runs: {
    suffix: 'runs',
    partitionKey: { name: 'dagId', type: 'S' },
    sortKey: { name: 'runId', type: 'S' },
    // Sparse: only queued and running runs carry `activeDag` (= dagId). Starting queued
    // runs queries one DAG's active runs; reconcile scans the whole (small) index.
    gsis: [{ indexName: 'active', partitionKey: { name: 'activeDag', type: 'S' }, sortKey: { name: 'logicalDate', type: 'N' }, projection: 'KEYS_ONLY' }],
    lsis: [],
    ttlAttribute: 'expiresAt',
  },
  /** Task instances of a run (`runKey` = `dagId/runId`); `due` holds non-terminal tasks with a dueAt. */
  tasks: {
    suffix: 'tasks',
    partitionKey: { name: 'runKey', type: 'S' },
    sortKey: { name: 'taskId', type: 'S' },
    gsis: [
      { indexName: 'due', partitionKey: { name: 'dueShard', type: 'N' }, sortKey: { name: 'dueAt', type: 'N' } },
      // Sparse: only tasks waiting for a pool or per-task slot carry `waitKey` (pools.ts).
      { indexName: 'waiting', partitionKey: { name: 'waitKey', type: 'S' }, sortKey: { name: 'waitRank', type: 'S' }, projection: 'KEYS_ONLY' },
    ],
    lsis: [],
    ttlAttribute: 'expiresAt',
  },
  /** Waiting sensors and event triggers, one item per waiting task. */
  triggers: {
    suffix: 'triggers',
    partitionKey: { name: 'id', type: 'S' },
    gsis: [
      { indexName: 'sensorDue', partitionKey: { name: 'shardcode', type: 'N' }, sortKey: { name: 'nextPokeAt', type: 'N' } },
      { indexName: 'byEvent', partitionKey: { name: 'eventKey', type: 'S' } },
    ],
    lsis: [],
  },
  /** Small keyed items: XCom (`x:`), signals (`s:`), poke claims (`p:`). */
  kv: {
    suffix: 'kv',
    partitionKey: { name: 'pk', type: 'S' },
    gsis: [],
    lsis: [],
    ttlAttribute: 'ttl',
  },
  /** Assets: registry `R`, watchers `W#<source>`, events `E#<hash>` (listed per asset by `byAsset`), queues `Q#<dagId>` (dynamo-assets.ts). */
  assets: {
    suffix: 'assets',
    partitionKey: { name: 'pk', type: 'S' },
    sortKey: { name: 'sk', type: 'S' },
    gsis: [{ indexName: 'byAsset', partitionKey: { name: 'asset', type: 'S' }, sortKey: { name: 'ref', type: 'S' }, projection: 'KEYS_ONLY' }],
    lsis: [],
    ttlAttribute: 'expiresAt',
  },
} as const satisfies Record<string, TableDef>;

export type TableId = keyof typeof TABLES;
export type TableNames = Record<TableId, string>;

/**
 * Physical table names for a prefix, with optional overrides (CDK-generated names).
 *
 * @example
 * tableNames('airless-').tasks; // 'airless-tasks'
 */
export function tableNames(prefix: string, overrides: Partial<TableNames> = {}): TableNames {
  const out = {} as TableNames;
  for (const id of Object.keys(TABLES) as TableId[]) out[id] = overrides[id] ?? prefix + TABLES[id].suffix;
  return out;
}

/** FNV-1a of a string, mod `n`: spreads items over the low-cardinality index partitions. */
export function shardOf(text: string, n = INDEX_SHARDS): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0) % n;
}

function keySchema(pk: KeyAttr, sk?: KeyAttr): KeySchemaElement[] {
  return [{ AttributeName: pk.name, KeyType: 'HASH' }, ...(sk ? [{ AttributeName: sk.name, KeyType: 'RANGE' as const }] : [])];
}

/**
 * Creates every table for `prefix` (on-demand billing) and enables TTL; existing tables
 * are left as they are. For DynamoDB Local and dev endpoints; AWS uses the CDK construct.
 *
 * @example
 * await createTables(new DynamoDBClient({ endpoint }), `t${Date.now()}-`);
 */
export async function createTables(
  client: DynamoDBClient,
  prefix: string,
  overrides: Partial<TableNames> = {},
  /** `ttl: false` leaves TTL off: tests on a virtual clock write expiries DynamoDB Local's real-time sweep finds past. */
  opts: { ttl?: boolean } = {},
): Promise<TableNames> {
  const names = tableNames(prefix, overrides);
  await Promise.all(
    (Object.keys(TABLES) as TableId[]).map(async (id) => {
      const def: TableDef = TABLES[id];
      const attrs = new Map<string, AttributeDefinition>();
      for (const k of [def.partitionKey, def.sortKey, ...def.gsis.flatMap((g) => [g.partitionKey, g.sortKey]), ...def.lsis.map((l) => l.sortKey)]) {
        if (k) attrs.set(k.name, { AttributeName: k.name, AttributeType: k.type });
      }
      try {
        await client.send(
          new CreateTableCommand({
            TableName: names[id],
            BillingMode: 'PAY_PER_REQUEST',
            AttributeDefinitions: [...attrs.values()],
            KeySchema: keySchema(def.partitionKey, def.sortKey),
            GlobalSecondaryIndexes: def.gsis.length
              ? def.gsis.map((g) => ({ IndexName: g.indexName, KeySchema: keySchema(g.partitionKey, g.sortKey), Projection: { ProjectionType: g.projection ?? 'ALL' } }))
              : undefined,
            LocalSecondaryIndexes: def.lsis.length
              ? def.lsis.map((l) => ({ IndexName: l.indexName, KeySchema: keySchema(def.partitionKey, l.sortKey), Projection: { ProjectionType: 'ALL' } }))
              : undefined,
          }),
        );
      } catch (err) {
        if ((err as Error).name !== 'ResourceInUseException') throw err;
        return;
      }
      await waitUntilTableExists({ client, maxWaitTime: 120, minDelay: 1 }, { TableName: names[id] });
      if (def.ttlAttribute && opts.ttl !== false) {
        await client.send(
          new UpdateTimeToLiveCommand({ TableName: names[id], TimeToLiveSpecification: { Enabled: true, AttributeName: def.ttlAttribute } }),
        );
      }
    }),
  );
  return names;
}

/** Deletes the tables of `prefix` (test clean-up); missing tables are ignored. */
export async function deleteTables(client: DynamoDBClient, prefix: string): Promise<void> {
  await Promise.all(
    Object.values(tableNames(prefix)).map((TableName) =>
      client.send(new DeleteTableCommand({ TableName })).catch((err: Error) => {
        if (err.name !== 'ResourceNotFoundException') throw err;
      }),
    ),
  );
}
