/**
 * The UI reads and writes through Airflow's spec wherever the spec has an endpoint (issue
 * 24): every path the UI's code fetches is one of the spec's, or one docs/api.md lists
 * under "The UI's routes outside the spec" with its reason.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { operations } from '../helpers/openapi.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const UI = path.join(ROOT, 'lib/ui');

/** The request paths in the UI's code, `{}` for each interpolated segment, without the query. */
function uiPaths(): string[] {
  const out = new Set<string>();
  for (const f of readdirSync(UI).filter((n) => n.endsWith('.ts'))) {
    const src = readFileSync(path.join(UI, f), 'utf8');
    // task.ts names a task instance through one helper: its template stands for it.
    const helper = /const tiPath = \([^)]*\) => `([^`]+)`/.exec(src)?.[1];
    for (const m of src.matchAll(/['`]((?:\/api\/|\/ui\/|\$\{tiPath\()[^'`]*)['`]/g)) {
      let p = m[1];
      if (helper) p = p.replace(/\$\{tiPath\([^)]*\)\}/g, helper);
      p = p.replace(/\$\{[^}]*\}/g, '{}').split('?')[0];
      out.add(p);
    }
  }
  return [...out].sort();
}

/** docs/api.md's list of the UI's own routes, each with its reason. */
function allowed(): string[] {
  const doc = readFileSync(path.join(ROOT, 'docs/api.md'), 'utf8');
  const section = doc.split(/^## /m).find((s) => s.startsWith("The UI's routes outside the spec")) ?? '';
  return [...section.matchAll(/^- `(?:GET|POST) ([^`]+)`: \S/gm)].map((m) => m[1]);
}

const inSpec = (p: string) => operations().some((op) => {
  const want = op.path.split('/');
  const got = p.split('/');
  return want.length === got.length && want.every((s, i) => s.startsWith('{') ? got[i] !== '' : s === got[i] || got[i].includes('{}'));
});
const inAllowed = (p: string, list: string[]) => list.some((a) => a.split('/').length === p.split('/').length && a.split('/').every((s, i) => s.startsWith('{') || s === p.split('/')[i]));

describe("the UI's requests", () => {
  it('are each an endpoint of the spec, or one docs/api.md lists with its reason', () => {
    const paths = uiPaths();
    expect(paths.length).toBeGreaterThan(15);
    const list = allowed();
    expect(list.length).toBeGreaterThan(0);
    expect(paths.filter((p) => !inSpec(p) && !inAllowed(p, list))).toEqual([]);
    // The list holds only what the UI still uses: a route the UI stopped fetching leaves it.
    expect(list.filter((a) => !paths.some((p) => inAllowed(p, [a])))).toEqual([]);
  });
});
