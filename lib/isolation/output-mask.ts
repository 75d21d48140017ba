/**
 * Secrets masked on the process's own output (issue 19, defect 4). `ctx.log` masked what a
 * task had read, but `console.log`, `console.error` and `process.stdout.write` printed it
 * in clear, on the terminal and in CloudWatch. Airflow sends a task's stdout through its
 * logger, where the secrets masker filters every record; Airless does the same at the one
 * place all of it passes: the process's stdout and stderr, and `console` (which the Lambda
 * runtime replaces with its own writer). A worker thread's output reaches the main thread
 * through `process.stdout.write` (Node pipes it there), so isolated tries are covered too.
 *
 * The masker is the engine's (secrets-mask.ts): one registry per process, filled as tasks
 * read secrets. A secret split across two separate writes is not recognised (as Airflow's
 * masker sees one record at a time); a write of a line, or of a whole value, is.
 *
 * Also here: `--json` keeps stdout for its one document ({@link reserveStdout}): task output
 * and progress go to stderr, so `airless run --json | jq` always parses.
 */
import { format } from 'node:util';
import { hasSecrets, redact } from '../engine/index.js';

type Write = (chunk: unknown, ...rest: unknown[]) => boolean;

let installed = false;

/** The chunk with secrets masked, or the chunk itself (no secret, or not text). */
function masked(chunk: unknown, encoding: unknown): unknown {
  if (!hasSecrets()) return chunk;
  if (typeof chunk === 'string') return encoding === undefined || typeof encoding === 'function' || /^utf-?8$/i.test(String(encoding)) ? redact(chunk) : chunk;
  if (chunk instanceof Uint8Array) {
    const text = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength).toString('utf8');
    const out = redact(text);
    return out === text ? chunk : out;
  }
  return chunk;
}

function wrapStream(stream: NodeJS.WriteStream): void {
  const write = stream.write.bind(stream) as Write;
  stream.write = ((chunk: unknown, ...rest: unknown[]) => write(masked(chunk, rest[0]), ...rest)) as typeof stream.write;
}

const CONSOLE_METHODS = ['log', 'info', 'warn', 'error', 'debug', 'trace'] as const;

/**
 * Masks every secret a task has read in whatever this process writes from now on: stdout,
 * stderr and `console` (formatted first, then masked, then handed to the console in place,
 * so the Lambda runtime's request id and level prefix stay). Idempotent; installed when
 * the first bundle is loaded (isolated-bundle.ts), so every runtime that runs task code has it.
 *
 * @example
 * maskProcessOutput();
 * console.log(`token ${token}`); // token ***  (once the task has read it)
 */
export function maskProcessOutput(): void {
  if (installed) return;
  installed = true;
  wrapStream(process.stdout);
  wrapStream(process.stderr);
  const c = console as unknown as Record<string, (...args: unknown[]) => void>;
  for (const m of CONSOLE_METHODS) {
    const original = c[m].bind(console);
    c[m] = (...args: unknown[]) => (hasSecrets() ? original(redact(format(...args))) : original(...args));
  }
}

/**
 * Keeps stdout for one document: until `release()`, anything written to stdout (a task's
 * `console.log`, in process or from its thread, progress lines) goes to stderr, masked;
 * `write` puts the document itself on the real stdout.
 *
 * @example
 * const stdout = reserveStdout();
 * try { ... run the DAG ...; stdout.write(`${JSON.stringify(summary)}\n`); } finally { stdout.release(); }
 */
export function reserveStdout(): { write(text: string): void; release(): void } {
  maskProcessOutput();
  const own = Object.getOwnPropertyDescriptor(process.stdout, 'write');
  const toStdout = process.stdout.write.bind(process.stdout) as Write;
  const toStderr = process.stderr.write.bind(process.stderr) as Write;
  process.stdout.write = ((chunk: unknown, ...rest: unknown[]) => toStderr(chunk, ...rest)) as typeof process.stdout.write;
  return {
    write: (text) => { toStdout(text); },
    release: () => { if (own) Object.defineProperty(process.stdout, 'write', own); },
  };
}
