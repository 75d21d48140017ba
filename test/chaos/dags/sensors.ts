/**
 * Batched sensors with duplicate poke contexts: both sensors of a run, and every run of
 * the same group, wait on one target (`group`, `readyAt`), so the poker must poke each
 * target once per cycle however many tasks wait on it. Every poke is logged with the
 * cycle the child set before its poke pass.
 */
import { dag, defineSensor } from 'airless';
import { chaosGlobal, logLine, work } from './_chaos.js';

export const chaosReady = defineSensor('chaos_ready', (pc: { group: string; readyAt: string }) => {
  logLine({ kind: 'poke', target: `${pc.group}@${pc.readyAt}`, cycle: chaosGlobal().cycle ?? -1 });
  return Date.now() >= Number(pc.readyAt);
});

export default dag('chaos_sensors', {
  maxActiveRuns: 256,
  params: { group: 'g0', readyAt: '0' },
  defaultArgs: { retries: 1, retryDelay: '1s', executionTimeout: '3s' },
}, ({ task, sensor }) => {
  const target = { type: chaosReady, pokeContext: { group: '{{ params.group }}', readyAt: '{{ params.readyAt }}' } };
  const prep = task('prep', (ctx) => work(ctx));
  const waitA = sensor('wait_a', target, { pokeInterval: '1s', timeout: '3m', softFail: true });
  const waitB = sensor('wait_b', target, { pokeInterval: '1s', timeout: '3m', softFail: true });
  const after = task('after_sensors', (ctx) => work(ctx), { triggerRule: 'none_failed_min_one_success' });
  prep.before(waitA, waitB);
  after.after(waitA, waitB);
});
