/**
 * The DynamoDB tables the infrastructure creates, taken from the store's own schema
 * (lib/adapters/aws/dynamo-schema.ts) so that the CDK tables, `createTables()` for
 * DynamoDB Local and the store adapter can never disagree.
 */
import { TABLES, type TableDef, type TableId, type TableNames } from './dynamo-schema.js';

export type { IndexDef, KeyAttr, TableDef, TableId } from './dynamo-schema.js';

/** A table to create: its schema id (`tasks`) and definition. */
export interface TableDefinition {
  id: TableId;
  def: TableDef;
}

/**
 * Every table of the schema, in schema order.
 *
 * @example
 * for (const { id, def } of tableDefinitions) console.log(id, def.gsis.map((i) => i.indexName));
 */
export const tableDefinitions: readonly TableDefinition[] = (Object.keys(TABLES) as TableId[]).map((id) => ({
  id,
  def: TABLES[id],
}));

/**
 * Name of the environment variable that carries a table's name to the Lambda functions.
 *
 * @example
 * tableEnvName('tasks'); // 'AIRLESS_TABLE_TASKS'
 */
export function tableEnvName(id: string): string {
  return `AIRLESS_TABLE_${id.replace(/[^A-Za-z0-9]/g, '_').toUpperCase()}`;
}

/**
 * Name of the stack output that carries a table's name to the CLI.
 *
 * @example
 * tableOutputName('tasks'); // 'TableTasks'
 */
export function tableOutputName(id: string): string {
  return `Table${id.charAt(0).toUpperCase()}${id.slice(1)}`;
}

/**
 * Table names read from `name(id)` for each table of the schema (environment variables
 * or stack outputs); tables whose name is absent are listed in `missing`.
 *
 * @example
 * const { names, missing } = tableNamesFrom((id) => process.env[tableEnvName(id)]);
 */
export function tableNamesFrom(name: (id: TableId) => string | undefined): { names: Partial<TableNames>; missing: TableId[] } {
  const names: Partial<TableNames> = {};
  const missing: TableId[] = [];
  for (const { id } of tableDefinitions) {
    const value = name(id);
    if (value) names[id] = value;
    else missing.push(id);
  }
  return { names, missing };
}
