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
 *
 * @example
 * depthProblem({ a: [[1]] }, 2); // 'nested more than 2 levels deep (at value.a[0])'
 * depthProblem(body, MAX_VALUE_DEPTH, 'body'); // '... (at body.conf.a.a…)'
 */
export function depthProblem(value: unknown, limit = MAX_VALUE_DEPTH, root = 'value'): string | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  // Depth-first in the order serializers walk (a container counts where it is first met,
  // since devalue and structured clone write later meetings as back-references).
  const seen = new Set<object>();
  const stack: Frame[] = [{ v: value, depth: 1, path: () => root }];
  while (stack.length) {
    const { v, depth, path } = stack.pop()!;
    if (seen.has(v)) continue;
    seen.add(v);
    if (depth > limit) return `nested more than ${limit} levels deep (at ${shorten(path())})`;
    const children = childrenOf(v, depth, path);
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]);
  }
  return undefined;
}

interface Frame { v: object; depth: number; path: () => string }

function childrenOf(v: object, depth: number, path: () => string): Frame[] {
  const out: Frame[] = [];
  const add = (child: unknown, step: () => string) => {
    if (child !== null && typeof child === 'object') out.push({ v: child, depth: depth + 1, path: step });
  };
  if (v instanceof Map) {
    let i = 0;
    for (const [k, x] of v) {
      const n = i++;
      add(k, () => `${path()}.keys[${n}]`);
      add(x, () => `${path()}.values[${n}]`);
    }
  } else if (v instanceof Set) {
    let i = 0;
    for (const x of v) { const n = i++; add(x, () => `${path()}[${n}]`); }
  } else if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) add(v[i], () => `${path()}[${i}]`);
  } else if (!ArrayBuffer.isView(v)) {
    for (const k of Object.keys(v)) add((v as Record<string, unknown>)[k], () => `${path()}${/^[A-Za-z_$][\w$]*$/.test(k) ? `.${k}` : `[${JSON.stringify(k)}]`}`);
  }
  return out;
}

/** A path a thousand steps long is not one line: its start and its end. */
function shorten(path: string): string {
  return path.length > 120 ? `${path.slice(0, 60)}…${path.slice(-50)}` : path;
}
