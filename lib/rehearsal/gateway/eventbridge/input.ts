/**
 * What a rule hands its target (EventBridge "Transforming target input"): the whole event,
 * a constant `Input`, the part `InputPath` selects, or an `InputTransformer`'s template with
 * `<name>` placeholders filled from `InputPathsMap` JSON paths and the predefined
 * `aws.events.*` variables. Inside a JSON string a placeholder takes the value's text;
 * outside one it takes the value's JSON (a missing path gives null).
 */
import type { BusEvent, BusRule, RuleTarget } from './types.js';

/**
 * @example
 * targetInput({ InputPath: '$.detail' }, event, rule, Date.now()); // '{"state":"STOPPED"}'
 */
export function targetInput(t: RuleTarget, event: BusEvent, rule: BusRule, ingested: number): string {
  if (t.Input !== undefined) return t.Input;
  if (t.InputPath !== undefined) return JSON.stringify(jsonPath(event, t.InputPath) ?? null);
  if (!t.InputTransformer) return JSON.stringify(event);
  const vars: Record<string, unknown> = {
    'aws.events.rule-arn': rule.Arn,
    'aws.events.rule-name': rule.Name,
    'aws.events.event.ingestion-time': new Date(ingested).toISOString(),
    'aws.events.event': event,
    'aws.events.event.json': event,
  };
  for (const [name, path] of Object.entries(t.InputTransformer.InputPathsMap ?? {})) vars[name] = jsonPath(event, path);
  return fill(t.InputTransformer.InputTemplate, vars);
}

/** `$`, `$.a.b`, `$.a[0]`, `$['a-b']`: what InputPath and InputPathsMap use. */
export function jsonPath(root: unknown, path: string): unknown {
  if (!path.startsWith('$')) return undefined;
  const steps = [...path.slice(1).matchAll(/\.([^.[\]]+)|\[(\d+)\]|\['([^']*)'\]/g)].map((m) => m[1] ?? (m[2] !== undefined ? Number(m[2]) : m[3]!));
  let node: unknown = root;
  for (const step of steps) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<string | number, unknown>)[step];
  }
  return node;
}

function fill(template: string, vars: Record<string, unknown>): string {
  let out = '';
  let inString = false;
  for (let i = 0; i < template.length; i++) {
    const c = template[i]!;
    if (c === '"' && template[i - 1] !== '\\') inString = !inString;
    const m = c === '<' ? /^<([A-Za-z0-9_.-]+)>/.exec(template.slice(i)) : null;
    if (!m || !(m[1]! in vars)) {
      out += c;
      continue;
    }
    const value = vars[m[1]!];
    if (inString) out += JSON.stringify(typeof value === 'string' ? value : JSON.stringify(value ?? null)).slice(1, -1);
    else out += JSON.stringify(value ?? null);
    i += m[0].length - 1;
  }
  return out;
}
