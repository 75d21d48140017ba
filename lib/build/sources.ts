/**
 * `sources.json`, kept beside a bundle: each DAG file's text by its path in the DAG folder
 * (get_dag_source). Its own file, importing nothing but the engine's errors, so the
 * functions that read bundles from S3 never pull the builder (esbuild) into their bundle.
 */
import { BundleError } from '../engine/index.js';

/**
 * Parses a `sources.json` (file path to text), refusing anything else.
 *
 * @example
 * parseSources('{"etl.ts":"export default 1"}', 'v1'); // { 'etl.ts': 'export default 1' }
 */
export function parseSources(text: string, version: string): Record<string, string> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (cause) {
    throw new BundleError(`sources of bundle version "${version}" are not valid JSON`, { cause });
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed) || Object.values(parsed).some((v) => typeof v !== 'string')) {
    throw new BundleError(`sources of bundle version "${version}" are not a map of file to text`);
  }
  return parsed as Record<string, string>;
}
