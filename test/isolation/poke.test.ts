/**
 * Batched pokes run isolated too: a poke that spins is cut at the per-poke timeout (its
 * thread terminated), one that exits fails alone, and the pool keeps serving pokes.
 * Real threads are killed here: the clock is the system's and the bound generous.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SystemClock } from '../../lib/adapters/clock.js';
import { buildToLocalVersion, LocalBundleSource } from '../../lib/build/index.js';
import { timedPoke } from '../../lib/engine/flow/poke.js';
import { DEFAULT_CONFIG, type LoadedBundle, type Ports } from '../../lib/engine/index.js';
import { closeIsolationPools } from '../../lib/isolation/isolated-bundle.js';

let root: string;
let bundle: LoadedBundle;

beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'airless-poke-'));
  const { version } = await buildToLocalVersion(path.resolve('test/fixtures/isolation-dags'), root);
  bundle = await new LocalBundleSource(root).load(version);
});
afterAll(async () => {
  await closeIsolationPools();
  await rm(root, { recursive: true, force: true });
});

describe('isolated pokes', () => {
  it('cuts a spinning poke at its timeout, fails an exiting one alone, and keeps poking', async () => {
    const p = { clock: new SystemClock(), config: { ...DEFAULT_CONFIG, pokeTimeoutMs: 500 } } as Ports;
    const started = performance.now();
    const [spin, exit, ok, notYet] = await Promise.all([
      timedPoke(p, bundle.sensorPoke('spinning')!, {}),
      timedPoke(p, bundle.sensorPoke('exiting')!, {}),
      timedPoke(p, bundle.sensorPoke('ready')!, { answer: 42 }),
      timedPoke(p, bundle.sensorPoke('ready')!, { answer: 41 }),
    ]);
    expect(spin).toEqual({ ok: false, error: 'poke timed out after 500ms' });
    expect(exit).toEqual({ ok: false, error: 'the task ended its thread with process.exit(9)' });
    expect(ok).toEqual({ ok: true });
    expect(notYet).toEqual({ ok: false });
    expect(performance.now() - started).toBeLessThan(15_000);
    // The pool replaced what it lost and still pokes.
    expect(await timedPoke(p, bundle.sensorPoke('ready')!, { answer: 42 })).toEqual({ ok: true });
  });
});
