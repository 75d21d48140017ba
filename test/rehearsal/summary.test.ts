/**
 * The summary of `airless rehearse --scenario …`: every scenario a run executes is listed
 * with its failing step's message, also those least-privilege ran for its input, and
 * least-privilege is not judged on the calls of a scenario that failed (issue 19: a run
 * once listed only "least-privilege: ok false" and 7 unused grants, never naming `paths`).
 * Scenarios and rehearsals are stand-ins: what is tested is the summary.
 */
import { describe, expect, it } from 'vitest';
import type { Rehearsal } from '../../lib/rehearsal/rehearsal.js';
import { LEAST_PRIVILEGE_INPUTS, runScenarios } from '../../lib/rehearsal/scenarios/index.js';
import { ScenarioError, type ScenarioContext } from '../../lib/rehearsal/scenarios/context.js';

const fakeRehearsal = () => ({
  gateway: { decisions: [] }, errors: [], template: {}, accessDenied: () => [], stop: async () => {}, endpoint: 'http://127.0.0.1:1',
}) as unknown as Rehearsal;

function deps(failing: string) {
  const ran: string[] = [];
  const scenarios = Object.fromEntries(LEAST_PRIVILEGE_INPUTS.map((name) => [name, async () => {
    ran.push(name);
    if (name === failing) throw new ScenarioError('a 16-minute time sensor after a sensor resumes from a one-time schedule the poker created');
  }]));
  return { ran, deps: { start: async () => fakeRehearsal(), synth: async (out: string) => out, scenarios, context: () => ({}) as ScenarioContext, cli: async () => ({ code: 0, stdout: [], stderr: [] }) } };
}

describe('runScenarios summary', () => {
  it('least-privilege lists every input scenario with its error, and is not judged when one failed', async () => {
    const { ran, deps: d } = deps('paths');
    const lines: string[] = [];
    const s = await runScenarios(['least-privilege'], { stateDir: '/tmp/airless-summary-test', cdkOut: '/tmp/none' }, (l) => lines.push(l), d);
    expect(ran).toEqual([...LEAST_PRIVILEGE_INPUTS]);
    expect(s.scenarios.map((x) => [x.name, x.ok])).toEqual([...LEAST_PRIVILEGE_INPUTS.map((n) => [n, n !== 'paths']), ['least-privilege', false]]);
    expect(s.scenarios.find((x) => x.name === 'paths')!.error).toBe('a 16-minute time sensor after a sensor resumes from a one-time schedule the poker created');
    expect(s.scenarios.at(-1)!.error).toBe('not judged: scenario paths failed, so its calls are incomplete');
    expect(s.unusedGrants).toEqual([]);
    expect(lines).toContain('scenario paths FAILED: a 16-minute time sensor after a sensor resumes from a one-time schedule the poker created');
  });

  it('a scenario asked by name is listed once, with its error', async () => {
    const { deps: d } = deps('readme');
    const s = await runScenarios(['readme'], { stateDir: '/tmp/airless-summary-test', cdkOut: '/tmp/none' }, () => {}, d);
    expect(s.scenarios).toMatchObject([{ name: 'readme', ok: false, error: expect.stringContaining('16-minute') }]);
  });
});
