/**
 * Simulated Lambda containers: module state survives between invocations of one
 * container, the clock is the rehearsal's virtual one, a timeout replaces the container,
 * and each container has its own environment.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { RehearsalClock } from '../../lib/rehearsal/clock.js';
import { RehearsalFunction, type FunctionSpec } from '../../lib/rehearsal/lambda.js';

const dir = mkdtempSync(join(tmpdir(), 'airless-lambda-test-'));
writeFileSync(join(dir, 'index.mjs'), `
let calls = 0;
export const handler = async (event, context) => {
  calls++;
  if (event.hang) await new Promise(() => setInterval(() => {}, 1000));
  console.log(JSON.stringify({ message: 'hi', calls }));
  return { calls, now: Date.now(), env: process.env.WHO, remaining: context.getRemainingTimeInMillis() };
};`);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const spec: FunctionSpec = {
  logicalId: 'Fn', name: 'S-Fn', arn: 'arn:aws:lambda:us-east-1:000000000000:function:S-Fn', roleArn: 'arn:aws:iam::000000000000:role/r',
  codeDir: dir, handler: 'index.handler', timeoutMs: 1500, memoryMb: 128, env: { WHO: 'fn' }, logGroupName: 'g', asyncRetries: 2,
};

describe('RehearsalFunction', () => {
  it('reuses a container (module state survives), runs on the virtual clock and enforces the timeout', async () => {
    const clock = new RehearsalClock(Date.parse('2030-01-01T00:00:00Z'));
    const lines: string[] = [];
    const fn = new RehearsalFunction(spec, { clock, tmpRoot: join(dir, 'tmp'), onLogLine: (_f, l) => void lines.push(l), maxContainers: 1 });
    try {
      const a = await fn.invoke({});
      const b = await fn.invoke({});
      expect(a).toMatchObject({ ok: true, result: { calls: 1, env: 'fn' } });
      expect(b).toMatchObject({ ok: true, result: { calls: 2 } });
      expect((b.result as { now: number }).now).toBeGreaterThanOrEqual(Date.parse('2030-01-01T00:00:00Z'));
      expect((b.result as { remaining: number }).remaining).toBeLessThanOrEqual(1500);
      // stdout reaches the parent through a pipe, possibly after the result message.
      await vi.waitFor(() => expect(lines.some((l) => l.includes('"calls":2'))).toBe(true));

      const hung = await fn.invoke({ hang: true });
      expect(hung).toMatchObject({ ok: false, error: { errorType: 'Sandbox.Timedout', errorMessage: 'Task timed out after 1.50 seconds' } });
      const fresh = await fn.invoke({});
      expect(fresh).toMatchObject({ ok: true, result: { calls: 1 } });
      expect(fn.containersStarted).toBe(2);
    } finally {
      await fn.stop();
    }
  }, 20_000);

  it('reports a handler that is not exported as the runtime does', async () => {
    const clock = new RehearsalClock();
    const fn = new RehearsalFunction({ ...spec, handler: 'index.missing' }, { clock, tmpRoot: join(dir, 'tmp'), onLogLine: () => {} });
    try {
      expect(await fn.invoke({})).toMatchObject({ ok: false, error: { errorType: 'Runtime.ImportModuleError', errorMessage: 'index.missing is undefined or not exported' } });
    } finally {
      await fn.stop();
    }
  }, 20_000);
});
