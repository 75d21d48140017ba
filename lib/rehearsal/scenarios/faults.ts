/**
 * Scenario `faults`: what must not be lost or repeated when things go wrong.
 */
import type { ScenarioContext } from './context.js';

export async function faults(c: ScenarioContext): Promise<void> {
  c.check(false, 'faults scenario not written yet');
}
