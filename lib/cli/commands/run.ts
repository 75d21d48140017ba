import { COMMON, httpUrl, oneOf, signalSpec, wholeNumber } from '../options.js';
import type { Command } from '../registry.js';
import { cmdRun } from '../run.js';

export const run: Command = {
  words: ['run'], args: [{ name: 'dir' }], group: 'local',
  summary: 'run a DAG (or every DAG) once to the end, in this process',
  details: `Exit code 0 when every run succeeded, 1 when one failed, 2 for invalid input.
Examples:
  airless run dags --dag example --time-warp
  airless run dags --all --time-warp --json
  airless run dags --dag producer --time-warp --json     (also runs the DAGs its asset events trigger; --no-follow not)
  airless run dags --dag etl --signal 'approve-{{ ds }}={"by":"me"}' --store dynamodb-local`,
  options: {
    dag: { type: 'string', value: 'ID', help: 'the DAG to run' },
    all: { type: 'boolean', help: 'one run of every DAG in the folder' },
    conf: COMMON.conf,
    'logical-date': COMMON.logicalDate,
    'time-warp': { type: 'boolean', help: 'virtual clock: waits (retries, sensors, deferrals) cost no wall time' },
    signal: { type: 'string', multiple: true, value: 'KEY[=JSON]', help: 'send a signal before the run waits (key rendered with {{ ds }} etc.)', parse: signalSpec },
    runs: { type: 'string', value: 'N', help: 'N runs of each DAG at once, 1..100000, then a summary table', parse: wholeNumber(1, 100_000) },
    concurrency: COMMON.concurrency,
    store: { type: 'string', value: 'memory|dynamodb-local', help: 'where state lives; dynamodb-local starts DynamoDB Local (Java) for the run', parse: oneOf('memory', 'dynamodb-local') },
    'dynamodb-endpoint': { type: 'string', value: 'URL', help: 'keep state in the DynamoDB at URL (fresh tables per run)', parse: httpUrl },
    json: COMMON.json,
    quiet: { type: 'boolean', help: 'no progress lines (with --runs: one throughput line)' },
    'no-typecheck': COMMON.noTypecheck,
    'no-follow': { type: 'boolean', help: 'do not run the DAGs that the runs\' asset events trigger (they run by default, in this process)' },
    'mock-operators': { type: 'boolean', help: "simulate the operators' AWS jobs (each succeeds a minute after it starts) instead of starting them with your credentials" },
  },
  run: ([dir], o) => cmdRun(dir, {
    dag: o.dag, all: o.all, conf: o.conf, logicalDate: o['logical-date'], timeWarp: o['time-warp'], signal: o.signal,
    runs: o.runs, concurrency: o.concurrency, store: o.store, dynamodbEndpoint: o['dynamodb-endpoint'],
    json: o.json, quiet: o.quiet, typecheck: !o['no-typecheck'], follow: !o['no-follow'], mockOperators: o['mock-operators'],
  }),
};
