/**
 * The asset parts of a DAG spec, checked wherever a spec is validated (the SDK, the
 * bundler, a manifest read back): every asset is declared once with a normalised URI and
 * valid names and watchers, and every outlet, inlet and schedule names a declared asset.
 */
import type { DagSpec } from '../model/types.js';
import type { AssetSpec } from '../model/assets.js';
import { conditionProblem, conditionUris } from './asset-condition.js';
import { assetGroupProblem, assetNameProblem, normalizeAssetUri } from './asset-uri.js';
import { watcherProblem } from './asset-watchers.js';

/** Why one asset spec is invalid, or undefined. */
export function assetSpecProblem(a: AssetSpec): string | undefined {
  if (typeof a !== 'object' || a === null) return `an asset must be an object, got ${JSON.stringify(a)}`;
  let uri: string;
  try {
    uri = normalizeAssetUri(a.uri);
  } catch (e) {
    return (e as Error).message;
  }
  if (uri !== a.uri) return `asset uri ${JSON.stringify(a.uri)} is not normalised (expected ${JSON.stringify(uri)})`;
  const p = assetNameProblem(a.name) ?? assetGroupProblem(a.group);
  if (p) return `asset ${a.uri}: ${p}`;
  if (a.extra !== undefined && (typeof a.extra !== 'object' || a.extra === null || Array.isArray(a.extra))) return `asset ${a.uri}: extra must be an object`;
  if (a.watchers !== undefined) {
    if (!Array.isArray(a.watchers)) return `asset ${a.uri}: watchers must be a list`;
    const names = new Set<string>();
    for (const w of a.watchers) {
      const wp = watcherProblem(w);
      if (wp) return `asset ${a.uri}: ${wp}`;
      if (names.has(w.name)) return `asset ${a.uri}: two watchers are named ${JSON.stringify(w.name)}`;
      names.add(w.name);
    }
  }
  return undefined;
}

/**
 * Checks the asset fields of a DAG; `fail` throws (naming the task when there is one).
 *
 * @example
 * checkAssets(spec, (msg, taskId) => { throw new InvalidDagError(msg, { dagId: spec.dagId, taskId }); });
 */
export function checkAssets(spec: DagSpec, fail: (msg: string, taskId?: string) => never): void {
  const declared = new Set<string>();
  for (const a of spec.assets ?? []) {
    const p = assetSpecProblem(a);
    if (p) fail(p);
    if (declared.has(a.uri)) fail(`asset ${a.uri} is declared twice`);
    declared.add(a.uri);
  }
  const known = (uri: unknown, where: string, taskId?: string) => {
    if (typeof uri !== 'string' || !declared.has(uri)) fail(`${where} names ${JSON.stringify(uri)}, which is not an asset of the DAG (use asset(uri) in it)`, taskId);
  };
  for (const t of spec.tasks) {
    for (const [field, list] of [['outlets', t.outlets], ['inlets', t.inlets]] as const) {
      if (list === undefined) continue;
      if (!Array.isArray(list)) fail(`${field} must be a list of assets`, t.taskId);
      if (new Set(list).size !== list.length) fail(`${field} names an asset twice`, t.taskId);
      for (const uri of list) known(uri, field, t.taskId);
    }
  }
  if (spec.assetSchedule === undefined) return;
  const cp = conditionProblem(spec.assetSchedule);
  if (cp) fail(`invalid schedule: ${cp}`);
  if (spec.schedule !== null) fail('a DAG is scheduled on a cron or on assets, not both');
  for (const uri of conditionUris(spec.assetSchedule)) known(uri, 'schedule');
}
