/**
 * CPU time of the process's main thread alone (Linux: /proc/self/task/<pid>/stat), to
 * tell the main thread's share of an isolated try from its worker thread's.
 * `process.cpuUsage()` counts every thread; Node 20 has no per-thread figure.
 */
import { readFileSync } from 'node:fs';

const TICK_US = 10_000; // USER_HZ is 100 on Linux

/**
 * Main-thread CPU so far, µs, with a 10 ms resolution; undefined off Linux.
 *
 * @example
 * const t0 = mainThreadCpuUs(); work(); const used = mainThreadCpuUs()! - t0!;
 */
export function mainThreadCpuUs(): number | undefined {
  try {
    const stat = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces): state is field 3, utime 14, stime 15.
    const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(rest[11]) + Number(rest[12])) * TICK_US;
  } catch {
    return undefined;
  }
}
