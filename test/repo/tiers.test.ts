/**
 * The vitest projects (vitest.config.ts) split the tests by speed: `fast` (pure and memory,
 * the inner loop: `npm run test:fast`), `dynamodb` (DynamoDB Local) and `slow` (processes,
 * servers, synth, the browser). A glob that misses a file drops it from `npm test` without
 * a word, and a file in two tiers runs twice; a fast file that asks for DynamoDB Local gets
 * '' (the fast tier starts no Java) and its suites skip. This lists what vitest itself
 * would run (`vitest list --filesOnly`, which starts nothing) and checks all three.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(__dirname, '../..');
const VITEST = path.join(ROOT, 'node_modules/vitest/vitest.mjs');
/** The project sets a file may have: one tier, or an engine suite on both stores. */
const ALLOWED = ['fast', 'slow', 'dynamodb', 'dynamodb+fast'];
/** A test that reads DynamoDB Local's endpoint from the global setup. */
const ASKS_FOR_DYNAMODB = /\binject\(\s*['"]dynamodbEndpoint['"]/;

function projectsByFile(): Map<string, string> {
  const out = execFileSync(process.execPath, [VITEST, 'list', '--filesOnly', '--json'], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
  const byFile = new Map<string, string[]>();
  for (const { file, projectName } of JSON.parse(out) as { file: string; projectName: string }[]) {
    const rel = path.relative(ROOT, file);
    byFile.set(rel, [...(byFile.get(rel) ?? []), projectName]);
  }
  return new Map([...byFile].map(([f, p]) => [f, p.sort().join('+')]));
}

describe('test tiers', () => {
  it('run every test file once per tier it belongs to, and a fast file never needs DynamoDB Local', () => {
    const tiers = projectsByFile();
    const files = readdirSync(path.join(ROOT, 'test'), { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.test.ts'))
      .map((f) => path.join('test', f));
    expect(files.length).toBeGreaterThan(150);
    expect(files.filter((f) => !tiers.has(f))).toEqual([]);
    expect([...tiers].filter(([, p]) => !ALLOWED.includes(p))).toEqual([]);
    const fastNeedsDynamo = [...tiers]
      .filter(([f, p]) => p.split('+').includes('fast') && readFileSync(path.join(ROOT, f), 'utf8').match(ASKS_FOR_DYNAMODB))
      .map(([f]) => f);
    expect(fastNeedsDynamo).toEqual([]);
  });
});
