/**
 * The handles `task()` returns and the groups `before()` returns: the objects a DAG's build
 * callback links with. They hold no state of their own; every link is recorded in the
 * {@link DagDraft} of their `dag()` call.
 */
import type { TaskKind } from '../engine/index.js';
import type { DagDraft } from './dag.js';
import type { LinkArg } from './edges.js';
import { markSetup, markTeardown } from './flow.js';
import { callTask, expandTask, type ExpandMode } from './taskflow.js';
import type { ExpandArg, Linkable, TaskGroup, TaskHandle, TeardownOptions } from './types.js';

// A class (not object literals) so that `instanceof` tells our handles apart, and so that
// nothing named `then` can sneak in: a thenable handle would be swallowed by `await`.
// A handle is also callable (typed TaskFlow: `double({ n })`): a function whose prototype is
// Handle's, made by newHandle.
export class Handle implements TaskHandle {
  declare readonly draft: DagDraft;
  declare readonly taskId: string;
  declare readonly kind: TaskKind;
  get dagId(): string {
    return this.draft.dagId;
  }
  before(...targets: LinkArg[]): any {
    return linkBefore(this.draft, [this], targets);
  }
  after(...sources: LinkArg[]): TaskHandle {
    this.draft.linkAfter(sources, [this.taskId]);
    return this;
  }
  asSetup(): this {
    markSetup(this.draft, this.taskId);
    return this;
  }
  asTeardown(options: TeardownOptions): this {
    markTeardown(this.draft, this.taskId, options);
    return this;
  }
  expand(source: ExpandArg): any {
    return this.mapOver(source, { kind: 'expand' });
  }
  expandKwargs(source: unknown): any {
    return this.mapOver(source, { kind: 'kwargs' });
  }
  /** Airflow's `partial`: fixed inputs, then `expand` or `expandKwargs` the rest. */
  partial(fixed: Record<string, unknown>): { expand(s: unknown): any; expandKwargs(s: unknown): any } {
    if (fixed === null || typeof fixed !== 'object' || Array.isArray(fixed)) this.draft.fail('partial() takes an object of fixed inputs', this.taskId);
    return {
      expand: (s: unknown) => this.mapOver(s, { kind: 'expand', fixed }),
      expandKwargs: (s: unknown) => this.mapOver(s, { kind: 'kwargs', fixed }),
    };
  }
  private mapOver(source: unknown, mode: ExpandMode): any {
    if (!this.draft.open) this.draft.fail(`expand() on "${this.taskId}" called after dag() returned`, this.taskId);
    const handleId = (v: unknown) => (v instanceof Handle && v.draft === this.draft ? v.taskId : undefined);
    return expandTask(this.draft, this.taskId, source, mode, handleId);
  }
}

export function newHandle(draft: DagDraft, taskId: string, kind: TaskKind): TaskHandle {
  const call = function (...inputs: unknown[]): unknown {
    return callTask(draft, taskId, inputs);
  };
  Object.setPrototypeOf(call, Handle.prototype);
  Object.defineProperties(call, {
    name: { value: taskId },
    draft: { value: draft },
    taskId: { value: taskId, enumerable: true },
    kind: { value: kind, enumerable: true },
  });
  return call as unknown as Handle;
}

export class Group implements TaskGroup {
  constructor(readonly draft: DagDraft, readonly members: readonly Linkable[]) {}
  get taskIds(): readonly string[] {
    return this.draft.ids(this.members);
  }
  before(...targets: LinkArg[]): any {
    return linkBefore(this.draft, this.members, targets);
  }
  after(...sources: LinkArg[]): TaskGroup {
    this.draft.linkAfter(sources, this.taskIds);
    return this;
  }
}

/** Links the leaves of `from` upstream of `targets` (`a.before(b)`, a group's `before`). */
export function linkBefore(draft: DagDraft, from: readonly Linkable[], targets: readonly LinkArg[]): Linkable {
  return draft.linkBefore(draft.ids(from, 'from'), targets);
}
