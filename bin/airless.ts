/**
 * The `airless` CLI. Exit codes: 0 ok, 1 a run or task failed, 2 invalid input
 * (usage, invalid DAG, type error, unknown DAG or task, missing bundle).
 */
import { main } from '../lib/cli/main.js';

// `airless run ... | head` closes the pipe early: that is not an error.
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw err;
});

process.exitCode = await main(process.argv.slice(2));
