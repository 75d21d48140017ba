/**
 * Rehearsal scenario DAGs for the poker and the tick: a batched sensor whose downstream is
 * another batched sensor (the poker registers it and, as the last task, ends the run, then
 * starts the run queued behind it: `maxActiveRuns: 1`); one whose downstream is a 16-minute
 * time sensor, past SQS's 15-minute delay (the poker arms a one-time schedule); one that
 * never holds and times out (the tick fails it and, the DAG being at `maxActiveRuns: 1`,
 * looks for queued runs to start); a task followed by a sensor (the worker registers it).
 */
import { dag, defineSensor } from 'airless';

export const always = defineSensor('rehearsal_always', async (pc: { n: number }) => pc.n >= 0);
export const never = defineSensor('rehearsal_never', async (pc: { n: number }) => pc.n < 0);

export const chain = dag('rehearsal_sensor_chain', { schedule: null, maxActiveRuns: 1 }, ({ sensor }) => {
  const first = sensor('first', { type: always, pokeContext: { n: 1 } }, { pokeInterval: '1m', timeout: '1h' });
  const second = sensor('second', { type: always, pokeContext: { n: 2 } }, { pokeInterval: '1m', timeout: '1h' });
  first.before(second);
});

export const timer = dag('rehearsal_sensor_timer', { schedule: null }, ({ sensor, task }) => {
  const first = sensor('first', { type: always, pokeContext: { n: 3 } }, { pokeInterval: '1m', timeout: '1h' });
  const later = sensor('later', { type: 'time', pokeContext: { after: '16m' } }, { timeout: '2h' });
  const done = task('done', async () => 'after the timer');
  first.before(later);
  later.before(done);
});

export default dag('rehearsal_sensor_timeout', { schedule: null, maxActiveRuns: 1 }, ({ sensor }) => {
  sensor('never', { type: never, pokeContext: { n: 4 } }, { pokeInterval: '1m', timeout: '3m' });
});

// A task followed by a batched sensor: the worker registers the sensor (and, with every
// poker off, enables its shard's poker), then the poker settles it (scenario paths, pokers.ts).
export const afterTask = dag('rehearsal_sensor_after_task', { schedule: null }, ({ sensor, task }) => {
  const prepare = task('prepare', async () => 'prepared');
  const wait = sensor('wait', { type: always, pokeContext: { n: 5 } }, { pokeInterval: '1m', timeout: '1h' });
  prepare.before(wait);
});

