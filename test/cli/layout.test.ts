/**
 * Layout rules of ADR 0011: lib/ never imports local/ (the LocalStack tier), and every
 * file under lib/cli/commands/ contributes a command the registry lists.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { COMMANDS } from '../../lib/cli/commands/index.js';

const LIB = path.resolve(__dirname, '../../lib');
const files = (readdirSync(LIB, { recursive: true }) as string[]).filter((f) => f.endsWith('.ts'));

describe('layout', () => {
  it('lib/ does not import local/', () => {
    const offenders = files.filter((f) => {
      const text = readFileSync(path.join(LIB, f), 'utf8');
      return [...text.matchAll(/from '([^']+)'|import\('([^']+)'\)/g)].some((m) => {
        const spec = m[1] ?? m[2];
        return spec.startsWith('.') && path.resolve(LIB, path.dirname(f), spec).startsWith(path.resolve(LIB, '../local'));
      });
    });
    expect(offenders).toEqual([]);
  });

  it('every command file is registered', async () => {
    const commandFiles = readdirSync(path.join(LIB, 'cli/commands')).filter((f) => f.endsWith('.ts') && !['index.ts', 'stack.ts'].includes(f));
    for (const f of commandFiles) {
      const mod = await import(path.join(LIB, 'cli/commands', f));
      const exported = Object.values(mod).filter((v) => typeof v === 'object' && v !== null && 'words' in v);
      expect(exported.length, f).toBeGreaterThan(0);
      for (const c of exported) expect(COMMANDS, f).toContain(c);
    }
  });
});
