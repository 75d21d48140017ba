/**
 * The dev control plane in process (the CLI's `--dev` requests, on an embedded runtime with
 * a virtual clock): `trigger --logical-date` is honoured and a bad date refused with exit 2;
 * `logs` of a batched sensor shows its registration, the poker's lines about its target and
 * its outcome, each under its try.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryLog } from '../../lib/adapters/memory/observe.js';
import { sendToDev, startDevControl } from '../../lib/cli/dev-control.js';
import { dag } from '../../lib/sdk/index.js';
import { makeRuntime } from '../helpers/runtime.js';
import { countingSensor, lateClock } from '../helpers/waiting.js';

const home = process.cwd();
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'airless-devctl-'));
  process.chdir(dir);
});
afterAll(async () => {
  process.chdir(home);
  await rm(dir, { recursive: true, force: true });
});

async function devWith(dags: Parameters<typeof makeRuntime>[0], opts: Parameters<typeof makeRuntime>[1] = {}) {
  const log = new MemoryLog();
  const made = await makeRuntime(dags, { ...opts, log });
  const control = await startDevControl(made.rt.ports, log, dir);
  const send = async (command: string, args: string[], options: Record<string, unknown> = {}) => {
    const lines: string[] = [];
    const code = await sendToDev({ command, args, options }, (l) => lines.push(l));
    return { code, lines };
  };
  return { ...made, log, send, close: control.close };
}

describe('trigger --dev --logical-date', () => {
  it('starts the run at that logical date, and refuses a date that is not one with exit 2', async () => {
    const d = dag('dated', {}, ({ task }) => { task('a', () => 1); });
    const dev = await devWith([d]);
    try {
      const ok = await dev.send('trigger', ['dated'], { 'logical-date': '2026-03-01T02:00:00Z' });
      expect(ok.code).toBe(0);
      const runId = /run (\S+) of dated/.exec(ok.lines.join('\n'))![1]!;
      expect((await dev.rt.ports.store.getRun('dated', runId))!.logicalDate).toBe(Date.parse('2026-03-01T02:00:00Z'));
      // A date without a zone is UTC, as the stack path reads it.
      const utc = await dev.send('trigger', ['dated'], { 'logical-date': '2026-03-02' });
      const utcRun = /run (\S+) of dated/.exec(utc.lines.join('\n'))![1]!;
      expect((await dev.rt.ports.store.getRun('dated', utcRun))!.logicalDate).toBe(Date.parse('2026-03-02T00:00:00Z'));
      const errors: string[] = [];
      const write = process.stderr.write;
      process.stderr.write = ((s: string) => { errors.push(s); return true; }) as typeof process.stderr.write;
      const bad = await dev.send('trigger', ['dated'], { 'logical-date': '2026-02-30' }).finally(() => { process.stderr.write = write; });
      expect(bad.code).toBe(2);
      expect(errors.join('')).toMatch(/--logical-date must be a real calendar date/);
      expect((await dev.rt.ports.store.listRuns('dated', { limit: 10 }))).toHaveLength(2);
    } finally {
      await dev.close();
    }
  });
});

describe('logs --dev of a batched sensor', () => {
  it("shows its registration, the poker's pokes of its target and the outcome, under its try", async () => {
    const clock = lateClock();
    const probe = countingSensor('probe', clock);
    const d = dag('sensed', {}, ({ sensor, task }) => {
      sensor('wait', { type: probe.def, pokeContext: { target: 'x' } }, { pokeInterval: '1m' }).before(task('after', () => 1));
    });
    const dev = await devWith([d], { sensorDefs: [probe.def] });
    clock.set(dev.clock);
    try {
      const run = await dev.rt.trigger('sensed');
      await dev.rt.runUntil(async () => probe.count('x') >= 3);
      probe.truthy.add('x');
      expect(await dev.rt.runToCompletion('sensed', run.runId)).toBe('done');
      const { code, lines } = await dev.send('logs', ['sensed', run.runId, 'wait']);
      expect(code).toBe(0);
      expect(lines[0]).toBe('try 1  info  sensor waits for the poker');
      const pokes = lines.filter((l) => l.startsWith('try 1  info  poke: not yet  {'));
      expect(pokes.length).toBe(probe.count('x') - 1);
      expect(pokes[0]).toContain('"sensorType":"probe"');
      expect(lines.at(-2)).toMatch(/^try 1  info  poke: condition met  \{/);
      expect(lines.at(-1)).toBe('try 1  info  sensor condition met');
      // Another task's log is its own: no poker lines there.
      expect((await dev.send('logs', ['sensed', run.runId, 'after'])).lines.some((l) => l.includes('poke'))).toBe(false);
    } finally {
      await dev.close();
    }
  });
});
