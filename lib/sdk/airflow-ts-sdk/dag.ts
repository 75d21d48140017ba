/**
 * `new Dag(id, options)` of Airflow 3.4's TypeScript SDK, on Airless (ADR 0021,
 * docs/airflow-ts-sdk.md). The SDK declares a Dag at module top level, not in a callback:
 * this class records each declaration (tasks, groups, calls with their inputs, edges,
 * `if`/`switch`, `triggerDagRun`), checks it where the SDK does, and when the build (or a
 * worker) reads the exported Dag it replays the record into Airless's `dag()`, so every
 * rule, check and run-time behaviour is Airless's own. Handlers take one object of named
 * arguments; `getContext()`/`getClient()` reach the running task (client.ts).
 */
import { InvalidDagError } from '../../engine/index.js';
import type { TaskContext as AirlessContext } from '../../engine/index.js';
import { dag as airlessDag } from '../dag.js';
import type { DagBuilder, DagDefinition, GroupHandle, TaskHandle } from '../types.js';
import { runInTaskScope } from './client.js';
import { dagOptions, taskOptions } from './options.js';
import { declareTrigger } from './trigger.js';
import { groupRef, isGroupRef, isTaskRef, nodeId, taskRef, type RefHost } from './refs.js';
import type { Branch, Condition, DagSpec, Node, TaskFactory, TaskGroupRef, TaskOptions, TaskRef, TriggerDagRunSpec } from './types.js';

/** The method the build (and a worker) calls to read an exported Dag as Airless's DagDefinition. */
export const DEFINITION = Symbol.for('airless.definition');

type Handler = (args: any) => unknown;

interface TaskRecord {
  ref: TaskRef;
  group?: string;
  /** Its own id inside its group. */
  local: string;
  handler?: Handler;
  options: TaskOptions;
  trigger?: TriggerDagRunSpec;
  called?: boolean;
  condition?: { then?: TaskRef; else?: TaskRef };
  cases?: TaskRef[];
}

interface GroupRecord {
  ref: TaskGroupRef;
  local: string;
  parent?: string;
  tasks: string[];
  children: string[];
}

type Op = { kind: 'call'; taskId: string; inputs: Record<string, unknown> } | { kind: 'edge'; from: Node; to: Node };

const TASK_ID = /^[\p{L}\p{N}_-]+$/u;

/**
 * A Dag declared in TypeScript with the Airflow SDK's surface. Export it from a DAG file:
 * the file's exported Dags are its DAGs.
 *
 * @example
 * export const dag = new Dag('etl', { schedule: '@daily' });
 * const extract = dag.task('extract', async () => ({ rows: 3 }));
 * const load = dag.task('load', async ({ data }: { data: { rows: number } }) => data.rows);
 * load({ data: extract() });
 */
export class Dag {
  readonly dagId: string;
  readonly spec: DagSpec;
  readonly #host: RefHost;
  readonly #tasks = new Map<string, TaskRecord>();
  readonly #groups = new Map<string, GroupRecord>();
  readonly #ops: Op[] = [];
  #definition?: DagDefinition;
  #read = false;

  constructor(dagId: string, spec: DagSpec = {}) {
    this.dagId = dagId;
    this.#host = {
      dagId,
      edge: (from, to, verb) => this.#edge(from, to, verb),
      addTask: (group, a, b, c) => this.#addTask(group, a, b, c),
      addGroup: (parent, local) => this.#addGroup(parent, local),
    };
    // The build warns about a Dag that is built but not exported (lib/build/collect-isolated.ts).
    (globalThis as { __airlessDagCalls?: string[] }).__airlessDagCalls?.push(String(dagId));
    dagOptions(spec, (m) => this.#fail(m));
    this.spec = Object.freeze({ ...spec });
  }

  /** Task ids of this Dag, in declaration order. */
  get taskIds(): readonly string[] {
    return [...this.#tasks.keys()];
  }

  #fail(message: string, taskId?: string): never {
    throw new InvalidDagError(message, { dagId: this.dagId, taskId });
  }

  /** Declares a task and returns its factory: call it once, with its inputs, to place it. */
  task<TArgs extends object | void = void, TReturn = unknown>(taskId: string, handler: (args: TArgs) => TReturn | Promise<TReturn>, options?: TaskOptions): TaskFactory<TArgs, Awaited<TReturn>>;
  task<TArgs extends object | void = void, TReturn = unknown>(handler: (args: TArgs) => TReturn | Promise<TReturn>, options?: TaskOptions): TaskFactory<TArgs, Awaited<TReturn>>;
  task(a: unknown, b?: unknown, c?: unknown): unknown {
    return this.#addTask(undefined, a, b, c);
  }

  /** A task group: ids of what it declares are prefixed `groupId.`. */
  taskGroup(groupId: string): TaskGroupRef {
    return this.#addGroup(undefined, groupId);
  }

  /** Makes a task returning a boolean a condition: `dag.if(gated).then(a).else(b)`; the side not taken is skipped. */
  if(condition: TaskRef<boolean>): Condition {
    const rec = this.#decider(condition, 'dag.if');
    const sides = (rec.condition = {} as NonNullable<TaskRecord['condition']>);
    const name = (side: 'then' | 'else', ref: TaskRef): void => {
      if (typeof ref === 'function') this.#fail(`dag.if(...) of "${rec.ref.taskId}" was awaited: it builds a branch, so drop the await`, rec.ref.taskId);
      if (sides[side]) this.#fail(`condition "${rec.ref.taskId}" already has a "${side}" branch`, rec.ref.taskId);
      this.#own(ref, `the "${side}" branch of "${rec.ref.taskId}"`);
      if (side === 'else' && ref === sides.then) this.#fail(`both branches of condition "${rec.ref.taskId}" are "${ref.taskId}": drop the else branch`, rec.ref.taskId);
      sides[side] = ref;
      this.#ops.push({ kind: 'edge', from: condition, to: ref });
    };
    return { then: (ref) => (name('then', ref), { else: (other) => name('else', other) }) };
  }

  /** Makes a task a multi-way branch: its handler returns one of the cases' references. */
  switch(decider: TaskRef<TaskRef>): Branch {
    const rec = this.#decider(decider, 'dag.switch');
    const cases = (rec.cases = [] as TaskRef[]);
    const branch: Branch = {
      case: (ref) => {
        this.#own(ref, `a case of "${rec.ref.taskId}"`);
        if (cases.some((c) => c.taskId === ref.taskId)) this.#fail(`branch "${rec.ref.taskId}" lists "${ref.taskId}" twice`, rec.ref.taskId);
        cases.push(ref);
        this.#ops.push({ kind: 'edge', from: decider, to: ref });
        return branch;
      },
    };
    return branch;
  }

  /** A task that starts a run of another DAG (Airflow's TriggerDagRunOperator); it is placed as declared. */
  triggerDagRun(spec: TriggerDagRunSpec): TaskRef {
    this.#open('triggerDagRun');
    if (!spec || typeof spec !== 'object' || typeof spec.taskId !== 'string') this.#fail('triggerDagRun(...) needs { taskId, dagId }');
    const { taskId, ...rest } = spec;
    const rec = this.#record(undefined, taskId, { trigger: rest as TriggerDagRunSpec, options: {} });
    rec.called = true;
    return rec.ref;
  }

  /** The Airless DAG this records, built once (the build and each worker read it). */
  [DEFINITION](): DagDefinition {
    if (this.#definition) return this.#definition;
    this.#read = true;
    for (const r of this.#tasks.values()) {
      if (!r.called) this.#fail(`is never called, so it has no place in the Dag: call the factory dag.task(...) returned`, r.ref.taskId);
      if (r.condition && !r.condition.then) this.#fail(`condition "${r.ref.taskId}" names no branch: give it one with dag.if(condition).then(task)`, r.ref.taskId);
      if (r.cases && r.cases.length === 0) this.#fail(`branch "${r.ref.taskId}" has no cases: dag.switch(decider).case(task)`, r.ref.taskId);
    }
    // A decider becomes an Airless branch, whose XCom is the list of tasks it follows, not the SDK's boolean or id.
    for (const op of this.#ops) {
      if (op.kind !== 'call') continue;
      for (const [key, v] of Object.entries(op.inputs)) {
        const up = isTaskRef(v) ? this.#tasks.get((v as TaskRef).taskId) : undefined;
        if (up && (up.condition || up.cases)) {
          this.#fail(`input "${key}" is the value of "${up.ref.taskId}", which decides a branch: on Airless a branch's value is the list of tasks it follows, so it is not passed on; pass what it decided from instead`, op.taskId);
        }
      }
    }
    this.#definition = airlessDag(this.dagId, dagOptions(this.spec, (m) => this.#fail(m)), (b) => this.#replay(b));
    return this.#definition;
  }

  // --- declaring ---------------------------------------------------------------------

  #open(what: string): void {
    if (this.#read) this.#fail(`${what} cannot be used after the Dag was read: declare everything while the module loads`);
  }

  #record(group: string | undefined, local: string, r: Partial<TaskRecord> & { options: TaskOptions }): TaskRecord {
    this.#open(`task "${local}"`);
    if (typeof local !== 'string' || !TASK_ID.test(local)) {
      this.#fail(`task id ${JSON.stringify(local)} is not valid: use letters, digits, _ and - (a group adds its prefix)`);
    }
    const taskId = group === undefined ? local : `${group}.${local}`;
    if (this.#tasks.has(taskId) || this.#groups.has(taskId)) this.#fail(`task "${taskId}" is already registered for Dag "${this.dagId}"`, taskId);
    const rec: TaskRecord = { ...r, ref: taskRef(this.#host, taskId), group, local };
    this.#tasks.set(taskId, rec);
    if (group !== undefined) this.#groups.get(group)!.tasks.push(taskId);
    return rec;
  }

  /** `task(id, handler, options)` or `task(handler, options)` (the id is the handler's name). */
  #addTask(group: string | undefined, a: unknown, b?: unknown, c?: unknown): unknown {
    const named = typeof a === 'string';
    const handler = (named ? b : a) as Handler;
    const given = (named ? c : b) as TaskOptions | undefined;
    const specId = given && typeof given === 'object' && typeof given.taskId === 'string' ? given.taskId : undefined;
    if (named && specId !== undefined) this.#fail(`task "${a as string}" also carries taskId "${specId}" in its spec: give the id once`);
    const local = named ? (a as string) : (specId ?? (typeof handler === 'function' && handler.name ? handler.name : undefined));
    if (local === undefined) this.#fail('a task has no id: its handler has no name to take one from; pass one, dag.task("my_task", handler)');
    if (typeof handler !== 'function') this.#fail('a task handler must be a function', local);
    if (handler.length > 1) this.#fail(`its handler declares ${handler.length} parameters; a handler takes one object of named arguments: async ({ rows, region }) => ...`, local);
    const { taskId: _id, ...options } = (given ?? {}) as TaskOptions & { taskId?: string };
    taskOptions(options, (m) => this.#fail(m, local));
    const rec = this.#record(group, local, { handler, options });
    return (...args: unknown[]) => this.#call(rec, args);
  }

  /** A group, at the top level or inside `parent`. */
  #addGroup(parent: string | undefined, local: string): TaskGroupRef {
    this.#open(`task group "${local}"`);
    if (typeof local !== 'string' || !TASK_ID.test(local)) this.#fail(`task group id ${JSON.stringify(local)} is not valid: use letters, digits, _ and - (nest groups with taskGroup(...))`);
    const id = parent === undefined ? local : `${parent}.${local}`;
    if (this.#tasks.has(id) || this.#groups.has(id)) this.#fail(`task group "${id}" is already registered for Dag "${this.dagId}"`);
    const ref = groupRef(this.#host, id);
    this.#groups.set(id, { ref, local, parent, tasks: [], children: [] });
    if (parent !== undefined) this.#groups.get(parent)!.children.push(id);
    return ref;
  }

  #call(rec: TaskRecord, args: unknown[]): TaskRef {
    const id = rec.ref.taskId;
    this.#open(`task "${id}"`);
    if (rec.called) this.#fail('was already called: a task holds one place in a Dag, so call it once and reuse the reference', id);
    if (args.length > 1) this.#fail(`takes one object naming its inputs, ${rec.local}({ rows, region }), got ${args.length} arguments`, id);
    const inputs = args[0];
    if (inputs !== undefined && (inputs === null || typeof inputs !== 'object' || Array.isArray(inputs) || isTaskRef(inputs) || Object.getPrototypeOf(inputs) !== Object.prototype)) {
      const hint = (inputs as { __withArgList?: unknown })?.__withArgList ? ' (withArgList is not supported on Airless: name the inputs)' : '';
      this.#fail(`takes one object naming its inputs, ${rec.local}({ rows, region })${hint}`, id);
    }
    for (const [key, value] of Object.entries((inputs ?? {}) as Record<string, unknown>)) {
      if (isTaskRef(value)) {
        this.#own(value, `input "${key}"`, id);
        const up = this.#tasks.get((value as TaskRef).taskId)!;
        if (up.trigger) this.#fail(`input "${key}" is the triggerDagRun task "${up.ref.taskId}", which has no value to pass: order it with .after()`, id);
      } else {
        const nested = findRef(value, new Set());
        if (nested) this.#fail(`input "${key}" holds a reference to "${nested.taskId}" inside a literal value, which draws no edge: pass the reference as the input itself`, id);
      }
    }
    rec.called = true;
    this.#ops.push({ kind: 'call', taskId: id, inputs: { ...((inputs ?? {}) as Record<string, unknown>) } });
    return rec.ref;
  }

  /** An order-only edge (`before`/`after` of a reference or group this Dag handed out). */
  #edge(from: Node, to: Node, verb: 'before' | 'after'): void {
    this.#open('an edge');
    this.#own(verb === 'before' ? to : from, `${verb}()`);
    if (nodeId(from) === nodeId(to)) this.#fail(`${verb}() cannot draw an edge from node "${nodeId(from)}" to itself`);
    this.#ops.push({ kind: 'edge', from, to });
  }

  #decider(ref: TaskRef, verb: string): TaskRecord {
    this.#open(`${verb}(...)`);
    this.#own(ref, `the condition given to ${verb}`);
    const rec = this.#tasks.get(ref.taskId)!;
    if (rec.condition || rec.cases) this.#fail(`already decides a branch: one task decides one way`, ref.taskId);
    if (rec.trigger) this.#fail(`a triggerDagRun task cannot decide a branch`, ref.taskId);
    return rec;
  }

  /** Refuses a node this Dag did not hand out (another Dag's, or a look-alike object). */
  #own(node: unknown, label: string, taskId?: string): void {
    const id = nodeId(node);
    if (id === undefined) this.#fail(`${label} takes tasks and task groups this Dag handed out, not arbitrary values`, taskId);
    const n = node as Node;
    const mine = isTaskRef(n) ? this.#tasks.get(id)?.ref === n : this.#groups.get(id)?.ref === n;
    if (n.dagId !== this.dagId || !mine) this.#fail(`${label} was given "${id}" of Dag "${n.dagId}", which this Dag did not hand out: an edge joins two nodes of one Dag`, taskId);
  }

  // --- replaying into Airless --------------------------------------------------------

  #replay(b: DagBuilder): void {
    const handles = new Map<string, TaskHandle>();
    const groups = new Map<string, GroupHandle>();
    const declare = (builder: DagBuilder, group: string | undefined): void => {
      const ids = group === undefined ? [...this.#tasks.values()].filter((r) => r.group === undefined).map((r) => r.ref.taskId) : this.#groups.get(group)!.tasks;
      for (const id of ids) handles.set(id, this.#declare(builder, this.#tasks.get(id)!));
      const children = group === undefined ? [...this.#groups.entries()].filter(([, g]) => g.parent === undefined).map(([gid]) => gid) : this.#groups.get(group)!.children;
      for (const gid of children) groups.set(gid, builder.group(this.#groups.get(gid)!.local, (gb) => declare(gb, gid)));
    };
    declare(b, undefined);
    const outputs = new Map<string, unknown>();
    for (const op of this.#ops) {
      if (op.kind !== 'call') continue;
      const inputs = Object.fromEntries(Object.entries(op.inputs).map(([k, v]) => [k, isTaskRef(v) ? outputs.get((v as TaskRef).taskId) : v]));
      outputs.set(op.taskId, (handles.get(op.taskId) as unknown as (i: unknown) => unknown)(inputs));
    }
    const end = (n: Node) => (isGroupRef(n) ? groups.get(nodeId(n)!)! : handles.get(nodeId(n)!)!);
    // Edges between tasks first: a group's roots and leaves are taken when an edge reaches it.
    const edges = this.#ops.filter((op): op is Extract<Op, { kind: 'edge' }> => op.kind === 'edge');
    for (const e of [...edges.filter((x) => !isGroupRef(x.from) && !isGroupRef(x.to)), ...edges.filter((x) => isGroupRef(x.from) || isGroupRef(x.to))]) {
      end(e.from).before(end(e.to));
    }
  }

  #declare(b: DagBuilder, r: TaskRecord): TaskHandle {
    const id = r.ref.taskId;
    if (r.trigger) return declareTrigger(b, r.local, r.trigger, (m) => this.#fail(m, id));
    const { options, push } = taskOptions(r.options, (m) => this.#fail(m, id));
    const handler = r.handler!;
    const call = (ctx: AirlessContext, inputs: unknown) => runInTaskScope(ctx, () => handler(inputs ?? {}));
    if (!r.condition && !r.cases) {
      return b.task(r.local, push ? call : async (ctx, inputs: unknown) => void (await call(ctx, inputs)), options);
    }
    // A condition or a switch is an Airless branch: it follows its direct downstream tasks but the side(s) not chosen.
    const follow = (skipped: readonly TaskRef[]) => {
      const down = this.#definition?.spec.tasks.find((t) => t.taskId === id)?.downstream ?? [];
      return down.filter((d) => !skipped.some((s) => s.taskId === d));
    };
    const decide = async (ctx: AirlessContext, inputs: unknown): Promise<string[]> => {
      const value = await call(ctx, inputs);
      if (r.condition) {
        if (typeof value !== 'boolean') throw new Error(`condition "${id}" returned ${describe(value)} rather than a boolean, so there is no branch to take`);
        const skip = value ? r.condition.else : r.condition.then;
        return follow(skip ? [skip] : []);
      }
      const cases = r.cases!;
      if (!cases.includes(value as TaskRef)) {
        throw new Error(`task "${id}" chose ${isTaskRef(value) ? `"${(value as TaskRef).taskId}"` : describe(value)}, which is not one of its cases: ${cases.map((c) => c.taskId).join(', ')}`);
      }
      return follow(cases.filter((c) => c !== value));
    };
    return b.branch(r.local, decide, options);
  }
}

function describe(v: unknown): string {
  if (v === null || v === undefined) return String(v);
  if (typeof v === 'object') return Array.isArray(v) ? 'an array' : 'an object';
  return `the ${typeof v} ${JSON.stringify(v)}`;
}

/** The first task reference inside a literal value. */
function findRef(v: unknown, seen: Set<object>): TaskRef | undefined {
  if (typeof v !== 'object' || v === null || seen.has(v)) return undefined;
  if (isTaskRef(v)) return v as TaskRef;
  seen.add(v);
  for (const x of Array.isArray(v) ? v : Object.values(v)) {
    const r = findRef(x, seen);
    if (r) return r;
  }
  return undefined;
}

/** True when `v` is an SDK `Dag` (of any copy of this module). */
export function isSdkDag(v: unknown): v is { [DEFINITION](): DagDefinition } {
  return typeof v === 'object' && v !== null && typeof (v as Record<symbol, unknown>)[DEFINITION] === 'function';
}
