/**
 * The check a literal input passes: it is written into manifest.json, so it must be JSON
 * that reads back as it was written (no Date, Map, class instance, function, undefined
 * inside an array, NaN, or cycle), and no task output may hide inside it (that would draw
 * no edge: the consumer would get the reference, not the value).
 */

/**
 * Why `value` cannot be a literal input, or undefined when it can. `hidden` names an
 * output reference found inside it.
 *
 * @example
 * jsonProblem({ when: new Date() }, () => undefined); // 'holds a Date at .when: ...'
 */
export function jsonProblem(value: unknown, hidden: (v: unknown) => string | undefined): string | undefined {
  const seen = new Set<object>();
  const walk = (v: unknown, at: string, depth: number): string | undefined => {
    const where = at ? ` at ${at}` : '';
    const ref = hidden(v);
    if (ref !== undefined) {
      return `holds the output ${ref}${where} inside a literal, which draws no edge: pass each output as an input of its own`;
    }
    if (v === null || typeof v === 'string' || typeof v === 'boolean') return undefined;
    if (typeof v === 'number') return Number.isFinite(v) ? undefined : `is the number ${String(v)}${where}, which JSON cannot hold`;
    if (typeof v === 'function') {
      const id = (v as { taskId?: unknown }).taskId;
      return id !== undefined
        ? `holds the task handle "${String(id)}"${where}: pass its output (${String(id)}()) as an input of its own`
        : `holds a function${where}: a literal input is JSON (it is written into the manifest)`;
    }
    if (typeof v !== 'object') return `holds ${v === undefined ? 'undefined' : `a ${typeof v}`}${where}, which JSON cannot hold`;
    if (depth > 64) return `is nested deeper than 64 levels${where}`;
    if (seen.has(v)) return `refers back to itself${where}`;
    seen.add(v);
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        if (v[i] === undefined) return `holds undefined at ${at}[${i}], which JSON cannot hold`;
        const p = walk(v[i], `${at}[${i}]`, depth + 1);
        if (p) return p;
      }
      seen.delete(v);
      return undefined;
    }
    const proto = Object.getPrototypeOf(v);
    if (proto !== Object.prototype && proto !== null) {
      const name = (proto as { constructor?: { name?: string } }).constructor?.name ?? 'an object with a prototype';
      const hint = name === 'Date' ? ' (pass date.toISOString(), or the output of a task)' : ' (a literal input is JSON: it is written into the manifest)';
      return `holds a ${name}${where}${hint}`;
    }
    for (const [k, x] of Object.entries(v)) {
      if (x === undefined) continue;
      const p = walk(x, /^[A-Za-z_$][\w$]*$/.test(k) ? `${at}.${k}` : `${at}[${JSON.stringify(k)}]`, depth + 1);
      if (p) return p;
    }
    seen.delete(v);
    return undefined;
  };
  return walk(value, '', 0);
}
