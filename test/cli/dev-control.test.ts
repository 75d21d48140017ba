/**
 * The dev control plane in process (the CLI's `--dev` command lines, sent to the dev's one
 * API server and run there through the registry, on an embedded runtime with a virtual
 * clock): `trigger --logical-date` is honoured and a bad date refused with exit 2 (by the
 * CLI, and by the dev when a request comes from elsewhere); the dev answers only `--dev`
 * commands and only with the API's token; `logs` of a batched sensor shows its
 * registration, the poker's lines about its target and its outcome, each under its try.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryLog } from '../../lib/adapters/memory/observe.js';
import { announceDev, DEV_COMMAND_PATH } from '../../lib/cli/dev-control.js';
import { capture } from '../../lib/cli/io.js';
import { main, runCli } from '../../lib/cli/main.js';
import { attachUi } from '../../lib/cli/ui.js';
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
  const rt = made.rt;
  const api = await attachUi(rt, { port: '0' }, { out: () => {}, devControl: (argv) => capture(main, argv, { dev: { ports: rt.ports, log } }) });
  const announced = await announceDev(api, dir);
  /** `airless <command> ...args --dev`, as typed in this folder. */
  const send = async (command: string, args: string[], flags: string[] = []) => {
    const r = await runCli([command, ...args, ...flags, '--dev']);
    return { code: r.code, lines: r.stdout, errors: r.stderr };
  };
  /** A request that does not come from the CLI. */
  const post = (body: unknown, token = api.token) => fetch(`${api.url}${DEV_COMMAND_PATH}`, {
    method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body),
  });
  return { ...made, log, send, post, close: async () => { await announced.remove(); await api.close(); } };
}

describe('trigger --dev --logical-date', () => {
  it('starts the run at that logical date, and refuses a date that is not one with exit 2', async () => {
    const d = dag('dated', {}, ({ task }) => { task('a', () => 1); });
    const dev = await devWith([d]);
    try {
      const ok = await dev.send('trigger', ['dated'], ['--logical-date', '2026-03-01T02:00:00Z']);
      expect(ok.code).toBe(0);
      const runId = /run (\S+) of dated/.exec(ok.lines.join('\n'))![1]!;
      expect((await dev.rt.ports.store.getRun('dated', runId))!.logicalDate).toBe(Date.parse('2026-03-01T02:00:00Z'));
      // A date without a zone is UTC, as the stack path reads it.
      const utc = await dev.send('trigger', ['dated'], ['--logical-date', '2026-03-02']);
      const utcRun = /run (\S+) of dated/.exec(utc.lines.join('\n'))![1]!;
      expect((await dev.rt.ports.store.getRun('dated', utcRun))!.logicalDate).toBe(Date.parse('2026-03-02T00:00:00Z'));
      const bad = await dev.send('trigger', ['dated'], ['--logical-date', '2026-02-30']);
      expect(bad.code).toBe(2);
      expect(bad.errors).toEqual([expect.stringMatching(/^airless trigger: --logical-date must be a real calendar date/)]);
      // The dev checks a request that did not come from the CLI the same way.
      const direct = await dev.post({ argv: ['trigger', 'dated', '--logical-date', '2026-02-30', '--dev'] });
      expect(direct.status).toBe(200);
      expect(await direct.json()).toEqual({ code: 2, stdout: [], stderr: [expect.stringMatching(/--logical-date must be a real calendar date/)] });
      expect((await dev.rt.ports.store.listRuns('dated', { limit: 10 }))).toHaveLength(2);
    } finally {
      await dev.close();
    }
  });
});

describe('the dev answers --dev command lines only, with the token', () => {
  it('refuses a stack command, a line without --dev, a bad body and a bad token; runs, pause and signal answer', async () => {
    const d = dag('plain', {}, ({ task }) => { task('a', () => 1); });
    const dev = await devWith([d]);
    try {
      const push = await (await dev.post({ argv: ['push', 'dags', '--dev'] })).json() as { code: number; stderr: string[] };
      expect(push.code).toBe(2);
      expect(push.stderr).toEqual([expect.stringMatching(/unknown option --dev|cannot run against a dev/)]);
      const noDev = await (await dev.post({ argv: ['runs', 'plain'] })).json() as { code: number; stderr: string[] };
      expect(noDev).toMatchObject({ code: 2, stderr: [expect.stringMatching(/^airless runs cannot run against a dev/)] });
      expect((await dev.post({ argv: 'runs plain --dev' })).status).toBe(422);
      expect((await dev.post({ argv: ['runs', 'plain', '--dev'] }, 'not-the-token')).status).toBe(401);
      // An API server that is no dev (`airless ui --stack` serves the same routes) has no control route.
      const other = await attachUi(dev.rt, { port: '0' }, { out: () => {} });
      try {
        const r = await fetch(`${other.url}${DEV_COMMAND_PATH}`, { method: 'POST', headers: { authorization: `Bearer ${other.token}`, 'content-type': 'application/json' }, body: JSON.stringify({ argv: ['runs', 'plain', '--dev'] }) });
        expect(r.status).toBe(404);
      } finally {
        await other.close();
      }
      expect((await dev.send('runs', ['plain'])).lines).toEqual(['no runs of plain yet']);
      expect((await dev.send('pause', ['plain'])).lines).toEqual(['plain paused']);
      expect((await dev.rt.ports.store.getDag('plain'))!.paused).toBe(true);
      expect(await dev.send('signal', ['k'], ['--payload', '{"x":1}'])).toEqual({ code: 0, lines: ['signal k stored; resumed 0 waiting task(s)'], errors: [] });
      const unknown = await dev.send('runs', ['nope']);
      expect(unknown.code).toBe(2);
      expect(unknown.errors).toEqual([expect.stringMatching(/unknown dag nope/)]);
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
