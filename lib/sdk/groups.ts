/**
 * Task groups (Airflow's TaskGroup): `group('load', ({ task }) => …)` declares tasks whose
 * ids are prefixed `load.`; groups nest; linking into a group reaches its roots, out of a
 * group starts from its leaves, computed when the link is made, as Airflow does
 * (`TaskGroup.get_roots` / `get_leaves`, which looks past teardowns to the work they close).
 * Each task records its innermost group in the manifest (`TaskSpec.group`).
 */
import { idProblem } from '../engine/index.js';
import type { DagDraft } from './dag.js';
import { linkBefore } from './handles.js';
import type { LinkArg } from './edges.js';
import type { DagBuilder, GroupHandle, Params, TaskGroupOptions, TaskHandle, TaskOptions } from './types.js';

interface Scope {
  groupId: string;
  /** Prefix of task ids and child group ids declared in this group. */
  prefix: string;
  defaults: TaskOptions;
  members: Set<string>;
  parent?: Scope;
}

const groupIds = new WeakMap<DagDraft, Set<string>>();

export class TaskGroupHandle implements GroupHandle {
  constructor(readonly draft: DagDraft, private readonly scope: Scope) {}
  get groupId(): string {
    return this.scope.groupId;
  }
  get taskIds(): readonly string[] {
    return [...this.scope.members];
  }
  /** The tasks a link reaches: its roots as a target, its leaves as a source. */
  edgeIds(way: 'from' | 'to'): string[] {
    return way === 'to' ? this.roots() : this.leaves();
  }
  before(...targets: LinkArg[]): any {
    return linkBefore(this.draft, [this], targets);
  }
  after(...sources: LinkArg[]): GroupHandle {
    this.draft.linkAfter(sources, this.roots());
    return this;
  }

  private inner(): { up: Map<string, string[]>; down: Map<string, string[]> } {
    const m = this.scope.members;
    const up = new Map<string, string[]>();
    const down = new Map<string, string[]>();
    for (const [a, bs] of this.draft.edges) {
      if (!m.has(a)) continue;
      for (const b of bs) {
        if (!m.has(b)) continue;
        down.set(a, [...(down.get(a) ?? []), b]);
        up.set(b, [...(up.get(b) ?? []), a]);
      }
    }
    return { up, down };
  }

  private roots(): string[] {
    const { up } = this.inner();
    return this.taskIds.filter((id) => !up.has(id));
  }

  private leaves(): string[] {
    const { up, down } = this.inner();
    const spec = (id: string) => this.draft.tasks.get(id)!.spec;
    const hasWorkBelow = (id: string, except: string) => (down.get(id) ?? []).some((d) => d !== except && !spec(d).teardown);
    const out = new Set<string>();
    // A teardown at the end of a group stands for the work it closes: look past it.
    const lookPast = (id: string): void => {
      for (const u of up.get(id) ?? []) {
        if (spec(u).teardown) lookPast(u);
        else if (spec(id).teardown && spec(u).setup) continue;
        else if (!hasWorkBelow(u, id)) out.add(u);
      }
    };
    for (const id of this.taskIds) {
      if ((down.get(id) ?? []).length > 0) continue;
      if (spec(id).teardown) lookPast(id);
      else out.add(id);
    }
    return [...out];
  }
}

/** Declares a group inside `parent` (undefined: at the DAG's top level) and runs its build callback. */
export function declareGroup<P extends Params>(
  base: DagBuilder<P>,
  draft: DagDraft,
  parent: Scope | undefined,
  id: string,
  a: TaskGroupOptions | ((b: DagBuilder<P>) => void),
  b?: (b: DagBuilder<P>) => void,
): GroupHandle {
  const build = typeof a === 'function' ? a : b;
  const opts: TaskGroupOptions = typeof a === 'function' ? {} : (a ?? {});
  const problem = idProblem('task', id)?.replace('task id', 'group id');
  if (problem) draft.fail(problem);
  if (typeof build !== 'function') draft.fail(`group "${id}" needs a build function: group(id, ({ task }) => { ... })`);
  const groupId = (parent?.prefix ?? '') + id;
  const used = groupIds.get(draft) ?? new Set<string>();
  groupIds.set(draft, used);
  if (used.has(groupId)) draft.fail(`duplicate group id "${groupId}"`);
  if (draft.tasks.has(groupId)) draft.fail(`group id "${groupId}" is already a task id`);
  used.add(groupId);
  const scope: Scope = {
    groupId,
    prefix: opts.prefixGroupId === false ? (parent?.prefix ?? '') : `${groupId}.`,
    defaults: { ...(parent?.defaults ?? {}), ...(opts.defaultArgs ?? {}) },
    members: new Set(),
    parent,
  };
  const result: unknown = build!(scopedBuilder(base, draft, scope));
  if (result && typeof (result as { then?: unknown }).then === 'function') draft.fail(`the build callback of group "${groupId}" must be synchronous`);
  return new TaskGroupHandle(draft, scope);
}

function scopedBuilder<P extends Params>(base: DagBuilder<P>, draft: DagDraft, scope: Scope): DagBuilder<P> {
  const join = (h: TaskHandle): TaskHandle => {
    draft.tasks.get(h.taskId)!.spec.group = scope.groupId;
    for (let s: Scope | undefined = scope; s; s = s.parent) s.members.add(h.taskId);
    return h;
  };
  const id = (taskId: string) => (typeof taskId === 'string' ? scope.prefix + taskId : taskId);
  const withDefaults = <O extends TaskOptions>(o: O | undefined): O => ({ ...scope.defaults, ...(o ?? {}) }) as O;
  const b = base as any;
  const builder = {
    task: (taskId: string, body: unknown, o?: TaskOptions) => join(b.task(id(taskId), body, withDefaults(o))),
    branch: (taskId: string, body: unknown, o?: TaskOptions) => join(b.branch(id(taskId), body, withDefaults(o))),
    sensor: (taskId: string, decl: unknown, o?: TaskOptions) => join(b.sensor(id(taskId), decl, withDefaults(o))),
    shortCircuit: (taskId: string, body: unknown, o?: TaskOptions) => join(b.shortCircuit(id(taskId), body, withDefaults(o))),
    latestOnly: (taskId: string, o?: TaskOptions) => join(b.latestOnly(id(taskId), withDefaults(o))),
    triggerDagRun: (taskId: string, t: unknown, o?: TaskOptions) => join(b.triggerDagRun(id(taskId), t, withDefaults(o))),
    group: (groupId: string, a: any, c?: any) => declareGroup(base, draft, scope, groupId, a, c),
  };
  return builder as unknown as DagBuilder<P>;
}
