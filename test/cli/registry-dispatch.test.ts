/**
 * The registry is the CLI's one dispatch path (issue 25 §2): the overview and every
 * command's help printed by `airless` are the registry's text; a bad option, a missing
 * argument or an unknown command exits 2 with one line on stderr and nothing on stdout,
 * before any stack is opened (clients that fail the test if called); stack commands have
 * no table of their own (aws.ts keeps no USAGE nor dispatch).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CliClients } from '../../lib/cli/aws-stack.js';
import { COMMANDS } from '../../lib/cli/commands/index.js';
import { runCli } from '../../lib/cli/main.js';
import { packageInfo } from '../../lib/package-info.js';
import { commandHelp, nameOf, overview } from '../../lib/cli/registry.js';

/** Clients that throw on first use: a usage error must come before any AWS call. */
const untouchable = new Proxy({}, { get: (_t, k) => { throw new Error(`AWS client ${String(k)} used before the options were checked`); } }) as CliClients;
const lines = (text: string) => text.replace(/\n$/, '').split('\n');

describe('usage comes from the registry', () => {
  it('the overview and `help <command>` / `<command> --help` print the registry text', async () => {
    const ov = await runCli(['--help']);
    expect(ov).toEqual({ code: 0, stdout: lines(overview(COMMANDS, packageInfo().version)), stderr: [] });
    for (const c of COMMANDS) {
      const help = await runCli(['help', ...c.words]);
      expect(help.stdout, nameOf(c)).toEqual(lines(commandHelp(c)));
      expect((await runCli([...c.words, '--help'])).stdout, nameOf(c)).toEqual(help.stdout);
    }
  });

  it('aws.ts keeps no usage table and no dispatch switch of its own', () => {
    const text = readFileSync(path.resolve(__dirname, '../../lib/cli/aws.ts'), 'utf8');
    expect(text).not.toMatch(/\bUSAGE\b|switch \(cmd\)|function dispatch/);
  });
});

describe('bad input: exit 2, one line, before any stack is opened', () => {
  it.each([
    [['trigger', 'etl', '--conf', '[1]'], /^airless trigger: --conf must be a JSON object .*not an array/],
    [['trigger', 'etl', '--logical-date', '2026-02-30'], /^airless trigger: --logical-date must be a real calendar date/],
    [['trigger', 'etl', '--run-id', 'a b'], /^airless trigger: --run-id is not a valid run id/],
    [['logs', 'etl', 'r', 't', '--try', '0'], /^airless logs: --try must be a whole number from 1 to 100000/],
    [['assets', 'emit', 's3://x/y', '--extra', '[]'], /^airless assets emit: --extra must be a JSON object/],
    [['runs', 'etl', '--endpoint', 'localhost:4566'], /^airless runs: --endpoint must be an http\(s\) URL/],
    [['tasks', 'etl'], /^airless tasks: missing <runId>/],
    [['clear', 'etl', 'r', 't', 'extra'], /^airless clear: unexpected argument "extra"/],
    [['pause', 'etl', '--conf', '{}'], /^airless pause: unknown option --conf/],
    [['push', 'dags', '--dev'], /^airless push: unknown option --dev/],
    [['nope'], /^airless: unknown command "nope"/],
  ])('%j', async (argv, pattern) => {
    const r = await runCli(argv as string[], { clients: untouchable, env: {} });
    expect(r.code).toBe(2);
    expect(r.stdout).toEqual([]);
    expect(r.stderr).toHaveLength(1);
    expect(r.stderr[0]).toMatch(pattern);
  });
});
