/**
 * How deep a value Airless accepts (issue 19, defect 2). A value nested a few thousand
 * levels deep passed every check and then broke a recursive step later: a worker thread
 * could post it but the main thread could not read it back (structured clone's reader
 * overflows its stack near 3,500 levels of arrays, 1,900 of objects: the try hung), and
 * devalue, which writes XCom, overflows near 1,700. So conf, XCom values and what a task
 * hands back are refused past {@link MAX_VALUE_DEPTH} levels, with one line naming where.
 *
 * 1,000: Python's default recursion limit bounds what Airflow's own JSON serialization of
 * XCom and conf can write, so no Airflow DAG relies on more; and it leaves devalue and the
 * thread boundary (both near 1,700 and more on Node 20 and 24's default stacks) a margin for
 * the frames already on the stack where they are called.
 */

/** Containers (arrays, objects, Maps, Sets) nested inside one another, at most. */
export const MAX_VALUE_DEPTH = 1000;

/**
 * Where `value` nests containers more than `limit` deep (`value[0].a...`, shortened), or
 * undefined. Iterative, so a value of any depth is measured without a stack overflow;
 * each container is visited once, so cycles and shared references cost nothing extra.
 * Depth-first in the order serializers walk: a container counts where it is first met,
 * since devalue and structured clone write later meetings as back-references.
 *
 * @example
 * depthProblem({ a: [[1]] }, 2); // 'nested more than 2 levels deep (at value.a[0])'
 * depthProblem(body, MAX_VALUE_DEPTH, 'body'); // '... (at body.conf.a.a…)'
 */
export function depthProblem(value: unknown, limit = MAX_VALUE_DEPTH, root = 'value'): string | undefined {
  if (value === null || typeof value !== 'object' || !tooDeep(value, limit)) return undefined;
  return `nested more than ${limit} levels deep (at ${shorten(pathPast(value, limit, root))})`;
}

const isObject = (x: unknown): x is object => x !== null && typeof x === 'object';

/** The children of a container that are containers, in order (typed arrays have none). */
function children(v: object): unknown[] {
  if (Array.isArray(v)) return v;
  if (v instanceof Map) return [...v].flat();
  if (v instanceof Set) return [...v];
  if (ArrayBuffer.isView(v)) return [];
  return Object.values(v);
}

/** The hot path (every XCom write): two stacks and a set, no object per container. */
function tooDeep(value: object, limit: number): boolean {
  const seen = new Set<object>();
  const values: object[] = [value];
  const depths: number[] = [1];
  while (values.length) {
    const v = values.pop()!;
    const depth = depths.pop()!;
    if (seen.has(v)) continue;
    seen.add(v);
    if (depth > limit) return true;
    const xs = children(v);
    for (let i = xs.length - 1; i >= 0; i--) {
      const x = xs[i];
      if (isObject(x)) { values.push(x); depths.push(depth + 1); }
    }
  }
  return false;
}

interface Step { v: object; depth: number; parent?: Step; key: string }

/** The path to the first container past `limit`, in the same order (only once one exists). */
function pathPast(value: object, limit: number, root: string): string {
  const seen = new Set<object>();
  const stack: Step[] = [{ v: value, depth: 1, key: root }];
  while (stack.length) {
    const step = stack.pop()!;
    if (seen.has(step.v)) continue;
    seen.add(step.v);
    if (step.depth > limit) {
      const keys: string[] = [];
      for (let s: Step | undefined = step; s; s = s.parent) keys.push(s.key);
      return keys.reverse().join('');
    }
    const v = step.v;
    const named: [string, unknown][] = v instanceof Map ? [...v].flatMap(([k, x], i) => [[`.keys[${i}]`, k], [`.values[${i}]`, x]] as [string, unknown][])
      : v instanceof Set ? [...v].map((x, i) => [`[${i}]`, x])
      : Array.isArray(v) ? v.map((x, i) => [`[${i}]`, x])
      : ArrayBuffer.isView(v) ? []
      : Object.entries(v).map(([k, x]) => [/^[A-Za-z_$][\w$]*$/.test(k) ? `.${k}` : `[${JSON.stringify(k)}]`, x]);
    for (let i = named.length - 1; i >= 0; i--) {
      const [key, x] = named[i];
      if (isObject(x)) stack.push({ v: x, depth: step.depth + 1, parent: step, key });
    }
  }
  return root;
}

/** A path a thousand steps long is not one line: its start and its end. */
function shorten(path: string): string {
  return path.length > 120 ? `${path.slice(0, 60)}…${path.slice(-50)}` : path;
}
