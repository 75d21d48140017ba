/**
 * The user's CDK app, as the rehearsal needs it: `cdk synth` of the app their `cdk.json`
 * names (or `--app`), run from their project with the `cdk` their project installs (or
 * the one beside Airless), and the Airless stack found in the cloud assembly by its
 * outputs, whatever the app calls it.
 */
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { REQUIRED_OUTPUTS, STACK_OUTPUTS } from '../adapters/aws/stack-contract.js';
import { AirlessError, InvalidInputError } from '../engine/index.js';
import { StackTemplate, type CfnTemplate } from './template.js';

export interface SynthOptions {
  /** The CDK app command (`cdk synth --app`); default: what the project's cdk.json says. */
  app?: string;
  /** The user's project: cdk.json, node_modules/.bin/cdk. @default process.cwd() */
  projectDir?: string;
}

/** The outputs that make a stack an Airless stack (what `airless push` and the functions read). */
const AIRLESS_OUTPUTS = REQUIRED_OUTPUTS.map((k) => STACK_OUTPUTS[k]);

/**
 * The `cdk` CLI's entry script: the project's own `aws-cdk` first (the version the user
 * deploys with), then the one Airless resolves (its devDependency in this repository).
 * Resolved as a package, never as a path under Airless's `dist/`.
 *
 * @example
 * cdkEntry(process.cwd()); // '/home/me/flows/node_modules/aws-cdk/bin/cdk'
 */
export function cdkEntry(projectDir: string): string | undefined {
  const from = [join(resolve(projectDir), 'package.json'), import.meta.url];
  for (const base of from) {
    try {
      const pkgFile = createRequire(base).resolve('aws-cdk/package.json');
      const bin = (JSON.parse(readFileSync(pkgFile, 'utf8')) as { bin?: Record<string, string> }).bin?.cdk;
      if (bin) return join(dirname(pkgFile), bin);
    } catch {
      // not installed there: try the next place
    }
  }
  return undefined;
}

/**
 * `cdk synth` of the user's app into `out` (5-15 s), with `context` as `--context k=v`.
 *
 * @example
 * const cdkOut = await synth('.airless/rehearsal/cdk.out', { shards: '2' }, { projectDir: '.' });
 * @throws InvalidInputError when there is no app to synthesize or no `cdk` to do it;
 *   AirlessError with the last lines of cdk's output when the synth fails.
 */
export async function synth(out: string, context: Record<string, string> = {}, o: SynthOptions = {}): Promise<string> {
  const projectDir = resolve(o.projectDir ?? process.cwd());
  if (!o.app && !existsSync(join(projectDir, 'cdk.json'))) {
    throw new InvalidInputError(`no cdk.json in ${projectDir}: run airless rehearse in your CDK project (airless init writes one), or pass --app 'npx tsx infra/app.ts' or --cdk-out DIR`);
  }
  const cdk = cdkEntry(projectDir);
  if (!cdk) throw new InvalidInputError('airless rehearse synthesizes your CDK app with the AWS CDK CLI, which is not installed: npm install -D aws-cdk (or pass --cdk-out DIR of a `cdk synth`)');
  const args = [cdk, 'synth', '--quiet', '--output', resolve(out), ...(o.app ? ['--app', o.app] : []), ...Object.entries(context).flatMap(([k, v]) => ['--context', `${k}=${v}`])];
  try {
    await promisify(execFile)(process.execPath, args, {
      cwd: projectDir, maxBuffer: 64 * 1024 * 1024, env: { ...process.env, CDK_DISABLE_CLI_TELEMETRY: '1' },
    });
  } catch (cause) {
    throw new AirlessError(`cdk synth failed: ${String((cause as { stderr?: string }).stderr ?? cause).trim().split('\n').slice(-3).join(' ')}`, { cause });
  }
  return out;
}

interface ManifestArtifact {
  type: string;
  displayName?: string;
  properties?: { templateFile?: string; stackName?: string; directoryName?: string };
}

interface FoundStack {
  /** The CloudFormation stack name (`stackName`, or the construct id). */
  stackName: string;
  /** The construct path shown by `cdk ls`. */
  displayName: string;
  dir: string;
  templateFile: string;
  template: CfnTemplate;
}

/** Every stack of a cloud assembly, nested assemblies (stages) included. */
function stacksOf(dir: string): FoundStack[] {
  const file = join(dir, 'manifest.json');
  let manifest: { artifacts?: Record<string, ManifestArtifact> };
  try {
    manifest = JSON.parse(readFileSync(file, 'utf8'));
  } catch (cause) {
    throw new InvalidInputError(`${dir} is not a cloud assembly (no readable manifest.json); run \`npx cdk synth\` or leave out --cdk-out`, { cause });
  }
  const out: FoundStack[] = [];
  for (const [id, a] of Object.entries(manifest.artifacts ?? {})) {
    if (a.type === 'cdk:cloud-assembly' && a.properties?.directoryName) out.push(...stacksOf(join(dir, a.properties.directoryName)));
    if (a.type !== 'aws:cloudformation:stack' || !a.properties?.templateFile) continue;
    const templateFile = join(dir, a.properties.templateFile);
    out.push({ stackName: a.properties.stackName ?? id, displayName: a.displayName ?? id, dir, templateFile, template: JSON.parse(readFileSync(templateFile, 'utf8')) as CfnTemplate });
  }
  return out;
}

/**
 * The Airless stack of a `cdk.out`: the one whose outputs are the ones the CLI reads
 * (an app may hold other stacks), or the one named `stackName` (its stack name or its
 * construct path).
 *
 * @example
 * const t = airlessStack('cdk.out'); // t.stackName === 'Airless' for the scaffold's app
 * @throws InvalidInputError naming what was found when no stack, or more than one, fits.
 */
export function airlessStack(cdkOut: string, stackName?: string): StackTemplate {
  const dir = resolve(cdkOut);
  // A folder with only a template (older tooling, tests): read it by name as before.
  if (!existsSync(join(dir, 'manifest.json'))) return StackTemplate.fromCdkOut(dir, stackName ?? 'Airless');
  const all = stacksOf(dir);
  const airless = all.filter((s) => AIRLESS_OUTPUTS.every((k) => s.template.Outputs?.[k] !== undefined));
  const names = (list: FoundStack[]) => list.map((s) => s.stackName).join(', ') || 'none';
  let pick: FoundStack | undefined;
  if (stackName) {
    pick = all.find((s) => s.stackName === stackName || s.displayName === stackName);
    if (!pick) throw new InvalidInputError(`the app has no stack ${stackName} (stacks: ${names(all)})`);
    if (!airless.includes(pick)) throw new InvalidInputError(`stack ${stackName} has no ${AIRLESS_OUTPUTS.join(', ')} outputs: is it an Airless stack (AirlessStack from airless/infra)?`);
  } else if (airless.length === 1) {
    pick = airless[0];
  } else if (airless.length === 0) {
    throw new InvalidInputError(`the app has no Airless stack (stacks: ${names(all)}); an Airless stack is an AirlessStack from airless/infra, with its outputs`);
  } else {
    throw new InvalidInputError(`the app has ${airless.length} Airless stacks (${names(airless)}): choose one with --stack NAME`);
  }
  if (!pick.template.Resources) throw new InvalidInputError(`${pick.templateFile} has no Resources`);
  return new StackTemplate(pick.stackName, pick.template, pick.dir);
}
