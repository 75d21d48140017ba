/**
 * `file` sensor (Airflow's FileSensor): true when the path exists; a directory counts
 * only once it holds at least one entry, so an empty landing folder keeps waiting.
 */
import { readdir, stat } from 'node:fs/promises';
import type { SensorPoke } from '../engine/index.js';
import { InvalidInputError } from '../engine/index.js';

/** Poke context of the `file` sensor. `filepath` is accepted as Airflow spells it. */
export interface FilePokeContext {
  path?: string;
  filepath?: string;
}

/**
 * @example
 * const poke = fileSensor();
 * await poke({ path: '/data/in/2026-01-01.csv' }, { now: Date.now() }); // false until it lands
 */
export function fileSensor(): SensorPoke {
  return async (pc) => {
    const { path, filepath } = pc as FilePokeContext;
    const p = path ?? filepath;
    if (typeof p !== 'string' || p === '') {
      throw new InvalidInputError(`file sensor needs a "path" string in its poke context, got ${JSON.stringify(p)}`);
    }
    try {
      const s = await stat(p);
      if (!s.isDirectory()) return true;
      return (await readdir(p)).length > 0;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR') return false;
      throw err;
    }
  };
}
