/**
 * Every metric the code counts is listed once, in docs/performance.md ("Custom metrics"),
 * with what it is published as: only the names of PUBLISHED_AS reach CloudWatch, each a
 * metric billed for every hour it has data, so an unlisted one would be a cost the README
 * does not show. The standing-cost figures there and in the README add up.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { PRICES } from '../../../bench/prices.js';
import { METRIC_NAMES, PUBLISHED_AS } from '../../../lib/adapters/aws/metric-names.js';

const ROOT = join(import.meta.dirname, '../../..');

async function sources(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(join(ROOT, dir), { withFileTypes: true, recursive: true })) {
    if (entry.isFile() && entry.name.endsWith('.ts')) out.push(join(entry.parentPath, entry.name));
  }
  return out;
}

/** Drops comments (doc examples name metrics too), keeping string literals intact enough for names. */
function stripComments(code: string): string {
  return code.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '').replace(/\s\/\/ .*$/gm, '');
}

interface Emitted {
  names: Map<string, Set<string>>;
  nonLiteral: string[];
}

/**
 * The names of `.count(...)` and `.timing(...)` calls: the first argument's string literal,
 * or each branch of a conditional (`ok ? 'A' : 'B'`).
 */
function metricNames(files: Record<string, string>): Emitted {
  const names = new Map<string, Set<string>>();
  const nonLiteral: string[] = [];
  for (const [file, code] of Object.entries(files)) {
    for (const m of stripComments(code).matchAll(/\.(count|timing)\(([^,)]*)/g)) {
      const arg = m[2].trim();
      const literals = arg.includes('?')
        ? [...arg.matchAll(/[?:]\s*'([^']+)'/g)].map((x) => x[1])
        : [...arg.matchAll(/^'([^']+)'$/g)].map((x) => x[1]);
      if (literals.length === 0) {
        nonLiteral.push(`${file}: ${m[0]}`);
        continue;
      }
      for (const n of literals) names.set(n, (names.get(n) ?? new Set()).add(`${m[1]} ${file}`));
    }
  }
  return { names, nonLiteral };
}

/** Backticked names in the first column of the table under `### Custom metrics`. */
function documentedNames(doc: string): string[] {
  const section = doc.split(/^### Custom metrics$/m)[1]?.split(/^#{2,3} /m)[0] ?? '';
  return section
    .split('\n')
    .filter((l) => l.startsWith('| `'))
    .flatMap((l) => [...l.split('|')[1]!.matchAll(/`([^`]+)`/g)].map((x) => x[1]!));
}

/** `| item | $x.xx | ... |` rows of the standing-cost table; the total row separately. */
function standingCost(doc: string): { items: number[]; total: number } {
  const section = doc.split(/^### Standing cost.*$/m)[1]?.split(/^#{2,3} /m)[0] ?? '';
  const rows = section.split('\n').filter((l) => l.startsWith('| ') && /\$\d/.test(l.split('|')[2] ?? ''));
  const amount = (l: string) => Number(/\$(\d+\.\d\d)/.exec(l.split('|')[2]!)![1]);
  const total = rows.find((l) => l.includes('**total**'));
  return { items: rows.filter((l) => l !== total).map(amount), total: total ? amount(total) : NaN };
}

let emitted: Emitted;
let files: Record<string, string>;
let perf: string;
let readme: string;

beforeAll(async () => {
  const paths = [...(await sources('lib')), ...(await sources('functions'))];
  files = Object.fromEntries(await Promise.all(paths.map(async (p) => [relative(ROOT, p), await readFile(p, 'utf8')] as const)));
  emitted = metricNames(files);
  perf = await readFile(join(ROOT, 'docs/performance.md'), 'utf8');
  readme = await readFile(join(ROOT, 'README.md'), 'utf8');
});

describe('custom metric names', () => {
  it('reads names from calls, conditionals included, and not from comments', () => {
    const { names, nonLiteral } = metricNames({
      'a.ts': "/** metrics.count('InDoc') */\np.metrics.count(ok ? 'A' : x === 'y' ? 'B' : 'C');\np.metrics.timing('Lag', 3);\n// m.count('Nope')\np.metrics.count(name);",
    });
    expect([...names.keys()].sort()).toEqual(['A', 'B', 'C', 'Lag']);
    expect(nonLiteral).toEqual(['a.ts: .count(name']);
  });

  it('finds every metric name in the code as a literal', () => {
    expect(emitted.nonLiteral).toEqual([]);
    expect(emitted.names.size).toBeGreaterThan(13);
  });

  it('lists exactly the names the code publishes in docs/performance.md', () => {
    const documented = documentedNames(perf);
    expect(new Set(documented).size).toBe(documented.length);
    expect([...documented].sort()).toEqual([...emitted.names.keys()].sort());
  });

  it('publishes one dimension combination per name (service=airless), so each name is one billed metric', () => {
    for (const [file, code] of Object.entries(files)) {
      expect(stripComments(code), file).not.toMatch(/\b(addDimensions?|setDefaultDimensions|singleMetric|captureColdStartMetric)\b/);
    }
  });

  it('publishes only names the code counts, under the published list\'s names, and documents each', () => {
    for (const name of Object.keys(PUBLISHED_AS)) expect(emitted.names.has(name), name).toBe(true);
    expect([...new Set(Object.values(PUBLISHED_AS))].sort()).toEqual([...METRIC_NAMES].sort());
    const rows = perf.split(/^### Custom metrics$/m)[1]!.split('\n').filter((l) => l.startsWith('| `'));
    for (const [name, published] of Object.entries(PUBLISHED_AS)) {
      const row = rows.find((l) => l.split('|')[1]!.includes(`\`${name}\``))!;
      expect(row.split('|')[2], name).toMatch(name === published ? new RegExp(`the same|\`${published}\``) : new RegExp(`\`${published}\``));
    }
    for (const row of rows) {
      const names = [...row.split('|')[1]!.matchAll(/`([^`]+)`/g)].map((x) => x[1]!);
      if (names.every((n) => PUBLISHED_AS[n] === undefined)) expect(row.split('|')[2], row).toContain('in process');
    }
  });

  it('prices the published names in docs/performance.md and the README', () => {
    const n = METRIC_NAMES.length;
    const monthly = `$${(n * PRICES.cloudwatchMetricMonth.usd).toFixed(2)}`;
    expect(perf).toContain(`at\nmost the ${n} names below, ${monthly} a month`);
    expect(readme).toContain(`${n} names`);
    expect(readme).toContain(monthly);
  });

  it('adds up the standing cost, and the README quotes the same total', () => {
    const { items, total } = standingCost(perf);
    expect(items.length).toBeGreaterThanOrEqual(5);
    expect(items.reduce((a, b) => a + b, 0)).toBeCloseTo(total, 2);
    expect(readme).toContain(`$${total.toFixed(2)}`);
  });
});
