/**
 * The build cache under `.airless/cache/`: a step's verdict (the type-check passed) or
 * output (the bundle's bytes) kept with the sha256 of every file the step read, and a key
 * for what else decides its result (Airless, TypeScript and esbuild versions, the
 * tsconfig found, the DAG files and the folder's listing, the options that change the
 * output). A later build reuses the entry only when the key is the same and every file
 * still hashes the same; any edit, anywhere the step looked, makes it run again.
 *
 * An entry is written only when no file it lists changed after the step began (an edit
 * during a build must not be recorded as built), and every write is a rename, so
 * concurrent builds of one folder never read half an entry.
 */
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';

interface StoredEntry<T> {
  key: string;
  /** Absolute path -> sha256 of the bytes the step read. */
  inputs: Record<string, string>;
  data: T;
}

/** The CLI's cache folder: `.airless/cache` under the working directory (ignored by git). */
export function defaultCacheDir(): string {
  return path.resolve('.airless', 'cache');
}

/** Entries kept at most (two per DAG folder); a build past this drops the least recently written (tests push many temporary folders). */
const MAX_ENTRIES = 32;

/** sha256 (hex) of a JSON-able value: the part of a key that is not a file. */
export function cacheKey(parts: unknown): string {
  return createHash('sha256').update(JSON.stringify(parts)).digest('hex');
}

/**
 * Every path under `dir` (relative, sorted), skipping node_modules, hidden entries,
 * cdk.out and build output folders: a new file that could change how an import
 * resolves changes the listing, and so the key.
 *
 * @example
 * folderListing('dags'); // ['_helpers.ts', 'etl.ts', 'team/', 'team/report.ts']
 */
export function folderListing(dir: string): string[] {
  const out: string[] = [];
  const walk = (rel: string) => {
    let entries;
    try {
      entries = readdirSync(path.join(dir, rel), { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      if (e.name.startsWith('.') || e.name === 'node_modules' || e.name === 'cdk.out') continue;
      const child = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) {
        if (existsSync(path.join(dir, child, 'bundle.mjs')) && existsSync(path.join(dir, child, 'manifest.json'))) continue;
        out.push(`${child}/`);
        walk(child);
      } else out.push(child);
    }
  };
  walk('');
  return out.sort();
}

/**
 * One build's view of the cache folder: file hashes are computed once per instance, so
 * make a new one per build.
 *
 * @example
 * const cache = new BuildCache('.airless/cache');
 * if (!(await cache.lookup('typecheck-1a2b', key))) { const since = Date.now(); check(); await cache.store('typecheck-1a2b', key, filesRead, since, true); }
 */
export class BuildCache {
  private readonly hashes = new Map<string, Promise<string | undefined>>();

  constructor(readonly dir: string) {}

  /** A side file of an entry (the bundle's bytes, TypeScript's .tsbuildinfo). */
  file(name: string, ext: string): string {
    return path.join(this.dir, `${name}${ext}`);
  }

  /** sha256 of a file's bytes (undefined when it cannot be read), once per instance. */
  hashFile(file: string): Promise<string | undefined> {
    let h = this.hashes.get(file);
    if (!h) {
      h = readFile(file).then((b) => createHash('sha256').update(b).digest('hex'), () => undefined);
      this.hashes.set(file, h);
    }
    return h;
  }

  /** The entry's data when its key matches and every file it read is unchanged; else undefined. */
  async lookup<T>(name: string, key: string): Promise<T | undefined> {
    let entry: StoredEntry<T>;
    try {
      entry = JSON.parse(await readFile(this.file(name, '.json'), 'utf8')) as StoredEntry<T>;
    } catch {
      return undefined;
    }
    if (entry.key !== key || typeof entry.inputs !== 'object' || entry.inputs === null) return undefined;
    const files = Object.entries(entry.inputs);
    const same = await Promise.all(files.map(async ([f, sha]) => (await this.hashFile(f)) === sha));
    return same.every(Boolean) ? entry.data : undefined;
  }

  /**
   * Records `data` for `key` with the files the step read, unless one of them changed at
   * or after `since` (when the step began) or cannot be read. Returns whether it did.
   */
  async store<T>(name: string, key: string, files: Iterable<string>, since: number, data: T): Promise<boolean> {
    const inputs: Record<string, string> = {};
    for (const f of new Set(files)) {
      let mtimeMs: number;
      try {
        mtimeMs = (await stat(f)).mtimeMs;
      } catch {
        return false;
      }
      const sha = await this.hashFile(f);
      if (sha === undefined || mtimeMs >= since) return false;
      inputs[f] = sha;
    }
    await this.writeAtomic(this.file(name, '.json'), JSON.stringify({ key, inputs, data } satisfies StoredEntry<T>));
    await this.prune();
    return true;
  }

  /** Drops the oldest entries (with their side files) beyond {@link MAX_ENTRIES}. */
  private async prune(): Promise<void> {
    let names: string[];
    try {
      names = await readdir(this.dir);
    } catch {
      return;
    }
    const entries = names.filter((n) => n.endsWith('.json'));
    if (entries.length <= MAX_ENTRIES) return;
    const aged = await Promise.all(entries.map(async (n) => ({ n, t: (await stat(path.join(this.dir, n)).catch(() => undefined))?.mtimeMs ?? 0 })));
    aged.sort((a, b) => a.t - b.t);
    for (const { n } of aged.slice(0, aged.length - MAX_ENTRIES)) {
      const base = n.slice(0, -'.json'.length);
      for (const f of names.filter((x) => x === n || x.startsWith(`${base}.`))) await rm(path.join(this.dir, f), { force: true });
    }
  }

  /** Writes a file by renaming a complete temporary one into place. */
  async writeAtomic(file: string, content: string | Uint8Array): Promise<void> {
    await mkdir(path.dirname(file), { recursive: true });
    const tmp = `${file}.${randomBytes(4).toString('hex')}.tmp`;
    try {
      await writeFile(tmp, content);
      await rename(tmp, file);
    } finally {
      await rm(tmp, { force: true });
    }
  }
}
