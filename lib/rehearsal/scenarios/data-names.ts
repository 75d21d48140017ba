/**
 * The names of the data scenario's scaffold (data-scaffold.ts), apart from its construct:
 * the scenario imports them without loading aws-cdk-lib, so `airless rehearse` can start
 * (and name the CDK peers it needs) in a project that has not installed them yet.
 * The scenario's DAGs (dags/data.ts) use them too.
 */
export const DATA_SCAFFOLD = { bucket: 'rehearsal-lake', prefix: 'landing/', queue: 'rehearsal-orders', eventSource: 'rehearsal.billing' } as const;
