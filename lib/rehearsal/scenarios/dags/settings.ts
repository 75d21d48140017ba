/**
 * Rehearsal scenario DAGs for variables (SSM Parameter Store) and connections (Secrets
 * Manager), read by each function that may read them:
 * - the worker, in `read`: `ctx.variables`, `ctx.connections` and `ctx.render` (an isolated try's
 *   render reads them through its host);
 * - the poker, when it settles `first` and starts `greeted`, whose poke context is rendered
 *   from a variable and a connection (the sensor holds only on the rendered values);
 * - the tick, when it times out `never` and starts `after_timeout` (`all_done`), whose poke
 *   context is rendered the same way: only the tick times sensors out;
 * - the CLI, when `airless trigger` starts the run and its root sensor `at_start`.
 * `rehearsal_settings_missing` reads a variable nobody set.
 */
import { dag, defineSensor } from 'airless';

export const always = defineSensor('rehearsal_settings_always', async (pc: { n: number }) => pc.n >= 0);
export const never = defineSensor('rehearsal_settings_never', async (pc: { n: number }) => pc.n < 0);
/** Holds only when the templates were rendered with the values the scenario set. */
export const greets = defineSensor('rehearsal_settings_greets', async (pc: { greeting: string; host: string }) =>
  pc.greeting === 'hello from ssm' && pc.host === 'db.rehearsal.internal');

const rendered = { greeting: '{{ var.value.rehearsal_greeting }}', host: '{{ conn.rehearsal_db.host }}' };

export const settings = dag('rehearsal_settings', { schedule: null, defaultArgs: { retries: 0 } }, ({ task, sensor }) => {
  task('read', async (ctx) => {
    const greeting = await ctx.variables.get('rehearsal_greeting');
    const key = await ctx.variables.get('rehearsal_api_key');
    const db = await ctx.connections.get('rehearsal_db');
    const line = ctx.render('{{ var.value.rehearsal_greeting }} at {{ conn.rehearsal_db.host }}');
    // Both secrets are masked in the task's log (secrets-mask.ts): the scenario checks `airless logs`.
    ctx.log.info(`connecting as ${db.login} with password ${db.password} and key ${key}`);
    return { greeting, host: db.host, port: db.port, schema: db.schema, line, keyLength: key.length };
  });
  const first = sensor('first', { type: always, pokeContext: { n: 1 } }, { pokeInterval: '1m', timeout: '10m' });
  const greeted = sensor('greeted', { type: greets, pokeContext: { ...rendered, via: 'poker' } }, { pokeInterval: '1m', timeout: '10m' });
  first.before(greeted);
  const waits = sensor('never', { type: never, pokeContext: { n: 2 } }, { pokeInterval: '1m', timeout: '2m' });
  const after = sensor('after_timeout', { type: greets, pokeContext: { ...rendered, via: 'tick' } }, { pokeInterval: '1m', timeout: '10m', triggerRule: 'all_done' });
  waits.before(after);
  sensor('at_start', { type: greets, pokeContext: { ...rendered, via: 'cli' } }, { pokeInterval: '1m', timeout: '10m' });
});

export default dag('rehearsal_settings_missing', { schedule: null, defaultArgs: { retries: 0 } }, ({ task }) => {
  task('needs', async (ctx) => ctx.variables.get('rehearsal_absent'));
});
