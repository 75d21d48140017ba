/**
 * ctx.variables, ctx.connections and `{{ var... }}`/`{{ conn... }}` in ctx.render, in a
 * thread (the values cross by RPC; render waits for them) and in process; the password a
 * task logs or returns is masked in the log and in XCom.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VirtualClock } from '../../lib/adapters/clock.js';
import { MemoryLog } from '../../lib/adapters/memory/observe.js';
import { LocalSecrets } from '../../lib/adapters/secrets-local.js';
import { buildToLocalVersion, LocalBundleSource } from '../../lib/build/index.js';
import { closeIsolationPools } from '../../lib/isolation/isolated-bundle.js';
import { EmbeddedRuntime } from '../../lib/runtime/embedded.js';
import { InlineBundleSource } from '../../lib/runtime/inline-bundles.js';
import type { BundleSource } from '../../lib/engine/index.js';
import { usesSecrets } from '../fixtures/secrets-dags/uses-secrets.js';

let root: string;
let version: string;
const env = {
  AIRLESS_VAR_BUCKET: 'raw-data',
  AIRLESS_VAR_ETL_CONFIG: '{"rows": 12}',
  AIRLESS_CONN_WAREHOUSE: 'postgres://etl:Tr0ub4dor%263@dw.internal:5439/analytics?sslmode=require',
};

beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'airless-sec-'));
  ({ version } = await buildToLocalVersion(path.resolve('test/fixtures/secrets-dags'), root));
});
afterAll(async () => {
  await closeIsolationPools();
  await rm(root, { recursive: true, force: true });
});

describe.each([
  ['in process', () => [new InlineBundleSource([usesSecrets]), undefined] as const],
  ['in a thread', () => [new LocalBundleSource(root), version] as const],
])('secrets %s', (name, make) => {
  it('reads variables and connections, renders them, and masks the password in logs and XCom', async () => {
    const [bundles, v] = make() as unknown as [BundleSource, string | undefined];
    const log = new MemoryLog();
    const rt = new EmbeddedRuntime({ bundles, clock: new VirtualClock(0), schedules: false, log, secrets: new LocalSecrets({ env, dir: root }) });
    await rt.register(v ?? (bundles as InlineBundleSource).version);
    await rt.trigger('uses_secrets', { runId: 'r1' });
    expect(await rt.runToCompletion('uses_secrets', 'r1')).toBe('done');
    const tasks = Object.fromEntries((await rt.ports.store.listTasks('uses_secrets', 'r1')).map((t) => [t.taskId, t]));
    const value = (await rt.ports.store.getXcom({ dagId: 'uses_secrets', runId: 'r1', taskId: 'read', key: 'return_value' })) as Record<string, unknown>;
    if (name === 'in a thread') {
      expect(tasks.read!.state).toBe('success');
      expect(value.rendered).toBe('raw-data/dw.internal:5439/12');
    } else {
      // In process, render is synchronous: a template naming a variable fails with a clear message.
      expect(tasks.read!.error).toMatch(/unknown variable "var"/);
      expect(tasks.prev!.error).toMatch(/"prev_data_interval_end_success" is read from the store/);
      return;
    }
    expect(value).toMatchObject({ bucket: 'raw-data', missing: 'fallback', rows: 12, host: 'dw.internal', port: 5439, schema: 'analytics', extra: { sslmode: 'require' } });
    expect(value.password).toBe('***');
    const lines = JSON.stringify(log.lines);
    expect(lines).toContain('connecting as etl with ***');
    expect(lines).not.toContain('Tr0ub4dor&3');
    expect(tasks.unknown!.state).toBe('failed');
    expect(tasks.unknown!.error).toMatch(/connection "nowhere" is not defined/);
    // No earlier success: resolved (empty), not refused as in process.
    expect(await rt.ports.store.getXcom({ dagId: 'uses_secrets', runId: 'r1', taskId: 'prev', key: 'return_value' })).toBe('[]1970-01-01');
  });
});

describe('callbacks in a thread', () => {
  it('task and run callbacks run from the built bundle with their context; a throw is logged with its stack', async () => {
    const log = new MemoryLog();
    const rt = new EmbeddedRuntime({ bundles: new LocalBundleSource(root), clock: new VirtualClock(0), schedules: false, log, config: { runRetentionMs: 0 } });
    await rt.register(version);
    await rt.trigger('with_callbacks', { runId: 'r1' });
    expect(await rt.runToCompletion('with_callbacks', 'r1')).toBe('done');
    await rt.runUntil(async () => rt.queue.size === 0 && rt.timer.size === 0);
    const msgs = log.lines.map((l) => l.msg);
    expect(msgs).toContain('task callback: ok success try 1');
    expect(msgs).toContain('run callback: failed [bad] with_callbacks');
    const broke = msgs.find((m) => m.startsWith('callback failure failed:'));
    expect(broke).toMatch(/RangeError: callback broke on Error: bad task[\s\S]*with-callbacks\.ts:\d+:\d+/);
    expect((await rt.ports.store.getRun('with_callbacks', 'r1'))!.state).toBe('failed');
  });
});
