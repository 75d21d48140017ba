/**
 * The engine decides; adapters do (docs/adr/0001). A change violates this when a file
 * under lib/engine imports the AWS SDK, CDK, middy or the file system, or reads the
 * clock, the environment or Math.random directly.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ENGINE = path.resolve(__dirname, '../../lib/engine');
const FORBIDDEN: [RegExp, string][] = [
  [/from\s+['"]@aws-sdk\//, 'imports the AWS SDK'],
  [/from\s+['"](aws-cdk-lib|constructs)/, 'imports the CDK'],
  [/from\s+['"]@middy\//, 'imports middy'],
  [/from\s+['"](node:)?(fs|fs\/promises|child_process|net|http|https)['"]/, 'does I/O'],
  [/from\s+['"](node:)?worker_threads['"]|from\s+['"][./]*isolation\//, 'runs threads (isolation is an adapter: lib/isolation, ADR 0010)'],
  [/Date\.now\(\)/, 'reads the clock (use ports.clock)'],
  [/new Date\(\)/, 'reads the clock (use ports.clock)'],
  [/process\.env/, 'reads the environment'],
  [/Math\.random\(/, 'uses Math.random'],
  [/\bsetTimeout\(|\bsetInterval\(/, 'uses real timers (use clock.sleep)'],
];

describe('lib/engine stays pure', () => {
  const files = readdirSync(ENGINE).filter((f) => f.endsWith('.ts'));
  it('has engine files to check', () => expect(files.length).toBeGreaterThan(10));
  for (const f of files) {
    it(`${f} has no SDK, I/O, clock, environment or randomness`, () => {
      const src = readFileSync(path.join(ENGINE, f), 'utf8')
        .replace(/\/\*[\s\S]*?\*\//g, '')
        .replace(/\/\/.*$/gm, '');
      const found = FORBIDDEN.filter(([re]) => re.test(src)).map(([, why]) => `${f} ${why}`);
      expect(found).toEqual([]);
    });
  }
});
