/**
 * Running scenarios: each in a fresh rehearsal (its own servers and state) on a warped
 * clock that starts a few minutes before a UTC midnight, so daily schedules fire soon;
 * the summary line `--json` prints.
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { InvalidInputError } from '../../engine/index.js';
import type { Decision } from '../gateway/index.js';
import { analyzeGrants, type GrantReport } from '../least-privilege.js';
import { PROJECT_ROOT, startRehearsal, synth, type Rehearsal, type RehearsalOptions } from '../rehearsal.js';
import type { StackTemplate } from '../template.js';
import { scenarioContext, type CliRunner, type Scenario } from './context.js';
import { faults } from './faults.js';
import { jobs } from './jobs.js';
import { paths } from './paths.js';
import { readme } from './readme.js';
import { recovery } from './recovery.js';
import { settings } from './settings.js';
import { data } from './data.js';

export const SCENARIOS: Record<string, Scenario> = { readme, faults, paths, recovery, settings, jobs, data };
export const SCENARIO_NAMES = ['readme', 'faults', 'paths', 'recovery', 'settings', 'jobs', 'data', 'least-privilege'] as const;
/** What least-privilege replays: every call of these scenarios. */
export const LEAST_PRIVILEGE_INPUTS = ['readme', 'faults', 'paths', 'recovery', 'settings', 'jobs', 'data'] as const;

/** Virtual start: 2026-01-01T23:50Z, ten minutes before the example DAGs' daily schedules fire. */
export const SCENARIO_START = Date.parse('2026-01-01T23:50:00Z');

/** CDK context the scenarios synthesize with. */
export const SCENARIO_CONTEXT = { shards: '2' };

/** The app the scenarios synthesize: the Airless stack with `jobs`, the jobs scenario's scaffold and the data scenario's (scenarios/app.ts). */
export const SCENARIO_APP = 'npx tsx lib/rehearsal/scenarios/app.ts';

export interface ScenarioResult {
  name: string;
  ok: boolean;
  seconds: number;
  /** The failing step's message (or why least-privilege was not judged). */
  error?: string;
}

export interface Summary {
  scenarios: ScenarioResult[];
  accessDenied: number;
  awsCalls: number;
  unusedGrants: string[];
  /** Unused grants the allow-list explains (lib/rehearsal/grant-allowlist.ts), with the reason. */
  allowListedGrants: { grant: string; reason: string }[];
  /** Denied calls: function, action, resource. */
  denied: { principal: string; action: string; resource: string }[];
  grants?: GrantReport;
  /** Every authorization decision of the scenarios run (not printed). */
  decisions: Decision[];
  template?: StackTemplate;
}

/** What runScenarios starts and runs (tests give their own). */
export interface ScenarioDeps {
  start: typeof startRehearsal;
  synth: typeof synth;
  scenarios: Record<string, Scenario>;
  context: typeof scenarioContext;
  /** The CLI the scenarios drive, given by whoever runs them (lib/cli/rehearse.ts, the tests): the rehearsal imports no CLI. */
  cli: CliRunner;
}

/**
 * @example
 * const summary = await runScenarios(['readme'], { stateDir: '.airless/rehearsal', cdkOut: 'cdk.out' }, console.log, { cli: runCli });
 */
export async function runScenarios(
  names: readonly string[], base: Omit<RehearsalOptions, 'timeWarp' | 'startAt'>, log: (line: string) => void, deps: Partial<ScenarioDeps> & Pick<ScenarioDeps, 'cli'>,
): Promise<Summary> {
  const d: ScenarioDeps = { start: startRehearsal, synth, scenarios: SCENARIOS, context: scenarioContext, ...deps };
  for (const n of names) {
    if (!(SCENARIO_NAMES as readonly string[]).includes(n)) throw new InvalidInputError(`unknown scenario ${n}; choose from ${SCENARIO_NAMES.join(', ')}`);
  }
  const decisions: Decision[] = [];
  const summary: Summary = { scenarios: [], accessDenied: 0, awsCalls: 0, unusedGrants: [], allowListedGrants: [], denied: [], decisions };
  // least-privilege replays what the other scenarios did: run them too when only it is asked.
  const toRun = names.includes('least-privilege') ? [...new Set([...names.filter((n) => n !== 'least-privilege'), ...LEAST_PRIVILEGE_INPUTS])] : [...names];
  let template: StackTemplate | undefined;
  // One synth for every scenario; two poker shards instead of eight (`-c shards=2`, a
  // supported deploy setting) so that each warped minute costs 3 invocations, not 9.
  // In this repository the scenarios' own app (the Airless stack and the jobs scenario's
  // scaffold); in a user's project their app (cdk.json or --app), as `airless rehearse` says.
  const inRepo = resolve(process.cwd()) === resolve(PROJECT_ROOT) && existsSync(join(PROJECT_ROOT, 'lib/rehearsal/scenarios/app.ts'));
  const synthWith = base.app || !inRepo ? base : { ...base, app: SCENARIO_APP, projectDir: PROJECT_ROOT };
  const cdkOut = base.cdkOut ?? (await d.synth(join(base.stateDir, 'cdk.out'), SCENARIO_CONTEXT, synthWith));
  for (const name of toRun) {
    const started = performance.now();
    let r: Rehearsal | undefined;
    const result: ScenarioResult = { name, ok: false, seconds: 0 };
    try {
      r = await d.start({ ...base, cdkOut, stateDir: join(base.stateDir, name), timeWarp: true, startAt: SCENARIO_START });
      log(`scenario ${name}: rehearsal up at ${r.endpoint}`);
      await d.scenarios[name]!(d.context(r, log, d.cli));
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
    // Every scenario run is reported, also those least-privilege ran for its input: a failed
    // input is what a failed least-privilege verdict comes from.
    summary.scenarios.push(result);
  }
  summary.awsCalls = decisions.length;
  summary.accessDenied = summary.denied.length;
  summary.template = template;
  if (names.includes('least-privilege')) {
    const failed = summary.scenarios.filter((s) => !s.ok).map((s) => s.name);
    if (failed.length > 0 || !template) {
      // Unused grants judged on the calls of scenarios that stopped half-way would be wrong.
      const error = `not judged: ${failed.length > 0 ? `scenario ${failed.join(', ')} failed, so its calls are incomplete` : 'no template'}`;
      log(`least-privilege ${error}`);
      summary.scenarios.push({ name: 'least-privilege', ok: false, seconds: 0, error });
    } else {
      const started = performance.now();
      const { ok, grants } = await leastPrivilege(template, decisions, log);
      Object.assign(summary, { grants, unusedGrants: grants.unused, allowListedGrants: grants.allowed });
      const why = [...(grants.unused.length ? [`${grants.unused.length} unused grant(s)`] : []), ...(summary.accessDenied ? [`${summary.accessDenied} call(s) denied`] : []),
        ...(!ok && grants.unused.length === 0 ? ['a used grant is not proven needed'] : [])];
      summary.scenarios.push({ name: 'least-privilege', ok: ok && summary.accessDenied === 0, seconds: Math.round((performance.now() - started) / 100) / 10, ...(why.length ? { error: why.join('; ') } : {}) });
    }
  }
  return summary;
}

/**
 * The least-privilege verdict on recorded calls: ok when every statement a call used is
 * proven needed (a replay without it is denied) and every unused grant is allow-listed.
 *
 * @example
 * const { ok, grants } = await leastPrivilege(summary.template!, summary.decisions, console.log);
 */
export async function leastPrivilege(template: StackTemplate, decisions: readonly Decision[], log: (line: string) => void): Promise<{ ok: boolean; grants: GrantReport }> {
  const grants = await analyzeGrants(template, decisions);
  for (const s of grants.statements) log(`  ${s.provenBy ? 'needed' : s.used ? 'NOT PROVEN' : 'unused'}: ${s.principal} ${s.statement}${s.provenBy ? ` (without it: AccessDenied on ${s.provenBy})` : ''}`);
  for (const a of grants.allowed) log(`  allow-listed, unused: ${a.grant}: ${a.reason}`);
  for (const u of grants.unused) log(`  UNUSED GRANT (cut it, or reach it in a scenario, or allow-list it with its reason): ${u}`);
  const proven = grants.statements.filter((s) => s.used).every((s) => s.provenBy !== undefined);
  return { ok: proven && grants.unused.length === 0, grants };
}
