/**
 * Scale (issue 22): one run of 1,000 and one of 10,000 independent tasks on the embedded
 * runtime, each in a process of its own (bench/scale-child.ts) so that its peak memory is
 * its own. Linear means the larger run takes about ten times as long, not a hundred.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const CHILD = fileURLToPath(new URL('../scale-child.ts', import.meta.url));

export interface ScaleRow {
  tasks: number;
  /** From trigger to the run's end; build and start-up not included. */
  wallMs: number;
  /** Resident memory after registration, before the run. */
  baseRssMb: number;
  /** Peak resident memory of the process (`maxRSS`). */
  peakRssMb: number;
  state: string;
}

export interface ScaleResult {
  runs: ScaleRow[];
  /** Wall time of the largest run over the smallest. */
  wallRatio: number;
  /** Tasks of the largest run over the smallest. */
  taskRatio: number;
}

function runChild(tasks: number, timeoutMs: number): Promise<ScaleRow> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, ['--import', 'tsx', CHILD, String(tasks)], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    proc.stdout.on('data', (d: Buffer) => { out += d.toString('utf8'); });
    const timer = setTimeout(() => proc.kill('SIGKILL'), timeoutMs);
    proc.on('close', (code) => {
      clearTimeout(timer);
      const line = out.trim().split('\n').pop() ?? '';
      if (code !== 0 || !line.startsWith('{')) {
        resolve({ tasks, wallMs: timeoutMs, baseRssMb: 0, peakRssMb: 0, state: code === null ? `not finished in ${timeoutMs / 1000} s` : `exit ${code}` });
        return;
      }
      try {
        const r = JSON.parse(line) as ScaleRow;
        resolve({ tasks, wallMs: r.wallMs, baseRssMb: r.baseRssMb, peakRssMb: r.peakRssMb, state: r.state });
      } catch (err) {
        reject(err);
      }
    });
  });
}

/**
 * @example
 * const s = await scaleBench([1_000, 10_000]);
 * s.wallRatio; // at most 12 for 10x the tasks
 */
export async function scaleBench(sizes: readonly number[] = [1_000, 10_000], timeoutMs = 600_000): Promise<ScaleResult> {
  const runs: ScaleRow[] = [];
  for (const n of sizes) runs.push(await runChild(n, timeoutMs));
  const first = runs[0]!;
  const last = runs[runs.length - 1]!;
  return {
    runs,
    wallRatio: Math.round((last.wallMs / Math.max(1, first.wallMs)) * 100) / 100,
    taskRatio: last.tasks / first.tasks,
  };
}
