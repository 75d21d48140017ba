/**
 * Running scenarios: each in a fresh rehearsal (its own servers and state) on a warped
 * clock that starts a few minutes before a UTC midnight, so daily schedules fire soon;
 * the summary line `--json` prints.
 */
import { join } from 'node:path';
import { InvalidInputError } from '../../engine/index.js';
import type { Decision } from '../gateway/index.js';
import { analyzeGrants, type GrantReport } from '../least-privilege.js';
import { startRehearsal, synth, type Rehearsal, type RehearsalOptions } from '../rehearsal.js';
import type { StackTemplate } from '../template.js';
import { scenarioContext, type Scenario } from './context.js';
import { faults } from './faults.js';
import { readme } from './readme.js';

export const SCENARIOS: Record<string, Scenario> = { readme, faults };
export const SCENARIO_NAMES = ['readme', 'faults', 'least-privilege'] as const;

/** Virtual start: 2026-01-01T23:50Z, ten minutes before the example DAGs' daily schedules fire. */
export const SCENARIO_START = Date.parse('2026-01-01T23:50:00Z');

/** CDK context the scenarios synthesize with. */
export const SCENARIO_CONTEXT = { shards: '2' };

export interface ScenarioResult {
  name: string;
  ok: boolean;
  seconds: number;
  error?: string;
}

export interface Summary {
  scenarios: ScenarioResult[];
  accessDenied: number;
  awsCalls: number;
  unusedGrants: string[];
  /** Denied calls: function, action, resource. */
  denied: { principal: string; action: string; resource: string }[];
  grants?: GrantReport;
}

/**
 * @example
 * const summary = await runScenarios(['readme'], { stateDir: '.airless/rehearsal', cdkOut: 'cdk.out' }, console.log);
 */
export async function runScenarios(names: readonly string[], base: Omit<RehearsalOptions, 'timeWarp' | 'startAt'>, log: (line: string) => void): Promise<Summary> {
  for (const n of names) {
    if (!(SCENARIO_NAMES as readonly string[]).includes(n)) throw new InvalidInputError(`unknown scenario ${n}; choose from ${SCENARIO_NAMES.join(', ')}`);
  }
  const summary: Summary = { scenarios: [], accessDenied: 0, awsCalls: 0, unusedGrants: [], denied: [] };
  const decisions: Decision[] = [];
  // least-privilege replays what the other scenarios did: run them too when only it is asked.
  const toRun = names.includes('least-privilege') ? [...new Set([...names.filter((n) => n !== 'least-privilege'), 'readme', 'faults'])] : [...names];
  let template: StackTemplate | undefined;
  // One synth for every scenario; two poker shards instead of eight (`-c shards=2`, a
  // supported deploy setting) so that each warped minute costs 3 invocations, not 9.
  const cdkOut = base.cdkOut ?? (await synth(join(base.stateDir, 'cdk.out'), SCENARIO_CONTEXT));
  for (const name of toRun) {
    const started = performance.now();
    let r: Rehearsal | undefined;
    const result: ScenarioResult = { name, ok: false, seconds: 0 };
    try {
      r = await startRehearsal({ ...base, cdkOut, stateDir: join(base.stateDir, name), timeWarp: true, startAt: SCENARIO_START });
      log(`scenario ${name}: rehearsal up at ${r.endpoint}`);
      await SCENARIOS[name](scenarioContext(r, log));
      result.ok = true;
    } catch (e) {
      result.error = (e as Error).message;
      log(`scenario ${name} FAILED: ${result.error}`);
    } finally {
      if (r) {
        decisions.push(...r.gateway.decisions);
        for (const d of r.accessDenied()) summary.denied.push({ principal: d.principal, action: d.action, resource: d.resource });
        if (r.errors.length) log(`scenario ${name}: rehearsal errors: ${[...new Set(r.errors)].slice(0, 5).join(' | ')}`);
        template = r.template;
        await r.stop();
      }
    }
    result.seconds = Math.round((performance.now() - started) / 100) / 10;
    if (names.includes(name)) summary.scenarios.push(result);
  }
  summary.awsCalls = decisions.length;
  summary.accessDenied = summary.denied.length;
  if (names.includes('least-privilege') && template) {
    const started = performance.now();
    {
      const grants = await analyzeGrants(template, decisions);
      summary.grants = grants;
      summary.unusedGrants = grants.unused;
      // ok: every statement a call used is proven needed by a replay that is denied without
      // it. Unused grants are reported, not failed: some serve paths no scenario reaches
      // (a schedule deleted, a missing bundle answered 404), see docs/rehearsal.md.
      const ok = grants.statements.filter((s) => s.used).every((s) => s.provenBy !== undefined);
      for (const s of grants.statements) log(`  ${s.provenBy ? 'needed' : 'UNUSED'}: ${s.principal} ${s.statement}${s.provenBy ? ` (without it: AccessDenied on ${s.provenBy})` : ''}`);
      summary.scenarios.push({ name: 'least-privilege', ok, seconds: Math.round((performance.now() - started) / 100) / 10 });
    }
  }
  return summary;
}
