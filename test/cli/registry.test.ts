/**
 * The command registry: every command has generated help; argv selects the longest
 * matching command; every numeric, date and JSON option is validated before a handler
 * runs, with a one-line error naming the option and the expected form.
 */
import { describe, expect, it } from 'vitest';
import { COMMANDS } from '../../lib/cli/commands/index.js';
import { isoDate } from '../../lib/cli/options.js';
import { UsageError } from '../../lib/cli/output.js';
import { commandHelp, findCommand, nameOf, overview, parseCommand, type Command } from '../../lib/cli/registry.js';

const cmd = (...words: string[]) => findCommand(COMMANDS, words).command!;
const usageError = (c: Command, argv: string[]) => {
  try {
    parseCommand(c, argv);
  } catch (e) {
    expect(e).toBeInstanceOf(UsageError);
    return (e as Error).message;
  }
  throw new Error(`no error for ${argv.join(' ')}`);
};

describe('CLI registry', () => {
  it('lists every command once, each with help naming all its options', () => {
    const names = COMMANDS.map(nameOf);
    expect(new Set(names).size).toBe(names.length);
    const text = overview(COMMANDS, '9.9.9');
    for (const c of COMMANDS) {
      expect(text).toContain(`  ${nameOf(c)} `);
      const help = commandHelp(c);
      expect(help).toMatch(new RegExp(`^Usage: airless ${nameOf(c)}`));
      for (const o of Object.keys(c.options)) expect(help).toContain(`--${o}`);
    }
  });

  it('selects the longest matching command', () => {
    expect(nameOf(findCommand(COMMANDS, ['tasks', 'test', 'd', 'x', 'y']).command!)).toBe('tasks test');
    expect(nameOf(findCommand(COMMANDS, ['tasks', 'etl', 'run1']).command!)).toBe('tasks');
    expect(findCommand(COMMANDS, ['dags']).command).toBeUndefined();
  });

  it('parses and types valid options', () => {
    const p = parseCommand(cmd('run'), ['dags', '--dag', 'etl', '--conf', '{"a":1}', '--logical-date', '2026-01-01', '--concurrency', '4',
      '--signal', 'k={"x":1}', '--signal', 'plain', '--runs', '3', '--store', 'dynamodb-local']);
    expect(p.args).toEqual(['dags']);
    expect(p.options).toMatchObject({
      dag: 'etl', conf: { a: 1 }, 'logical-date': Date.parse('2026-01-01T00:00:00Z'), concurrency: 4,
      signal: [{ key: 'k', payload: { x: 1 } }, { key: 'plain', payload: true }], runs: 3, store: 'dynamodb-local',
    });
  });

  it.each([
    [['run', 'd', '--concurrency', '0'], /^airless run: --concurrency must be a whole number from 1 to 1000, got "0"/],
    [['run', 'd', '--concurrency', 'abc'], /--concurrency must be a whole number/],
    [['run', 'd', '--runs', '2.5'], /--runs must be a whole number from 1 to 100000, got "2.5"/],
    [['run', 'd', '--logical-date', '2026-02-30'], /--logical-date must be a real calendar date/],
    [['run', 'd', '--logical-date', 'tomorrow'], /--logical-date must be an ISO date/],
    [['run', 'd', '--conf', '[1]'], /--conf must be a JSON object .*not an array/],
    [['run', 'd', '--signal', 'k={oops'], /--signal must be KEY or KEY=JSON/],
    [['run', 'd', '--store', 'postgres'], /--store must be one of memory, dynamodb-local/],
    [['run', 'd', '--dynamodb-endpoint', 'localhost:8000'], /--dynamodb-endpoint must be an http\(s\) URL/],
    [['run', 'd', '--nope'], /unknown option --nope \(options: --dag/],
    [['run'], /missing <dir>/],
    [['run', 'a', 'b'], /unexpected argument "b"/],
    [['logs', 'd', 'r', 't', '--try', '-1'], /--try/],
    [['trigger', 'etl', '--conf', 'x'], /--conf must be a JSON object/],
    [['pause', 'etl', '--conf', '{}'], /unknown option --conf/],
  ])('refuses %j in one line', (argv, pattern) => {
    const { command, rest } = findCommand(COMMANDS, argv as string[]);
    const msg = usageError(command!, rest);
    expect(msg).toMatch(pattern);
    expect(msg.split('\n')).toHaveLength(1);
    expect(msg).toMatch(/\(see airless help [a-z -]+\)$/);
  });

  it('reads ISO dates as UTC unless they carry a zone', () => {
    expect(isoDate('2026-01-01T02:00')).toBe(Date.parse('2026-01-01T02:00:00Z'));
    expect(isoDate('2026-01-01T02:00:00+02:00')).toBe(Date.parse('2026-01-01T00:00:00Z'));
    expect(isoDate('2028-02-29')).toBe(Date.parse('2028-02-29T00:00:00Z'));
    expect(() => isoDate('2026-13-01')).toThrow(/real calendar date/);
  });

  it('recognises --help on any command', () => {
    expect(parseCommand(cmd('dags', 'list'), ['--help']).help).toBe(true);
    expect(parseCommand(cmd('run'), ['-h']).help).toBe(true);
  });
});
