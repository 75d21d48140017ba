/**
 * `airless rehearse`: the synthesized stack on this machine with IAM enforced.
 * Without `--scenario` it stays up and prints the endpoint for the other commands;
 * with scenarios it runs them, prints their steps (or the `--json` summary as the last
 * line) and exits 0 only when every scenario is ok and no call was denied.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { InvalidInputError } from '../engine/index.js';
import { startRehearsal } from '../rehearsal/rehearsal.js';
import { runScenarios, SCENARIO_NAMES } from '../rehearsal/scenarios/index.js';
import type { CliRunner } from '../rehearsal/scenarios/context.js';

export interface RehearseOptions {
  scenarios?: string[];
  json?: boolean;
  timeWarp?: boolean;
  cdkOut?: string;
  /** The CDK app to synthesize (`cdk synth --app`); default: the project's cdk.json. */
  app?: string;
  /** The stack to rehearse when the app has more than one Airless stack. */
  stack?: string;
  stateDir?: string;
  follow?: boolean;
  /** Where lines go. @default stdout */
  out?: (line: string) => void;
  /** The CLI the scenarios drive (`capture` of the CLI's `main`); needed with scenarios. */
  cli?: CliRunner;
  /** Resolves when a kept-up rehearsal should stop. @default SIGINT or SIGTERM */
  until?: Promise<void>;
}

const noCli: CliRunner = () => Promise.reject(new InvalidInputError('cmdRehearse: the scenarios need a CLI runner (options.cli)'));

/**
 * @example
 * process.exitCode = await cmdRehearse({ scenarios: ['readme'], json: true });
 */
export async function cmdRehearse(o: RehearseOptions): Promise<number> {
  const out = o.out ?? ((line: string) => void process.stdout.write(`${line}\n`));
  const stateDir = resolve(o.stateDir ?? '.airless/rehearsal');
  const scenarios = (o.scenarios ?? []).flatMap((s) => s.split(',')).filter(Boolean);
  for (const s of scenarios) {
    if (!(SCENARIO_NAMES as readonly string[]).includes(s)) throw new InvalidInputError(`unknown scenario ${s}; choose from ${SCENARIO_NAMES.join(', ')}`);
  }
  const follow = o.follow ? (fn: string, line: string) => out(`[${fn}] ${line}`) : undefined;

  if (scenarios.length > 0) {
    const log = o.json ? (line: string) => void process.stderr.write(`${line}\n`) : out;
    const summary = await runScenarios(scenarios, { stateDir, cdkOut: o.cdkOut, app: o.app, stackName: o.stack, onLogLine: follow }, log, { cli: o.cli ?? noCli });
    const ok = summary.scenarios.every((s) => s.ok) && summary.accessDenied === 0;
    const counts = new Map<string, number>();
    for (const d of summary.denied) {
      const key = `${d.principal} ${d.action} ${d.resource.replace(/\/bundles\/[^/]+\//, '/bundles/<version>/')}`;
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
    for (const [key, n] of counts) log(`AccessDenied (${n}x): ${key}`);
    if (o.json) {
      out(JSON.stringify({ scenarios: summary.scenarios.map(({ name, ok: k, seconds, error }) => ({ name, ok: k, seconds, ...(error ? { error } : {}) })), accessDenied: summary.accessDenied, awsCalls: summary.awsCalls, unusedGrants: summary.unusedGrants, allowListedGrants: summary.allowListedGrants }));
    } else {
      for (const s of summary.scenarios) out(`${s.ok ? 'ok  ' : 'FAIL'}  ${s.name}  ${s.seconds} s${s.error ? `  ${s.error}` : ''}`);
      out(`${summary.awsCalls} AWS calls authorized, ${summary.accessDenied} denied, ${summary.unusedGrants.length} unused grants`);
    }
    return ok ? 0 : 1;
  }

  const r = await startRehearsal({ stateDir, cdkOut: o.cdkOut, app: o.app, stackName: o.stack, timeWarp: o.timeWarp, onLogLine: follow });
  out(`rehearsal of stack ${r.template.stackName} is up (${r.functions.size} functions, ${r.resources.tables.length} tables, ${r.resources.queues.length} queues, ${r.resources.buckets.length} buckets)`);
  out(`endpoint: ${r.endpoint}`);
  out(`logs:     ${r.logs.dir}`);
  out('in another terminal:');
  out(`  export AIRLESS_AWS_ENDPOINT=${r.endpoint}`);
  const stackFlag = r.template.stackName === 'Airless' ? '' : ` --stack ${r.template.stackName}`;
  const dags = ['dags', 'examples/dags'].find((d) => existsSync(d)) ?? '<DAG folder>';
  out(`  npx airless push ${dags}${stackFlag} && npx airless trigger <dag id>${stackFlag}`);
  out('Ctrl-C stops it.');
  const stop = o.until ?? new Promise<void>((done) => {
    process.once('SIGINT', () => done());
    process.once('SIGTERM', () => done());
  });
  await stop;
  const denied = r.accessDenied();
  for (const d of denied) out(`AccessDenied: ${d.principal} ${d.action} ${d.resource}`);
  out(`stopping: ${r.gateway.decisions.length} AWS calls authorized, ${denied.length} denied`);
  await r.stop();
  return denied.length === 0 ? 0 : 1;
}
