/**
 * docs/deploy.md (the full guide) and the README's deploy section (the short form) say the
 * same thing, and both say what the code does: the same commands, the stack's real
 * outputs, the construct's real props and the app's real context options.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../lib/infra/functions.js';
import { synthAirless } from './synth.js';

let guide: string;
let readme: string;

/** The text under a heading, up to the next heading of the same or a higher level. */
function section(text: string, heading: string): string {
  const level = /^#+/.exec(heading)![0].length;
  const start = text.indexOf(`\n${heading}\n`);
  if (start < 0) throw new Error(`no section ${heading}`);
  const rest = text.slice(start + heading.length + 2);
  const end = rest.search(new RegExp(`^#{1,${level}} `, 'm'));
  return end < 0 ? rest : rest.slice(0, end);
}

/** Lines of the fenced sh blocks of a text. */
function shellLines(text: string): string[] {
  return [...text.matchAll(/```sh\n([\s\S]*?)```/g)].flatMap((m) => m[1]!.split('\n').filter(Boolean));
}

/** Backticked names in the first column of a markdown table. */
function firstColumn(text: string): string[] {
  return text.split('\n').filter((l) => l.startsWith('| `')).flatMap((l) => [...l.split('|')[1]!.matchAll(/`([^`]+)`/g)].map((x) => x[1]!));
}

beforeAll(async () => {
  guide = await readFile(join(PROJECT_ROOT, 'docs/deploy.md'), 'utf8');
  readme = await readFile(join(PROJECT_ROOT, 'README.md'), 'utf8');
});

describe('deploy documentation', () => {
  it('the README runs the same commands as the guide, and links to it', () => {
    const short = section(readme, '## Deploying to AWS');
    const commands = shellLines(short);
    expect(commands.length).toBeGreaterThanOrEqual(5);
    expect(shellLines(guide)).toEqual(expect.arrayContaining(commands));
    expect(short).toContain('(docs/deploy.md)');
  });

  it('lists exactly the stack outputs', () => {
    const { template } = synthAirless();
    const documented = firstColumn(section(guide, '## Deploy')).filter((n) => !n.startsWith('-c '));
    expect(documented.sort()).toEqual(Object.keys(template.findOutputs('*')).sort());
  });

  it('lists exactly the props of Airless', async () => {
    const source = await readFile(join(PROJECT_ROOT, 'lib/infra/airless.ts'), 'utf8');
    const propsBlock = /export interface AirlessProps \{([\s\S]*?)\n\}/.exec(source)![1]!;
    const props = [...propsBlock.matchAll(/readonly (\w+)\?:/g)].map((m) => m[1]!);
    const documented = firstColumn(section(guide, '## Props of `Airless`')).flatMap((n) => n.split(' / '));
    expect(documented.sort()).toEqual(props.sort());
  });

  it('lists exactly the context options of the default app', async () => {
    const app = await readFile(join(PROJECT_ROOT, 'bin/app.ts'), 'utf8');
    const keys = [...app.matchAll(/context\('(\w+)'\)/g)].map((m) => m[1]!);
    const documented = firstColumn(section(guide, '## Deploy')).filter((n) => n.startsWith('-c ')).map((n) => /^-c (\w+)=/.exec(n)![1]!);
    expect(documented.sort()).toEqual([...new Set(keys)].sort());
  });

  it('quotes the same standing cost as the README', () => {
    const cost = /\*\*(\$\d+\.\d\d) a month\*\* before any task\s+runs/.exec(guide)?.[1];
    expect(cost).toBeDefined();
    expect(readme).toContain(`${cost} a month before any task runs`);
  });
});
