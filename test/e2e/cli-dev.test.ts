/**
 * `airless dev` as a local control plane: it serves the UI, the REST API and the control
 * route on one port and announces that port and the API's token, answers trigger,
 * runs, tasks, pause and signal with --dev, reloads when a DAG file changes (new runs use
 * the new version, the old run keeps its own), and says what it waits for on Ctrl-C.
 * The dev process runs on real time, so the test waits on its output, not on a clock.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const BIN = path.resolve(__dirname, '../../bin/airless.mjs');
const cwd = mkdtempSync(path.join(tmpdir(), 'airless-dev-'));
const env = { ...process.env, NO_COLOR: '1' };
const dagFile = path.join(cwd, 'dags', 'd.ts');
const source = (tasks: string) => `import { parentPort } from 'node:worker_threads';\nimport { dag } from 'airless';\n` +
  `export default dag('d', {}, ({ task }) => { ${tasks} });\n`;
/**
 * A task whose thread posts a value nested 5,000 levels deep, which the main thread cannot
 * read, then waits for ever (issue 19, defect 2): its try must fail, not hold the dev's
 * slot and its first Ctrl-C.
 */
const DEEP = `task('c', async () => { let v = 1; for (let i = 0; i < 5000; i++) v = [v]; parentPort.postMessage(v); await new Promise(() => {}); });`;

function cli(...args: string[]) {
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd, env, encoding: 'utf8', timeout: 60_000 });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

/** Resolves when the dev's output matches (polling its collected output). */
async function until(what: () => boolean | Promise<boolean>, label: string, ms = 60_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await what())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${label}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

let dev: ChildProcess | undefined;
afterAll(() => { dev?.kill('SIGKILL'); });

describe('airless dev control plane', () => {
  it('is driven from the CLI and reloads edited DAGs', async () => {
    mkdirSync(path.dirname(dagFile), { recursive: true });
    writeFileSync(dagFile, source(`task('a', async () => 1);`));
    let out = '';
    dev = spawn(process.execPath, [BIN, 'dev', 'dags', '--no-typecheck', '--port', '0'], { cwd, env });
    dev.stdout!.on('data', (d) => { out += d; });
    dev.stderr!.on('data', (d) => { out += d; });
    await until(() => existsSync(path.join(cwd, '.airless', 'dev.json')) && out.includes('control endpoint'), 'the announcement');
    // One port: the announced URL is the UI's and REST API's, and its token is the API's.
    const announced = JSON.parse(readFileSync(path.join(cwd, '.airless', 'dev.json'), 'utf8')) as { url: string; token: string };
    expect(out).toContain(`UI and REST API (Airflow v2 subset) on ${announced.url}\n`);
    expect(out).toContain(`control endpoint ${announced.url}/api/airless/dev/command`);
    expect(out.match(/http:\/\/127\.0\.0\.1:\d+/g)!.every((u) => u === announced.url)).toBe(true);
    const dags = await fetch(`${announced.url}/api/v2/dags`, { headers: { authorization: `Bearer ${announced.token}` } });
    expect(((await dags.json()) as { dags: { dag_id: string }[] }).dags.map((d) => d.dag_id)).toEqual(['d']);

    const first = cli('trigger', 'd', '--dev');
    expect(first.code, first.err).toBe(0);
    const runId1 = /run (\S+) of d/.exec(first.out)![1];
    await until(() => out.includes(`run  d/${runId1}  running -> success`), 'the first run');

    writeFileSync(dagFile, source(`task('a', async () => 1); task('b', async () => 2); ${DEEP}`));
    await until(() => out.includes('reloaded dags'), 'the reload');
    const second = cli('trigger', 'd', '--dev');
    const runId2 = /run (\S+) of d/.exec(second.out)![1];
    await until(() => out.includes(`run  d/${runId2}  running -> failed`), 'the second run');
    expect(out).toMatch(/d\.c +running -> failed +try 1 +the try's thread sent a message that could not be read/);

    const old = cli('tasks', 'd', runId1, '--dev').out;
    expect(old).toMatch(/^a +success/m);
    expect(old).not.toMatch(/^b +success/m);
    expect(cli('tasks', 'd', runId2, '--dev').out).toMatch(/^b +success/m);
    expect(cli('runs', 'd', '--dev').out).toContain(runId2);
    expect(cli('pause', 'd', '--dev').out).toContain('d paused');
    expect(cli('signal', 'k', '--dev', '--payload', '{"x":1}').code).toBe(0);
    const unknown = cli('runs', 'nope', '--dev');
    expect(unknown.code).toBe(2);

    // A failed reload keeps the old version and is an import error until the file builds again.
    const importErrors = async () => ((await (await fetch(`${announced.url}/api/v2/importErrors`, { headers: { authorization: `Bearer ${announced.token}` } })).json()) as { import_errors: { filename: string; stack_trace: string }[] }).import_errors;
    const good = readFileSync(dagFile, 'utf8');
    writeFileSync(dagFile, `${good}export const broken = ;\n`);
    await until(() => out.includes('not reloaded'), 'the failed reload');
    // Recorded before the line is printed: listed at once.
    expect(await importErrors()).toEqual([expect.objectContaining({ filename: 'd.ts', stack_trace: expect.stringMatching(/^d\.ts: .*line 4/) })]);
    writeFileSync(dagFile, good);
    // The fixed folder builds the version already running, so no line is printed: ask until it clears.
    await until(async () => (await importErrors()).length === 0, 'the import error to clear');

    dev.kill('SIGINT');
    await until(() => out.includes('stopped'), 'the stop');
    expect(out).toMatch(/stopping: (nothing in hand|waiting for \d+ task\(s\) in hand to finish); Ctrl-C again aborts/);
    expect(existsSync(path.join(cwd, '.airless', 'dev.json'))).toBe(false);
    const gone = cli('runs', 'd', '--dev');
    expect(gone.code).toBe(2);
    expect(gone.err).toContain('no running `airless dev`');
  }, 180_000);
});
