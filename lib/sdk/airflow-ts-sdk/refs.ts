/**
 * The references the SDK's `Dag` hands out: a `TaskRef` (a placed task) and a
 * `TaskGroupRef`. Frozen objects carrying a global brand, so a look-alike `{ dagId,
 * taskId }` literal is never taken for one (an input also takes plain JSON).
 */
import type { Node, TaskGroupRef, TaskOptions, TaskRef } from './types.js';

const BRAND = Symbol.for('airless.airflow-ts-sdk.node');

/** What a reference calls back into: its Dag's bookkeeping. */
export interface RefHost {
  readonly dagId: string;
  edge(from: Node, to: Node, verb: 'before' | 'after'): void;
  addTask(group: string | undefined, a: unknown, b?: unknown, c?: unknown): unknown;
  addGroup(parent: string | undefined, local: string): TaskGroupRef;
}

/** True for a task reference of any copy of this module. */
export function isTaskRef(v: unknown): boolean {
  return typeof v === 'object' && v !== null && (v as Record<symbol, unknown>)[BRAND] === 'task';
}

/** True for a task group reference of any copy of this module. */
export function isGroupRef(v: unknown): boolean {
  return typeof v === 'object' && v !== null && (v as Record<symbol, unknown>)[BRAND] === 'group';
}

/** The id an edge end is recorded under: a task id or a group id. */
export function nodeId(v: unknown): string | undefined {
  if (isTaskRef(v)) return (v as TaskRef).taskId;
  if (isGroupRef(v)) return (v as TaskGroupRef).groupId;
  return undefined;
}

/** `before`/`after` of a node: each draws edges through the host and returns the node. */
function links<T extends Node>(host: RefHost, self: () => T): { before(...down: readonly Node[]): T; after(...up: readonly Node[]): T } {
  return {
    before: (...down) => {
      for (const d of down) host.edge(self(), d, 'before');
      return self();
    },
    after: (...up) => {
      for (const u of up) host.edge(u, self(), 'after');
      return self();
    },
  };
}

export function taskRef(host: RefHost, taskId: string): TaskRef {
  const ref: TaskRef = { dagId: host.dagId, taskId, ...links(host, () => ref) };
  Object.defineProperty(ref, BRAND, { value: 'task' });
  return Object.freeze(ref);
}

export function groupRef(host: RefHost, groupId: string): TaskGroupRef {
  const ref = {
    dagId: host.dagId,
    groupId,
    task: (a: unknown, b?: unknown, c?: unknown) => host.addTask(groupId, a, b, c),
    taskGroup: (child: string) => host.addGroup(groupId, child),
    ...links(host, (): TaskGroupRef => ref),
  } as unknown as TaskGroupRef & { task(a: unknown, b?: unknown, c?: TaskOptions): unknown };
  Object.defineProperty(ref, BRAND, { value: 'group' });
  return Object.freeze(ref);
}
