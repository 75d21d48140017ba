/**
 * Issue 25 §2: the rehearsal drives the CLI through a runner it is given and imports
 * nothing of lib/cli (lib/cli imports the rehearsal, never the reverse); the stack's output
 * names come from lib/adapters/aws/stack-contract.ts (issue 25 §1).
 * `npm run deps` checks the same with the rule `rehearsal-without-cli`.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const LIB = path.resolve(__dirname, '../../lib');
const CLI = path.join(LIB, 'cli');
const ALLOWED = new Set<string>();

/** Every relative import (static, dynamic, type-only) of a file, resolved to a path under lib/. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/from '(\.[^']+)'|import\('(\.[^']+)'\)/g)]
    .map((m) => path.resolve(path.dirname(file), (m[1] ?? m[2])!).replace(/\.js$/, '.ts'));
}

describe('lib/rehearsal imports', () => {
  it('import nothing from lib/cli but the stack output names', () => {
    const files = (readdirSync(path.join(LIB, 'rehearsal'), { recursive: true }) as string[]).filter((f) => /\.(ts|mjs)$/.test(f));
    expect(files.length).toBeGreaterThan(20);
    const offenders = files.flatMap((f) => importsOf(path.join(LIB, 'rehearsal', f))
      .filter((to) => to.startsWith(`${CLI}${path.sep}`) && !ALLOWED.has(path.relative(LIB, to)))
      .map((to) => `lib/rehearsal/${f} -> lib/${path.relative(LIB, to)}`));
    expect(offenders).toEqual([]);
  });
});
