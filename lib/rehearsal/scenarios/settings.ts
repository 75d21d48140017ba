/**
 * Scenario `settings`: variables (SSM Parameter Store) and connections (Secrets Manager)
 * set with the CLI and read by every function whose role may read them, each read checked
 * by what the user sees and by the gateway's decisions. The worker reads them in a task
 * (XCom), the poker renders them into a sensor it starts, the tick into a sensor it starts
 * after timing another out, `airless trigger` into the root sensor it starts; a missing variable fails its task naming the key; the secret
 * values never reach `airless logs`.
 */
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../rehearsal.js';
import type { ScenarioContext } from './context.js';
import { setTickSchedule } from './tick.js';

const runIdOf = (out: string[]) => /^run (\S+) of /.exec(out.find((l) => l.startsWith('run ')) ?? '')?.[1] ?? '';
const PASSWORD = 'pa55-SECRET-word';
const API_KEY = 'k3y-SECRET-value';

export async function settings(c: ScenarioContext): Promise<void> {
  const { r, cli, check, ports } = c;
  const allowedBy = (who: string, action: string, resource: string) =>
    r.gateway.decisions.filter((d) => d.allowed && d.principal.includes(who) && d.action === action && d.resource.includes(resource)).length;
  const stack = { stack: r.template.stackName };

  const dir = mkdtempSync(join(tmpdir(), 'airless-rehearsal-settings-'));
  try {
    cpSync(join(PROJECT_ROOT, 'lib', 'rehearsal', 'scenarios', 'dags', 'settings.ts'), join(dir, 'settings.ts'));
    // --no-typecheck: `npm run typecheck` covers this file; the readme scenario pushes with it.
    const push = await cli('push', [dir], { 'no-typecheck': true });
    check(push.code === 0 && push.out.some((l) => l.includes('rehearsal_settings')), `push registers the settings DAGs (${push.error ?? ''})`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }

  // The CLI against the rehearsal, as against AWS: SSM and Secrets Manager through the gateway.
  const set = [
    await cli('variables', ['set', 'rehearsal_greeting', 'hello from ssm'], stack),
    await cli('variables', ['set', 'rehearsal_api_key', API_KEY], stack),
    await cli('connections', ['set', 'rehearsal_db', `postgres://etl:${PASSWORD}@db.rehearsal.internal:5432/warehouse`], stack),
  ];
  const got = await cli('variables', ['get', 'rehearsal_greeting'], stack);
  const listed = await cli('variables', ['list'], stack);
  const conn = await cli('connections', ['get', 'rehearsal_db'], stack);
  check(set.every((s) => s.code === 0) && got.out.join() === 'hello from ssm' && listed.out.join('\n') === 'rehearsal_api_key\nrehearsal_greeting'
    && conn.out.includes('host: db.rehearsal.internal') && conn.out.includes('password: ***') && !conn.out.join('\n').includes(PASSWORD)
    && allowedBy('cli', 'ssm:PutParameter', 'parameter/airless/variables/rehearsal_greeting') > 0
    && allowedBy('cli', 'secretsmanager:CreateSecret', 'secret:airless/connections/rehearsal_db-') > 0,
    `airless variables set/get/list and connections set/get --stack work against the rehearsal (get: ${got.out.join() || got.error}; list: ${listed.out.join(' ')})`);

  const cliReads = () => allowedBy('cli', 'ssm:GetParameter', 'rehearsal_greeting') + allowedBy('cli', 'secretsmanager:GetSecretValue', 'rehearsal_db');
  // Until the poker has started `greeted`, the tick is off: it fires at the same virtual
  // minute as the poker and could decide `greeted` first (then the poker would read nothing).
  await setTickSchedule(c, 'DISABLED');
  const beforeTrigger = cliReads();
  const run = runIdOf((await cli('trigger', ['rehearsal_settings'])).out);
  const triggerReads = cliReads() - beforeTrigger;
  const missing = runIdOf((await cli('trigger', ['rehearsal_settings_missing'])).out);
  check(run !== '' && missing !== '', 'trigger the settings DAGs');
  await c.until(async () => ['sensing', 'success'].includes((await ports.store.getTask({ dagId: 'rehearsal_settings', runId: run, taskId: 'greeted' }))?.state ?? ''), 'the poker to start greeted');
  await setTickSchedule(c, 'ENABLED');
  const end = await c.runEnds('rehearsal_settings', run);
  const state = (id: string) => end.tasks.find((t) => t.taskId === id)?.state;
  const states = end.tasks.map((t) => `${t.taskId}=${t.state}`).join(' ');

  // The worker: ctx.variables, ctx.connections and a template, returned as XCom.
  const xcom = await ports.store.getXcom({ dagId: 'rehearsal_settings', runId: run, taskId: 'read', key: 'return_value' }) as Record<string, unknown> | undefined;
  check(state('read') === 'success' && xcom?.greeting === 'hello from ssm' && xcom.host === 'db.rehearsal.internal' && xcom.port === 5432
    && xcom.schema === 'warehouse' && xcom.line === 'hello from ssm at db.rehearsal.internal' && xcom.keyLength === API_KEY.length
    && allowedBy('Worker', 'ssm:GetParameter', 'parameter/airless/variables/rehearsal_greeting') > 0
    && allowedBy('Worker', 'secretsmanager:GetSecretValue', 'secret:airless/connections/rehearsal_db-') > 0,
    `the worker reads a variable, a SecureString variable and a connection in a task and in a template (XCom ${JSON.stringify(xcom)})`);

  // The poker starts `greeted` when it settles `first`: the sensor holds only on the rendered values.
  check(state('first') === 'success' && state('greeted') === 'success'
    && allowedBy('Poker', 'ssm:GetParameter', 'parameter/airless/variables/rehearsal_greeting') > 0
    && allowedBy('Poker', 'secretsmanager:GetSecretValue', 'secret:airless/connections/rehearsal_db-') > 0,
    `the poker renders {{ var.value.x }} and {{ conn.x.host }} into the sensor it starts, which holds on them (${states})`);

  // Only the tick times sensors out: it starts `after_timeout`, rendering the same way.
  check(state('never') === 'failed' && state('after_timeout') === 'success' && end.state === 'success'
    && allowedBy('Tick', 'ssm:GetParameter', 'parameter/airless/variables/rehearsal_greeting') > 0
    && allowedBy('Tick', 'secretsmanager:GetSecretValue', 'secret:airless/connections/rehearsal_db-') > 0,
    `the tick times a sensor out and renders a variable and a connection into the sensor it starts (${states})`);

  // The CLI's trigger starts the run's root sensor: it reads through the endpoint too, not from AWS.
  check(state('at_start') === 'success' && triggerReads === 2,
    `airless trigger renders a root sensor's variable and connection through the rehearsal endpoint (${triggerReads} reads by the CLI)`);

  // A missing variable fails its task with one line naming the key, as Airflow's KeyError.
  const missingEnd = await c.runEnds('rehearsal_settings_missing', missing);
  const needs = missingEnd.tasks[0];
  check(missingEnd.state === 'failed' && needs?.state === 'failed' && (needs.error ?? '').includes('variable "rehearsal_absent" does not exist') && !(needs.error ?? '').includes('\n'),
    `a missing variable fails the task naming the key (${needs?.error ?? needs?.state ?? 'no task'})`);

  // Masking: the task logged the password and the key; `airless logs` shows neither.
  await c.logLine('Worker', ['connecting as etl', `"runId":"${run}"`], "the read task's line in the worker's log");
  const logs = await cli('logs', ['rehearsal_settings', run, 'read']);
  const text = logs.out.join('\n');
  const worker = [...r.functions.values()].find((f) => f.spec.logicalId.includes('Worker'))!;
  const workerLog = r.logs.lines(worker.spec.logicalId).join('\n');
  check(logs.code === 0 && text.includes('connecting as etl with password *** and key ***') && !text.includes(PASSWORD) && !text.includes(API_KEY)
    && !workerLog.includes(PASSWORD) && !workerLog.includes(API_KEY),
    `airless logs shows the task's line with both secrets masked, and no worker log line holds them (${logs.out.find((l) => l.includes('connecting')) ?? logs.error ?? 'no line'})`);
}
