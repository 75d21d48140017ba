import { COMMON, isoDate, oneOf, wholeNumber } from '../options.js';
import type { Command } from '../registry.js';
import { UsageError } from '../output.js';
import { DEV_OPTION, ENDPOINT, onTarget } from './stack.js';

export const backfill: Command = {
  words: ['backfill'], args: [{ name: 'dir', optional: true }], group: 'local',
  summary: "runs of a DAG over a date range, from its schedule, with a cost preview (--dry-run); here, --dev or --stack",
  details: `The dates are the DAG's schedule ticks from --from to --to (inclusive; an ISO date without a zone is
UTC) whose data interval has ended, whatever the DAG's catchup; each gets a run of type backfill, at most
--max-active-runs at once (default the DAG's maxActiveRuns). A date that already has a run is skipped,
or its run reprocessed (--reprocess failed|completed, Airflow's reprocess behaviours).
With DIR the embedded runtime runs the whole backfill here; without DIR it is created on the deployed
stack (--stack NAME, default Airless) or on the running \`airless dev\` (--dev), whose engine runs it.
--dry-run prints each date and the estimate (tasks, orchestration requests, dollars) and creates nothing.
More than 1,000 runs need --yes. Exit 2 for bad input (nothing is created), 1 when a run failed (embedded).
Examples:
  airless backfill dags --dag etl_daily --from 2026-01-01 --to 2026-01-31 --dry-run
  airless backfill dags --dag etl_daily --from 2026-01-01 --to 2026-01-31 --time-warp --json
  airless backfill --dag etl_daily --from 2026-01-01 --to 2026-03-31 --reprocess failed --stack Airless`,
  options: {
    dag: { type: 'string', value: 'ID', help: 'the DAG to backfill' },
    from: { type: 'string', value: 'ISO', help: 'first date of the range (inclusive), e.g. 2026-01-01', parse: isoDate },
    to: { type: 'string', value: 'ISO', help: 'last date of the range (inclusive), e.g. 2026-01-31T23:59:59Z', parse: isoDate },
    reprocess: { type: 'string', value: 'none|failed|completed', help: 'dates that have a finished run: skip them (none, default), rerun failed ones, or rerun all', parse: oneOf('none', 'failed', 'completed') },
    'max-active-runs': { type: 'string', value: 'N', help: "runs of the backfill at once, 1..1000 (default the DAG's maxActiveRuns)", parse: wholeNumber(1, 1000) },
    reverse: { type: 'boolean', help: 'newest date first' },
    conf: COMMON.conf,
    'dry-run': { type: 'boolean', help: 'print each date and what the backfill would cost; create nothing' },
    yes: { type: 'boolean', help: 'create more than 1,000 runs' },
    json: COMMON.json,
    'time-warp': { type: 'boolean', help: 'embedded: virtual clock, waits cost no wall time' },
    concurrency: COMMON.concurrency,
    'no-typecheck': COMMON.noTypecheck,
    dev: DEV_OPTION,
    stack: COMMON.stack,
    endpoint: ENDPOINT,
  },
  async run([dir], o, io) {
    const remote = o.dev || o.stack !== undefined || o.endpoint !== undefined;
    if (dir !== undefined && remote) throw new UsageError('airless backfill: give DIR for the embedded runtime, or --dev / --stack without DIR (see airless help backfill)');
    if (dir === undefined) {
      const { cmdBackfillOn } = await import('../backfill.js');
      return onTarget(o, io, (t) => cmdBackfillOn(t.ports, o, t.out));
    }
    const { cmdBackfillLocal } = await import('../backfill.js');
    return cmdBackfillLocal(dir, { ...o, timeWarp: o['time-warp'], concurrency: o.concurrency, typecheck: !o['no-typecheck'] });
  },
};
