/**
 * Callback options of tasks (`onExecute`, `onSuccess`, `onFailure`, `onRetry`, `onSkipped`)
 * and of DAGs (`onSuccess`, `onFailure`): each a function, a notifier, or a list of them.
 * Functions become bundle methods (`__on_<event>`), run like task code; notifiers go to the
 * manifest. The spec lists the events, so the engine raises only events that have one.
 */
import { InvalidDagError } from '../engine/index.js';
import type { NotifierSpec, TaskCallbackEvent } from '../engine/index.js';
import { isNotifier, type NotifierDefinition } from './notify.js';

type CallbackFn = (ctx: any) => unknown;
type Callbacks = CallbackFn | NotifierDefinition | ReadonlyArray<CallbackFn | NotifierDefinition> | undefined;

export const TASK_CALLBACK_OPTIONS = { onExecute: 'execute', onSuccess: 'success', onFailure: 'failure', onRetry: 'retry', onSkipped: 'skipped' } as const;
export const DAG_CALLBACK_OPTIONS = { onSuccess: 'success', onFailure: 'failure' } as const;

export interface CollectedCallbacks {
  events: TaskCallbackEvent[];
  notify: NotifierSpec[];
  /** `__on_<event>` → one function calling the event's functions in order. */
  methods: Record<string, (ctx: any, info?: Record<string, unknown>) => Promise<void>>;
}

/**
 * Collects the callbacks named by `names` from `options`.
 *
 * @throws InvalidDagError naming the option when a value is neither a function nor a notifier.
 */
export function collectCallbacks(
  options: Record<string, unknown>, names: Record<string, TaskCallbackEvent>, where: { dagId: string; taskId?: string },
): CollectedCallbacks {
  const out: CollectedCallbacks = { events: [], notify: [], methods: {} };
  for (const [option, event] of Object.entries(names)) {
    const value = options[option] as Callbacks;
    if (value === undefined || value === null) continue;
    const list = Array.isArray(value) ? value : [value];
    const fns: CallbackFn[] = [];
    for (const c of list) {
      if (typeof c === 'function') fns.push(c as CallbackFn);
      else if (isNotifier(c)) {
        const { __airless: _brand, ...rest } = c;
        out.notify.push({ ...rest, event } as NotifierSpec);
      } else {
        throw new InvalidDagError(`${option} must be a function, a notifier (notify.sns, notify.webhook) or a list of them`, { dagId: where.dagId, taskId: where.taskId });
      }
    }
    if (list.length > 0) out.events.push(event);
    if (fns.length > 0) {
      // The context gains the event's details (state, error, failedTasks) before the call.
      out.methods[`__on_${event}`] = async (ctx, info) => {
        const c = Object.assign(ctx, info ?? {});
        // Each callback of a list runs, as in Airflow, even when an earlier one throws.
        let first: unknown;
        for (const fn of fns) {
          try {
            await fn(c);
          } catch (e) {
            first ??= e;
          }
        }
        if (first !== undefined) throw first;
      };
    }
  }
  return out;
}
