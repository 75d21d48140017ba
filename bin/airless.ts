/**
 * The `airless` CLI. Exit codes: 0 ok, 1 a run or task failed, 2 invalid input
 * (invalid DAG, bad option, unknown DAG or task, missing bundle).
 */
import { parseArgs } from 'node:util';
import { cmdBuild, cmdDagsList, cmdDev, cmdLocalSignal, cmdRun, cmdTasksTest } from '../lib/cli/local.js';
import { exitCodeFor, printError, UsageError } from '../lib/cli/output.js';

const USAGE = `Usage: airless <command> [options]

Local (embedded runtime, no AWS):
  build <dir> [--out DIR]                 validate and bundle DAG files (bundle.mjs + manifest.json)
  dags list <dir> [--json]                list the DAGs in a folder
  run <dir> --dag ID [--conf JSON] [--logical-date ISO] [--time-warp] [--json] [--signal KEY[=JSON]]...
  run <dir> --all [...]                   one run of every DAG
  run <dir> --dag ID --runs N --quiet     N runs at once, then throughput (tasks/s)
      [--concurrency N]                   tasks run at once in the embedded runtime (default 8)
  tasks test <dir> <dag> <task> [--conf JSON]   run one task in process
  dev <dir> [--dynamodb-endpoint URL]     long-running local scheduler on real time (Ctrl-C stops)

Deployed stack (AWS credentials and region from the environment):
  push <dir> [--stack NAME]               build, upload, wait until registered
  trigger <dag> [--conf JSON]             start a run
  runs <dag>                              recent runs
  tasks <dag> <runId>                     task states and tries of a run
  logs <dag> <runId> <task> [--try N]     task logs from CloudWatch Logs
  signal <key> [--payload JSON]           resume tasks waiting on an event
      [--dynamodb-endpoint URL]           ... of a local 'airless dev' on that endpoint
  pause <dag> | unpause <dag>
  clear <dag> <runId> <task> [--no-downstream]
  timer-pump [--stack NAME]               deliver due schedules where Scheduler never fires (LocalStack)
      --endpoint URL                      talk to a rehearsal (or LocalStack) instead of AWS (or AIRLESS_AWS_ENDPOINT)

Rehearsal (the synthesized stack on this machine, IAM enforced, no Docker, no AWS):
  rehearse [--time-warp] [--follow] [--cdk-out DIR] [--state-dir DIR]   keep it up; prints the endpoint
  rehearse --scenario readme|faults|least-privilege [--json]           run scenarios and exit
`;

const OPTIONS = {
  out: { type: 'string' },
  dag: { type: 'string' },
  all: { type: 'boolean' },
  conf: { type: 'string' },
  'logical-date': { type: 'string' },
  'time-warp': { type: 'boolean' },
  json: { type: 'boolean' },
  quiet: { type: 'boolean' },
  concurrency: { type: 'string' },
  runs: { type: 'string' },
  signal: { type: 'string', multiple: true },
  payload: { type: 'string' },
  stack: { type: 'string' },
  try: { type: 'string' },
  'no-downstream': { type: 'boolean' },
  'dynamodb-endpoint': { type: 'string' },
  endpoint: { type: 'string' },
  scenario: { type: 'string', multiple: true },
  'cdk-out': { type: 'string' },
  'state-dir': { type: 'string' },
  follow: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

async function main(argv: string[]): Promise<number> {
  const { values: o, positionals: p } = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
  const [cmd, ...rest] = p;
  if (!cmd || o.help) {
    process.stdout.write(USAGE);
    return cmd || o.help ? 0 : 2;
  }
  const need = (n: number, what: string) => {
    if (rest.length < n) throw new UsageError(`airless ${cmd} needs ${what}\n\n${USAGE}`);
  };
  switch (cmd) {
    case 'build':
      need(1, '<dir>');
      return cmdBuild(rest[0], o.out);
    case 'dags':
      if (rest[0] !== 'list') throw new UsageError('usage: airless dags list <dir> [--json]');
      need(2, 'list <dir>');
      return cmdDagsList(rest[1], o.json ?? false);
    case 'run':
      need(1, '<dir>');
      return cmdRun(rest[0], {
        dag: o.dag, all: o.all, conf: o.conf, logicalDate: o['logical-date'], timeWarp: o['time-warp'],
        json: o.json, concurrency: o.concurrency, signal: o.signal, quiet: o.quiet, runs: o.runs,
      });
    case 'tasks':
      if (rest[0] === 'test') {
        need(4, 'test <dir> <dag> <task>');
        return cmdTasksTest(rest[1], rest[2], rest[3], { conf: o.conf, logicalDate: o['logical-date'] });
      }
      break;
    case 'dev':
      need(1, '<dir>');
      return cmdDev(rest[0], { concurrency: o.concurrency, dynamodbEndpoint: o['dynamodb-endpoint'] });
    case 'rehearse': {
      const { cmdRehearse } = await import('../lib/cli/rehearse.js');
      const code = await cmdRehearse({ scenarios: o.scenario, json: o.json, timeWarp: o['time-warp'], cdkOut: o['cdk-out'], stateDir: o['state-dir'], follow: o.follow });
      // Servers and threads are stopped; a lingering keep-alive socket must not hold the exit.
      setTimeout(() => process.exit(code), 200).unref();
      return code;
    }
    case 'signal':
      // To a local `airless dev --dynamodb-endpoint URL` rather than a deployed stack.
      if (o['dynamodb-endpoint']) {
        need(1, '<key>');
        return cmdLocalSignal(o['dynamodb-endpoint'], rest[0], o.payload);
      }
      break;
    default:
      break;
  }
  const { runAwsCommand } = await import('../lib/cli/aws.js');
  return runAwsCommand(cmd, rest, o);
}

// `airless run ... | head` closes the pipe early: that is not an error.
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw err;
});

main(process.argv.slice(2)).then(
  (code) => { process.exitCode = code; },
  (err) => {
    printError(err);
    process.exitCode = err instanceof TypeError && /Unknown option|argument/.test(String(err.message)) ? 2 : exitCodeFor(err);
  },
);
