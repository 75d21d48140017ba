/**
 * Types of the typed TaskFlow style (ADR 0021): a task handle is callable once with its
 * inputs and returns its output, typed from the task function. `tsc` (and so `airless
 * build`) refuses a wiring whose types do not match.
 *
 * @example
 * const extract = task('extract', async () => ({ rows: 42, source: 'db' }));
 * const double = task('double', async (_ctx, { n }: { n: number }) => n * 2);
 * const e = extract();
 * double({ n: e.rows });     // Output<number>
 * double({ n: e.source });   // error TS2322: Output<string> is not assignable to number | Output<number>
 */
import type { DeferRequest, SkipRequest } from '../engine/index.js';
import type { Linkable, TaskGroup, TaskHandle } from './types.js';

declare const OUTPUT: unique symbol;

/** Names an output keeps for itself: a property of the value with one of these names cannot be reached as `out.name`. */
export type ReservedOutputName = 'before' | 'after' | 'map' | 'then';

/** Ordering without data, as on task handles (Airflow's `xcom_arg >> task`). */
export interface OutputLinks {
  /** Makes the task(s) this output comes from upstream of every target; returns the target (or a group of them). */
  before<T extends Linkable>(target: T): T;
  before(...targets: Array<Linkable | readonly Linkable[]>): TaskGroup;
  /** Makes every source upstream of the task(s) this output comes from. */
  after(...sources: Array<Linkable | readonly Linkable[]>): this;
}

type IsAny<T> = 0 extends 1 & T ? true : false;
type Nullish<T> = Extract<T, null | undefined>;

/** `.map(fn)` on an array output: Airflow's `XComArg.map`, `fn` run where the value is consumed. */
export interface MapMember<E> {
  /**
   * Transforms each element where the value is consumed (in the consuming task's try, or
   * per mapped instance). `fn` must be pure and synchronous: it runs inside another task.
   *
   * @example
   * const files = list();                                   // Output<string[]>
   * copy.expandKwargs(files.map((f) => ({ src: f, dst: `out/${f}` })));
   */
  map<U>(fn: (item: E) => U): Output<U[]>;
}

/** What an output offers besides linking: `.map` on arrays, a typed property per key on objects. */
export type OutputMembers<T> = IsAny<T> extends true
  ? { readonly [key: string]: Output<any> } & MapMember<any>
  : [NonNullable<T>] extends [readonly (infer E)[]]
    ? MapMember<E>
    : [NonNullable<T>] extends [(...args: any[]) => any]
      ? {}
      : [NonNullable<T>] extends [object]
        ? { readonly [K in Exclude<keyof NonNullable<T>, ReservedOutputName | symbol | number>]-?: Output<NonNullable<T>[K] | Nullish<T>> }
        : {};

/**
 * A reference to a task's output (or to a property of it), typed `T`. Pass it as an input of
 * another task; read a property (`e.rows`) to pass only that part (Airflow's
 * multiple_outputs: the key is stored as its own XCom); `.map(fn)` on an array output.
 * It is a reference, not the value: the value exists only when the task has run.
 */
export type Output<T> = OutputLinks & { readonly [OUTPUT]: () => T } & OutputMembers<T>;

/** One input: a literal (JSON: it is written into the manifest) or another task's output. */
export type InputOf<T> = T | Output<T>;

/** A task's inputs by name, each a literal or an output of the input's type. */
export type Inputs<I> = { [K in keyof I]: InputOf<I[K]> };

type AllOptional<I> = {} extends I ? true : false;

/** The arguments of calling a task handle, from the type of its function's second parameter. */
export type CallArgs<I> = [I] extends [void]
  ? []
  : unknown extends I
    ? [inputs?: Record<string, unknown>]
    : [I] extends [object]
      ? AllOptional<I> extends true ? [inputs?: Inputs<I>] : [inputs: Inputs<I>]
      : [inputs: never];

/** What one mapped input maps over: a literal array, an output that is an array, or (old style) a task handle. */
export type ExpandSourceOf<E> = readonly E[] | Output<readonly E[]> | TaskHandle;

/** Named sources of `expand({ ... })`: the cross product of them is mapped (the last name varying fastest). */
export type NamedSources<I> = { [K in keyof I]: ExpandSourceOf<I[K]> };

type ElementOf<I> = [I] extends [void] ? unknown : I;

/** What `expandKwargs` maps over: a list of objects, each the inputs of one instance. */
export type KwargsSource<I> = readonly I[] | Output<readonly I[]>;

/** The fixed inputs of `partial()`: some of the task's inputs, literals or outputs. */
export type PartialInputs<I> = { [K in keyof I]?: InputOf<I[K]> };

/** What `partial()` returns: expand the rest (Airflow's `task.partial(...).expand(...)`). */
export interface PartialTask<Rest, R> {
  /**
   * One instance per element of the cross product of the named sources; each instance gets
   * the fixed inputs and its element, `{ ...fixed, ...element }`.
   */
  expand(sources: NamedSources<Rest>): Output<R[]>;
  /** One instance per object of `source`; each instance gets the fixed inputs and that object. */
  expandKwargs(source: KwargsSource<Rest>): Output<R[]>;
}

/** The value a task's output stands for: its function's result without the defer and skip markers. */
export type TaskValue<R> = Exclude<Awaited<R>, DeferRequest | SkipRequest>;

/**
 * A task handle of the typed style: callable once with its inputs (or with none), and still a
 * {@link TaskHandle} (`before`, `after`, `asSetup`, `expand`). `I` is the type of the task
 * function's second parameter, `R` its result.
 */
export interface Task<I = unknown, R = unknown> extends TaskHandle {
  /**
   * Places the task: wires an edge from each task whose output is among `inputs` and
   * delivers the values to the function's second parameter when it runs. Call it once.
   */
  (...inputs: CallArgs<I>): Output<R>;
  /**
   * Dynamic task mapping. One source: one instance per element, the element is the second
   * parameter. Named sources: the cross product, the second parameter is `{ name: element }`.
   * Returns the mapped output: the instances' results in map-index order.
   */
  expand(source: ExpandSourceOf<ElementOf<I>>): Output<R[]>;
  expand(sources: NamedSources<I>): Output<R[]>;
  /** Fixes some inputs of a mapped task (Airflow's `partial`). */
  partial<C extends PartialInputs<I>>(fixed: C): PartialTask<Omit<I, keyof C>, R>;
  /** One instance per object of `source`, each object the inputs of its instance (Airflow's `expand_kwargs`). */
  expandKwargs(source: KwargsSource<I>): Output<R[]>;
}

/** A source of `zip()`: an output that is an array. */
export type ZipPart = Output<readonly unknown[]>;
type PartElement<P> = P extends { readonly [OUTPUT]: () => readonly (infer E)[] } ? E : never;
/** The tuple one element of a zip is. */
export type ZipTuple<P extends readonly unknown[], F = never> = { -readonly [K in keyof P]: PartElement<P[K]> | F };
/** `zip(a, b, { fillValue })`: as long as the longest source, the missing places holding `fillValue`. */
export interface ZipOptions<F> {
  fillValue: F;
}
