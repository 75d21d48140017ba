/**
 * `airless assets ... --dir DIR`: a DAG folder on its own. `list` reads its manifest;
 * `emit` records the event in an embedded runtime of the folder and runs every run it
 * triggers (and theirs) to the end, as `airless run` follows a producer.
 */
import { SystemClock, VirtualClock } from '../adapters/clock.js';
import { EmbeddedRuntime } from '../runtime/embedded.js';
import { builtinSensors } from '../sensors/index.js';
import { cmdAssetsEmit, cmdAssetsListLocal } from './assets.js';
import { build, terminalLog } from './local.js';
import { resultOf, runJson } from './run.js';
import { runsSince } from './run-follow.js';
import { runTable, UsageError } from './output.js';

type Out = (line: string) => void;

export async function assetsLocal(dir: string, args: readonly string[], o: { json?: boolean; extra?: Record<string, unknown>; timeWarp?: boolean; typecheck?: boolean }, out: Out): Promise<number> {
  const [verb, uri] = args;
  const { version, manifest, bundles } = await build(dir, o.typecheck ?? true);
  if (verb === 'list') return cmdAssetsListLocal(manifest.dags, o, out);
  if (verb !== 'emit') throw new UsageError(`airless assets ${verb} --dir: a DAG folder keeps no events; use --dev or --stack`);
  const clock = o.timeWarp ? new VirtualClock(Date.now()) : new SystemClock();
  const rt = new EmbeddedRuntime({ bundles, clock, schedules: false, sensors: builtinSensors(), log: terminalLog(o.json ?? false) });
  await rt.register(version);
  let recorded = '';
  await cmdAssetsEmit(rt.ports, uri!, o.extra ?? {}, { json: o.json }, (line) => { recorded = line; });
  await rt.runUntil(async () => (await rt.ports.store.listActiveRuns()).length === 0);
  const results = [];
  for (const run of await runsSince(rt.ports, manifest.dags, [])) results.push(await resultOf(rt, run, manifest.dags.find((d) => d.dagId === run.dagId)!, 'done'));
  if (o.json) out(JSON.stringify({ ...JSON.parse(recorded), runs: results.map(runJson) }));
  else out(`${recorded}\n${results.length ? runTable(results) : 'no run triggered'}`);
  return results.every((r) => r.run.state === 'success') ? 0 : 1;
}
