import { InvalidInputError } from '../../engine/index.js';
import { packageInfo } from '../../package-info.js';
import { capture } from '../io.js';
import type { Command } from '../registry.js';

/**
 * The rehearsal's own packages are optional peers of `airless`, not dependencies: the IAM
 * evaluator (@cloud-copilot/iam-simulate) is AGPL-3.0, which an Apache-2.0 package must
 * not force on every install (docs/adr/0007). This repository has them as devDependencies.
 */
export const REHEARSAL_PACKAGES = ['@cloud-copilot/iam-simulate', '@sinonjs/fake-timers', 'local-aws-sqs', 's3rver'] as const;

/**
 * The command that installs the rehearsal's peers at the versions this release was
 * tested with (an unpinned install could pick a version npm then refuses as a peer).
 *
 * @example
 * rehearsalInstallCommand(); // 'npm install -D @cloud-copilot/iam-simulate@0.1.173 ...'
 */
export function rehearsalInstallCommand(): string {
  const peers = packageInfo().peerDependencies;
  return `npm install -D ${REHEARSAL_PACKAGES.map((name) => (peers[name] ? `${name}@${peers[name]}` : name)).join(' ')}`;
}

/** What rehearse synthesizes and what it needs installed (the head of its help). */
const SETUP = 'It synthesizes the CDK app your cdk.json names (--app for another, --cdk-out to reuse a cdk.out) with your project\'s aws-cdk, '
  + `and rehearses its Airless stack. It needs Java 17+ (DynamoDB Local) and optional peer packages, optional because the IAM evaluator is AGPL-3.0: ${rehearsalInstallCommand()}.`;

async function loadRehearse(): Promise<typeof import('../rehearse.js')> {
  try {
    return await import('../rehearse.js');
  } catch (err) {
    const missing = REHEARSAL_PACKAGES.find((name) => String((err as Error)?.message).includes(`'${name}'`));
    if ((err as { code?: string })?.code !== 'ERR_MODULE_NOT_FOUND' || !missing) throw err;
    throw new InvalidInputError(`airless rehearse needs ${missing}, one of its optional peer packages (optional because the IAM evaluator is AGPL-3.0): ${rehearsalInstallCommand()}`);
  }
}

export const rehearse: Command = {
  words: ['rehearse'], args: [], group: 'stack',
  summary: 'the synthesized stack on this machine, IAM enforced (no Docker, no AWS); keeps it up or runs scenarios',
  details: `${SETUP} Without --scenario it stays up and prints the endpoint: set AIRLESS_AWS_ENDPOINT to it (or pass --endpoint) and push, trigger, runs, tasks, logs, signal, pause, clear, variables and connections (--stack) work against it as against AWS. With --scenario readme,faults,paths,recovery,settings,jobs,data,least-privilege it runs them and exits 0 only when every one is ok, no call was denied and (least-privilege) every unused grant is allow-listed with its reason.`,
  options: {
    scenario: { type: 'string', multiple: true, value: 'NAME', help: 'readme, faults, paths, recovery, settings, jobs, data or least-privilege (comma-separated or repeated)' },
    json: { type: 'boolean', help: 'the last stdout line is {"scenarios","accessDenied","awsCalls","unusedGrants"}' },
    'time-warp': { type: 'boolean', help: 'jump the clock to the next due schedule when nothing is in flight' },
    follow: { type: 'boolean', help: "print every function's log lines as they come" },
    app: { type: 'string', value: 'CMD', help: "the CDK app to synthesize, as cdk synth --app takes it (default: the app your cdk.json names)" },
    stack: { type: 'string', value: 'NAME', help: 'the Airless stack to rehearse when the app has several (default: the one stack with Airless outputs)' },
    'cdk-out': { type: 'string', value: 'DIR', help: 'use an existing cdk.out instead of synthesizing' },
    'state-dir': { type: 'string', value: 'DIR', help: 'where logs and state go (default .airless/rehearsal)' },
  },
  async run(_args, o, io) {
    const { cmdRehearse } = await loadRehearse();
    const code = await cmdRehearse({
      scenarios: o.scenario as string[] | undefined, json: o.json as boolean | undefined, timeWarp: o['time-warp'] as boolean | undefined,
      cdkOut: o['cdk-out'] as string | undefined, app: o.app as string | undefined, stack: o.stack as string | undefined, stateDir: o['state-dir'] as string | undefined, follow: o.follow as boolean | undefined,
      cli: (argv, x) => capture(io.main, argv, x),
    });
    // Servers and threads are stopped; a lingering keep-alive socket must not hold the exit.
    setTimeout(() => process.exit(code), 200).unref();
    return code;
  },
};
