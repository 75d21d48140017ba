/**
 * maskProcessOutput / reserveStdout (lib/isolation/output-mask.ts) on a process's own
 * streams and console, as the Lambda runtime leaves them: its console is its own writer,
 * which must receive the masked text (issue 19, defect 4). The streams and console are
 * replaced by recorders first; the file runs in its own process (vitest forks).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { maskSecret } from '../../lib/engine/index.js';
import { maskProcessOutput, reserveStdout } from '../../lib/isolation/output-mask.js';

const seen: { where: string; text: string }[] = [];
const saved = { out: process.stdout.write, err: process.stderr.write, log: console.log, error: console.error };
const recorder = (where: string) => ((chunk: unknown, ...rest: unknown[]) => {
  seen.push({ where, text: typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString('utf8') });
  const cb = rest.find((x) => typeof x === 'function') as (() => void) | undefined;
  cb?.();
  return true;
}) as typeof process.stdout.write;
process.stdout.write = recorder('stdout');
process.stderr.write = recorder('stderr');
// What the Lambda runtime does: console methods that write somewhere of their own.
console.log = (...args: unknown[]) => { seen.push({ where: 'runtime console.log', text: args.map(String).join(' ') }); };
console.error = (...args: unknown[]) => { seen.push({ where: 'runtime console.error', text: args.map(String).join(' ') }); };
maskProcessOutput();
maskProcessOutput(); // idempotent: one wrapper, not two
afterAll(() => {
  process.stdout.write = saved.out;
  process.stderr.write = saved.err;
  console.log = saved.log;
  console.error = saved.error;
});

describe('maskProcessOutput', () => {
  it('passes output through unchanged while no secret is registered', () => {
    seen.length = 0;
    process.stdout.write('plain s3cr3t-value-1\n');
    console.log('plain', { a: 1 });
    expect(seen).toEqual([{ where: 'stdout', text: 'plain s3cr3t-value-1\n' }, { where: 'runtime console.log', text: 'plain [object Object]' }]);
  });

  it('masks registered secrets in stdout and stderr writes (text or bytes) and in console calls, formatted first', () => {
    maskSecret('s3cr3t-value-1');
    seen.length = 0;
    process.stdout.write('token s3cr3t-value-1\n');
    process.stderr.write(Buffer.from('bytes s3cr3t-value-1\n'));
    console.log('obj', { token: 's3cr3t-value-1' });
    console.error('%s!', 's3cr3t-value-1');
    expect(seen).toEqual([
      { where: 'stdout', text: 'token ***\n' }, { where: 'stderr', text: 'bytes ***\n' },
      { where: 'runtime console.log', text: "obj { token: '***' }" }, { where: 'runtime console.error', text: '***!' },
    ]);
  });
});

describe('reserveStdout', () => {
  it('sends stdout writes to stderr until released, and writes the document to stdout', () => {
    seen.length = 0;
    const stdout = reserveStdout();
    process.stdout.write('task output s3cr3t-value-1\n');
    stdout.write('{"doc":1}\n');
    stdout.release();
    process.stdout.write('after\n');
    expect(seen).toEqual([{ where: 'stderr', text: 'task output ***\n' }, { where: 'stdout', text: '{"doc":1}\n' }, { where: 'stdout', text: 'after\n' }]);
  });
});
