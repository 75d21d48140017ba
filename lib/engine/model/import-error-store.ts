/**
 * Import errors (part of the Store port): the DAG files whose last build failed, as
 * Airflow lists the files its DAG processor could not parse. `airless dev` records the
 * error of a reload that failed (it keeps serving the last good bundle) and clears them
 * when the folder builds again. One record per file: a new failure of the same file keeps
 * its id with the new message and time, so a client that holds an id keeps seeing it.
 */

/** A DAG file whose last build failed. */
export interface ImportErrorRecord {
  /** Positive, unique in the store, never reused. */
  id: number;
  /** The file's path in the DAG folder (`.` when the failure names no file). */
  file: string;
  /** One line: what the build reported. */
  message: string;
  /** When the build failed (epoch ms). */
  at: number;
}

export interface ImportErrorStore {
  /** Records that `file` failed to build; returns the record (the file's id when it failed before). */
  putImportError(file: string, message: string, at: number): Promise<ImportErrorRecord>;
  /** Forgets the errors of every file but those in `keep` (a build that succeeded keeps none). */
  clearImportErrors(keep?: readonly string[]): Promise<void>;
  /** The recorded errors, by id. */
  listImportErrors(): Promise<ImportErrorRecord[]>;
}
