/** CLI commands against a deployed stack (filled in with the deploy work). */
import { UsageError } from './output.js';

export async function runAwsCommand(cmd: string, _args: string[], _o: Record<string, unknown>): Promise<number> {
  throw new UsageError(`unknown command ${cmd}; see airless --help`);
}
