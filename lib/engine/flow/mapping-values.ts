/**
 * What a mapped instance receives and what pulling a mapped task returns. Small plain
 * JSON elements and return values live on the instance item (no extra write, and one
 * Query reads them all); others go to XCom (key `map_item`, or `return_value` as usual).
 */
import type { RunCtx } from '../rules/dag-index.js';
import { keyOf } from '../write/transition.js';
import { IN_XCOM, inlineJson, isInstanceId } from '../rules/mapping-ids.js';
import type { TaskInstance } from '../model/types.js';
import type { Ports } from '../model/ports.js';

export const MAP_ITEM_KEY = 'map_item';

/** The element an instance was created with (the task function's second argument). */
export async function mapItemOf(p: Ports, ti: TaskInstance): Promise<unknown> {
  if (ti.mapItem === undefined) return undefined;
  if (ti.mapItem === IN_XCOM) return p.store.getXcom({ dagId: ti.dagId, runId: ti.runId, taskId: ti.taskId, key: MAP_ITEM_KEY });
  return JSON.parse(ti.mapItem);
}

/**
 * The field a successful instance's terminal write carries: its value as JSON when small,
 * `@` when the value went to XCom. Empty for other tasks and outcomes.
 */
export function mapValueField(ti: TaskInstance, success: boolean, value: unknown): { mapValue?: string } {
  if (!success || value === undefined || !isInstanceId(ti.taskId)) return {};
  return { mapValue: inlineJson(value) ?? IN_XCOM };
}

/** The return value of one mapped instance: from its item when small, else from XCom. */
export async function instanceValue(p: Ports, ti: TaskInstance): Promise<unknown> {
  if (ti.mapValue !== undefined && ti.mapValue !== IN_XCOM) return JSON.parse(ti.mapValue);
  return p.store.getXcom({ dagId: ti.dagId, runId: ti.runId, taskId: ti.taskId, key: 'return_value' });
}

/** True when a success value must still be written to XCom (it is not kept on the instance item). */
export function valueGoesToXcom(field: { mapValue?: string }): boolean {
  return field.mapValue === undefined || field.mapValue === IN_XCOM;
}

/**
 * `ctx.xcom.pull('size')` of a mapped task: the values of its instances that returned one,
 * in map-index order, read with one paginated Query (plus one XCom read per large value).
 */
export async function pullMapped(p: Ports, rc: RunCtx, taskId: string): Promise<unknown[]> {
  const instances = await p.store.listMapped(keyOf(rc, taskId));
  instances.sort((a, b) => (a.mapIndex ?? 0) - (b.mapIndex ?? 0));
  const out: unknown[] = [];
  for (const ti of instances) {
    if (ti.mapValue === undefined || ti.state !== 'success') continue;
    out.push(ti.mapValue === IN_XCOM ? await p.store.getXcom({ ...keyOf(rc, ti.taskId), key: 'return_value' }) : JSON.parse(ti.mapValue));
  }
  return out;
}
