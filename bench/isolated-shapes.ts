/**
 * The shape DAGs as a built bundle, so that the scheduler shapes can also run with every
 * try isolated in a worker thread (lib/isolation): inline DAGs live in the caller's
 * memory and cannot move to a thread. The DAG file is generated (202 DAGs) and built once.
 */
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildToLocalVersion, LocalBundleSource } from '../lib/build/index.js';
import type { ShapePlan } from './dags.js';

const DAGS_MODULE = fileURLToPath(new URL('./dags.ts', import.meta.url));

/**
 * Builds a bundle holding every DAG of `plans` (same ids, same shapes).
 *
 * @example
 * const { bundles, version } = await shapeBundle(shapePlans(0.1));
 */
export async function shapeBundle(plans: readonly ShapePlan[]): Promise<{ bundles: LocalBundleSource; version: string }> {
  const work = await mkdtemp(path.join(tmpdir(), 'airless-bench-shapes-'));
  const lines = [`import { inTreeDag, linearDag, treeDag } from ${JSON.stringify(DAGS_MODULE)};`];
  for (const d of plans.flatMap((p) => p.dags)) {
    const id = d.spec.dagId;
    const fn = id.startsWith('chain') ? 'linearDag' : id.startsWith('intree') ? 'inTreeDag' : 'treeDag';
    const maker = `${fn}(${JSON.stringify(id)}, ${d.spec.tasks.length})`;
    lines.push(`export const ${id} = ${maker};`);
  }
  await writeFile(path.join(work, 'shapes.ts'), `${lines.join('\n')}\n`);
  const root = path.join(work, 'bundles');
  const { version } = await buildToLocalVersion(work, root);
  return { bundles: new LocalBundleSource(root), version };
}
