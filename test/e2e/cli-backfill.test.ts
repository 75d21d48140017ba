/**
 * `airless backfill` as a user runs it, in real processes: the dry run's dates and cost
 * estimate (text and JSON), the embedded backfill with --time-warp and its --json summary
 * of every run, exit 1 when a run failed, one line and exit 2 for each bad input, and
 * --dev against a running `airless dev`.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';

const ROOT = path.resolve(__dirname, '../..');
const BIN = path.join(ROOT, 'bin/airless.mjs');
const DAGS = path.join(ROOT, 'test/fixtures/backfill-dags');
const EXAMPLES = path.join(ROOT, 'examples/dags');
const cwd = mkdtempSync(path.join(tmpdir(), 'airless-backfill-'));
const env = { ...process.env, NO_COLOR: '1' };

function airless(...args: string[]) {
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd, encoding: 'utf8', timeout: 90_000, env });
  const lines = r.stdout.trim().split('\n');
  return { code: r.status, stdout: r.stdout, stderr: r.stderr, last: lines[lines.length - 1] };
}

let dev: ChildProcess | undefined;
afterAll(() => { dev?.kill('SIGKILL'); });

describe('airless backfill (embedded)', () => {
  it('--dry-run of etl_daily over January: 31 dates in Berlin time, and the estimate; --json has the documented shape', () => {
    const text = airless('backfill', EXAMPLES, '--dag', 'etl_daily', '--from', '2026-01-01', '--to', '2026-01-31T23:59:59Z', '--dry-run', '--no-typecheck');
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain('etl_daily: 31 run(s) from 2026-01-01T00:00:00Z to 2026-01-31T23:59:59Z on 0 2 * * * (Europe/Berlin), 1 at once');
    expect(text.stdout).toContain('  2026-01-01T01:00:00Z  create');
    expect(text.stdout).toContain('  2026-01-31T01:00:00Z  create');
    expect(text.stdout).toMatch(/estimate: 217 task\(s\) \(7 per run\), [\d,]+ orchestration requests, \$0\.\d+ at list prices/);
    expect(text.stdout).toContain('Lambda duration: not estimated (no finished tries of etl_daily in this store)');
    const json = JSON.parse(airless('backfill', EXAMPLES, '--dag', 'etl_daily', '--from', '2026-01-01', '--to', '2026-01-31T23:59:59Z', '--dry-run', '--json', '--no-typecheck').last);
    expect(json).toMatchObject({ dagId: 'etl_daily', estimate: { tasks: 217 } });
    expect(json.runs).toHaveLength(31);
    expect(json.runs[0]).toEqual({ logicalDate: '2026-01-01T01:00:00.000Z', action: 'create' });
    expect(json.estimate.requests).toBeGreaterThan(31 * 7);
    expect(json.estimate.usd).toBeGreaterThan(0);
    expect(json.estimate.usd).toBeLessThan(0.01);
  });

  it('runs a backfill to its end with --time-warp; --json lists every run as airless run does', () => {
    const r = airless('backfill', DAGS, '--dag', 'bf_daily', '--from', '2026-01-01', '--to', '2026-01-03', '--time-warp', '--json', '--no-typecheck');
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.last);
    expect(out).toMatchObject({ backfillId: 1, dagId: 'bf_daily', handled: 3, created: 3, skipped: 0 });
    expect(out.runs.map((x: { runId: string; runType: string; state: string }) => [x.runId, x.runType, x.state])).toEqual([
      ['backfill__2026-01-01T00:00:00.000Z', 'backfill', 'success'],
      ['backfill__2026-01-02T00:00:00.000Z', 'backfill', 'success'],
      ['backfill__2026-01-03T00:00:00.000Z', 'backfill', 'success'],
    ]);
    expect(out.runs[1].tasks).toEqual([
      { taskId: 'a', state: 'success', tryNumber: 1, durationMs: expect.any(Number), xcom: '2026-01-02' },
      { taskId: 'b', state: 'success', tryNumber: 1, durationMs: expect.any(Number), xcom: 'done' },
    ]);
  });

  it('exits 1 when a backfilled run fails, with the progress lines and the run table for a person', () => {
    const r = airless('backfill', DAGS, '--dag', 'bf_flaky', '--from', '2026-01-01', '--to', '2026-01-03', '--time-warp', '--no-typecheck');
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/run {2}bf_flaky\/backfill__2026-01-02T00:00:00\.000Z {2}running -> failed/);
    expect(r.stdout).toMatch(/bf_flaky +backfill__2026-01-02T00:00:00\.000Z +failed/);
    expect(r.stdout).toContain('backfill 1 of bf_flaky: completed, 3/3 dates handled (3 created, 0 reprocessed, 0 skipped)');
  });

  it('bad input: one line on stderr, exit 2, nothing on stdout, for each', async () => {
    // A real process for the first; the others in process (main() is what bin/airless.mjs calls), to save a start each.
    const spawned = airless('backfill', DAGS, '--dag', 'bf_daily', '--from', '2026-01-05', '--to', '2026-01-01', '--time-warp', '--no-typecheck');
    expect(spawned.code).toBe(2);
    expect(spawned.stderr).toBe('airless: from (2026-01-05T00:00:00.000Z) is after to (2026-01-01T00:00:00.000Z)\n');
    expect(spawned.stdout).toBe('');
    const cases: Array<[string[], RegExp]> = [
      [['--dag', 'bf_daily', '--from', '2026-01-01T01:00:00Z', '--to', '2026-01-01T02:00:00Z'], /^airless: dag bf_daily has no schedule tick from .* that has already passed: nothing to backfill\n$/],
      [['--dag', 'bf_manual', '--from', '2026-01-01', '--to', '2026-01-02'], /^airless: dag bf_manual has no schedule \(schedule: null\)[^\n]*\n$/],
      [['--dag', 'nope', '--from', '2026-01-01', '--to', '2026-01-02'], /^airless: unknown dag nope \(dags: bf_daily, bf_flaky, bf_manual, bf_minutely\)\n$/],
      [['--dag', 'bf_minutely', '--from', '2026-01-01', '--to', '2026-01-02'], /^airless: the range has 1,441 runs of dag bf_minutely, more than 1,000: give --yes to create them\n$/],
      [['--dag', 'bf_daily', '--from', '2026-01-01'], /^airless backfill: give --to \(see airless help backfill\)\n$/],
      [['--dag', 'bf_daily', '--from', '2026-01-01', '--to', '2026-01-02', '--reprocess', 'all'], /^airless backfill: --reprocess must be one of none, failed, completed, got "all"[^\n]*\n$/],
      [['--dag', 'bf_daily', '--from', '2026-01-01', '--to', '2026-01-02', '--stack', 'Airless'], /^airless backfill: give DIR for the embedded runtime, or --dev \/ --stack without DIR[^\n]*\n$/],
    ];
    const { main } = await import('../../lib/cli/main.js');
    const here = process.cwd();
    process.chdir(cwd);
    try {
      for (const [args, msg] of cases) {
        const out: string[] = [];
        const err: string[] = [];
        const so = vi.spyOn(process.stdout, 'write').mockImplementation((c) => { out.push(String(c)); return true; });
        const se = vi.spyOn(process.stderr, 'write').mockImplementation((c) => { err.push(String(c)); return true; });
        let code: number;
        try {
          code = await main(['backfill', DAGS, ...args, '--time-warp', '--no-typecheck']);
        } finally {
          so.mockRestore();
          se.mockRestore();
        }
        expect(code, err.join('')).toBe(2);
        expect(err.join('')).toMatch(msg);
        expect(out.join('')).toBe('');
      }
    } finally {
      process.chdir(here);
    }
  });
});

describe('airless backfill --dev', () => {
  it('creates the backfill in the running dev, whose engine runs it on real time', async () => {
    let out = '';
    dev = spawn(process.execPath, [BIN, 'dev', DAGS, '--no-typecheck', '--port', '0'], { cwd, env });
    dev.stdout!.on('data', (d) => { out += d; });
    dev.stderr!.on('data', (d) => { out += d; });
    const until = async (what: () => boolean, label: string) => {
      const end = Date.now() + 60_000;
      while (!what()) {
        if (Date.now() > end) throw new Error(`timed out waiting for ${label}: ${out}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    };
    await until(() => existsSync(path.join(cwd, '.airless', 'dev.json')) && out.includes('control endpoint'), 'the announcement');
    const r = airless('backfill', '--dev', '--dag', 'bf_daily', '--from', '2025-12-01', '--to', '2025-12-02');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^backfill 1 of bf_daily: (running|completed), 2\/2 dates handled \(2 created, 0 reprocessed, 0 skipped\), [0-2] running, at most 2 at once$/m);
    await until(() => out.includes('run  bf_daily/backfill__2025-12-02T00:00:00.000Z  running -> success'), 'the second run');
    const again = airless('backfill', '--dev', '--dag', 'bf_daily', '--from', '2025-12-01', '--to', '2025-12-02', '--dry-run', '--json');
    expect(again.code, again.stderr).toBe(0);
    // The dev's store now has both runs: nothing to create, and their tries give a duration estimate.
    const dry = JSON.parse(again.last);
    expect(dry.runs).toEqual([]);
    expect(dry.skipped).toEqual([
      { logicalDate: '2025-12-01T00:00:00.000Z', reason: 'already exists' },
      { logicalDate: '2025-12-02T00:00:00.000Z', reason: 'already exists' },
    ]);
    expect(dry.estimate.durationFrom).toMatchObject({ tries: expect.any(Number), memoryMb: 1024 });
  }, 90_000);
});
