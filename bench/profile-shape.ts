/**
 * A driver for profiling one scheduler shape on the embedded runtime (memory store,
 * virtual clock, in process), as `npm run bench -- --only shapes` runs it:
 *
 *   node --import tsx --cpu-prof --cpu-prof-dir /tmp/prof bench/profile-shape.ts tree 30
 *   npx tsx bench/profile-shape.ts chain10 30     # just the wall times
 *
 * Shapes: chain10 (100 runs x 10), chain100 (10 x 100), tree (out-tree), intree (in-tree).
 * Prints the median and spread of the wall times after `warm` unmeasured passes.
 */
import { VirtualClock } from '../lib/adapters/clock.js';
import { shapePlans } from './dags.js';
import { runShape } from './scenarios/shapes.js';

const NAMES = ['chain10', 'chain100', 'tree', 'intree'] as const;
const [name = 'tree', repsArg = '20', warmArg = '3'] = process.argv.slice(2);
const at = NAMES.indexOf(name as (typeof NAMES)[number]);
if (at < 0) {
  console.error(`unknown shape "${name}"; choose from ${NAMES.join(', ')}`);
  process.exit(2);
}
const plan = shapePlans(1)[at]!;
const walls: number[] = [];
const cpus: number[] = [];
for (let i = 0; i < Number(warmArg) + Number(repsArg); i++) {
  const t = await runShape(plan, new VirtualClock(Date.UTC(2026, 0, 1)), 32);
  if (!t.allSucceeded) throw new Error(`${plan.name}: a run did not succeed`);
  if (i >= Number(warmArg)) {
    walls.push(t.wallMs);
    cpus.push(t.cpuMs);
  }
}
const q = (xs: number[], f: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * f))]!.toFixed(1);
console.log(`${plan.name}: wall median ${q(walls, 0.5)} ms (min ${q(walls, 0)}, p90 ${q(walls, 0.9)}), cpu median ${q(cpus, 0.5)} ms (min ${q(cpus, 0)}) over ${walls.length} runs`);
