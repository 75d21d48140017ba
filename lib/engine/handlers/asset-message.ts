/**
 * What an `asset` message on the ready queue does: `evaluate` creates the runs a DAG's
 * queued asset events call for; `outlets` is the delayed check that a task's success
 * emitted its asset events (flow/asset-outlets.ts).
 */
import type { AssetMessage } from '../model/assets.js';
import type { Ports } from '../model/ports.js';
import { evaluateAssetQueue } from '../flow/assets.js';
import { checkOutlets } from '../flow/asset-outlets.js';

/**
 * @example
 * await handleAssetMessage(ports, { kind: 'asset', op: 'evaluate', dagId: 'report' });
 */
export async function handleAssetMessage(p: Ports, m: AssetMessage): Promise<'done' | 'dropped'> {
  if (m.op === 'outlets') return checkOutlets(p, m);
  await evaluateAssetQueue(p, m.dagId);
  return 'done';
}
