/**
 * Airflow's bulk operations (`PATCH /variables`, `PATCH /connections`): a body of
 * `actions`, each a create, update or delete of several entities, answered with what
 * succeeded and what failed per action (BulkResponse). As Airflow's BulkService: a body
 * the model refuses is a 422 before anything is written; an action that meets an entity
 * that exists (create, `action_on_existence: fail`) or is missing (update or delete,
 * `action_on_non_existence: fail`) writes nothing and reports the error with its status,
 * while the other actions still run; `skip` leaves those entities alone, `overwrite`
 * replaces them.
 */
import { HttpError, invalid } from './http.js';
import { onlyFields } from './params.js';

/** How one kind of entity is keyed, validated, read and written (routes-variables.ts, routes-connections.ts). */
export interface BulkOps<V> {
  /** Plural noun and key name in messages: `Variables`, `key`. */
  noun: string;
  keyName: string;
  /** The entity's key, or a 422 naming the field. */
  keyOf(entity: Record<string, unknown>): string;
  get(key: string): Promise<unknown>;
  /** The value to keep, validated (a 422 naming the field); `current` and `mask` for an update. */
  build(entity: Record<string, unknown>, current: unknown, mask: string[] | undefined): V;
  save(value: V): Promise<void>;
  remove(key: string): Promise<boolean>;
}

interface ActionResult { success: string[]; errors: { error: string; status_code: number }[] }

type Action = { kind: 'create' | 'update' | 'delete'; entities: (Record<string, unknown> | string)[]; onExistence: string; onMissing: string; mask?: string[] };

function parseAction(a: unknown, i: number): Action {
  if (a === null || typeof a !== 'object' || Array.isArray(a)) throw invalid(['body', 'actions', i], `actions[${i}]: must be an object`, a, 'model_type');
  const o = a as Record<string, unknown>;
  const kind = o.action;
  if (kind !== 'create' && kind !== 'update' && kind !== 'delete') throw invalid(['body', 'actions', i, 'action'], `actions[${i}].action: must be create, update or delete, got ${JSON.stringify(kind)}`, kind ?? null, 'union_tag_invalid');
  onlyFields(o, kind === 'create' ? ['action', 'entities', 'action_on_existence'] : kind === 'update' ? ['action', 'entities', 'action_on_non_existence', 'update_mask'] : ['action', 'entities', 'action_on_non_existence']);
  if (!Array.isArray(o.entities)) throw invalid(['body', 'actions', i, 'entities'], `actions[${i}].entities: must be a list`, o.entities ?? null, 'list_type');
  const onExistence = (o.action_on_existence ?? 'fail') as string;
  const onMissing = (o.action_on_non_existence ?? 'fail') as string;
  if (!['fail', 'skip', 'overwrite'].includes(onExistence)) throw invalid(['body', 'actions', i, 'action_on_existence'], `actions[${i}].action_on_existence: must be fail, skip or overwrite`, onExistence, 'enum');
  if (!['fail', 'skip'].includes(onMissing)) throw invalid(['body', 'actions', i, 'action_on_non_existence'], `actions[${i}].action_on_non_existence: must be fail or skip`, onMissing, 'enum');
  const mask = o.update_mask;
  if (mask !== undefined && mask !== null && !(Array.isArray(mask) && mask.every((m) => typeof m === 'string'))) throw invalid(['body', 'actions', i, 'update_mask'], `actions[${i}].update_mask: must be a list of field names`, mask, 'list_type');
  o.entities.forEach((e, j) => {
    const ok = (kind === 'delete' && typeof e === 'string') || (e !== null && typeof e === 'object' && !Array.isArray(e));
    if (!ok) throw invalid(['body', 'actions', i, 'entities', j], `actions[${i}].entities[${j}]: must be an object${kind === 'delete' ? ' or a key' : ''}`, e, 'model_type');
  });
  return { kind, entities: o.entities as Action['entities'], onExistence, onMissing, mask: (mask as string[] | null | undefined) ?? undefined };
}

/**
 * Runs a bulk body over `ops`.
 *
 * @example
 * return runBulk(body, variableBulkOps(store));
 */
export async function runBulk<V>(body: Record<string, unknown>, ops: BulkOps<V>): Promise<Record<string, ActionResult>> {
  onlyFields(body, ['actions']);
  if (!Array.isArray(body.actions)) throw invalid(['body', 'actions'], 'actions: Field required (a list of create, update and delete actions)', body.actions ?? null, 'missing');
  const actions = body.actions.map(parseAction);
  // Every key and every new value checked before anything is written, as FastAPI validates the body first.
  for (const a of actions) {
    for (const e of a.entities) {
      if (typeof e === 'string') continue;
      ops.keyOf(e);
      if (a.kind !== 'delete') ops.build(e, undefined, undefined);
    }
  }
  const out: Record<string, ActionResult> = {};
  for (const a of actions) {
    const r: ActionResult = (out[a.kind] ??= { success: [], errors: [] });
    const keys = a.entities.map((e) => (typeof e === 'string' ? e : ops.keyOf(e)));
    const current = await Promise.all(keys.map((k) => ops.get(k)));
    const present = keys.filter((_k, i) => current[i] !== undefined);
    const missing = keys.filter((_k, i) => current[i] === undefined);
    try {
      if (a.kind === 'create' && present.length && a.onExistence === 'fail') throw new HttpError(409, `The ${ops.noun} with these ${ops.keyName}s: {${present.map((k) => `'${k}'`).join(', ')}} already exist.`);
      if (a.kind !== 'create' && missing.length && a.onMissing === 'fail') throw new HttpError(404, `The ${ops.noun} with these ${ops.keyName}s: {${missing.map((k) => `'${k}'`).join(', ')}} were not found.`);
      const values = a.entities.map((e, i) => {
        if (a.kind === 'delete' || typeof e === 'string') return undefined;
        if (a.kind === 'create' && current[i] !== undefined && a.onExistence === 'skip') return undefined;
        if (a.kind === 'update' && current[i] === undefined) return undefined;
        return { v: ops.build(e, a.kind === 'update' ? current[i] : undefined, a.kind === 'update' ? a.mask : undefined) };
      });
      for (let i = 0; i < keys.length; i++) {
        if (a.kind === 'delete') {
          if (current[i] !== undefined && (await ops.remove(keys[i]))) r.success.push(keys[i]);
        } else if (values[i]) {
          await ops.save(values[i]!.v);
          r.success.push(keys[i]);
        }
      }
    } catch (err) {
      if (!(err instanceof HttpError)) throw err;
      r.errors.push({ error: err.detail, status_code: err.status });
    }
  }
  return out;
}
