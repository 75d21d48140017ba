/**
 * `get_dag_source`: the text of the file that defines a DAG, as the build of the asked
 * version read it. The build keeps each DAG file's text in `sources.json` beside the bundle
 * (lib/build/bundle.ts); the bundle source serves it: the embedded runtime's from its local
 * versions folder, a stack's from `bundles/<version>/sources.json` in S3, uploaded by
 * `airless push` and read with the user's credentials (no function of the stack reads it).
 * Versions are numbered as `get_dag_versions` numbers them; without `version_number`, the
 * DAG's current version. A version kept without sources (an inline DAG, a bundle pushed by
 * an older Airless) answers `content: null`, as Airflow for a version without its code.
 */
import { BundleNotFoundError } from '../engine/index.js';
import { HttpError, invalid } from './http.js';
import type { Route, RouteCtx } from './router.js';
import { versionsOf } from './routes-dag-versions.js';

/** The answer's type from the Accept header, as Airflow reads it: JSON unless only text/plain is asked for; 406 for neither. */
function wantsText(accept: string | undefined): boolean {
  const a = accept ?? '*/*';
  if (a.startsWith('*/*') || a.includes('application/json')) return false;
  if (a.includes('text/plain')) return true;
  throw new HttpError(406, 'Only application/json or text/plain is supported');
}

async function source({ b, p, url, req, res }: RouteCtx): Promise<unknown> {
  const text = wantsText(req.headers.accept);
  const raw = url.searchParams.get('version_number');
  if (raw !== null && !/^-?\d+$/.test(raw)) throw invalid(['query', 'version_number'], `version_number: must be a whole number, got ${JSON.stringify(raw)}`, raw, 'int_parsing');
  const notFound = new HttpError(404, `The source code of the DAG ${p.dag_id}, version_number ${raw ?? 'None'} was not found`);
  const dag = await b.ports.store.getDag(p.dag_id);
  if (!dag) throw notFound;
  const versions = await versionsOf(b, dag);
  const version = raw === null ? versions.find((v) => v.bundleVersion === dag.bundleVersion) : versions.find((v) => v.number === Number(raw));
  if (!version) throw notFound;
  // The file as that version's build named it (a DAG may move between files); the current spec's when its manifest is gone.
  const manifest = await b.ports.bundles.manifest(version.bundleVersion).catch((e: unknown) => {
    if (e instanceof BundleNotFoundError) return undefined;
    throw e;
  });
  const file = manifest?.dags.find((d) => d.dagId === dag.dagId)?.file ?? dag.spec.file;
  // A source that keeps no files (inline DAGs) has no `sources`; a missing sources.json is `{}`; other failures are errors.
  const sources = manifest && b.ports.bundles.sources ? await b.ports.bundles.sources(version.bundleVersion) : {};
  const content = file && Object.hasOwn(sources, file) ? sources[file] : null;
  if (text) {
    res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' });
    res.end(content ?? '');
    return undefined;
  }
  return { content, dag_id: dag.dagId, version_number: version.number, dag_display_name: dag.spec.displayName ?? dag.dagId };
}

/**
 * @example
 * const routes = dagSourceRoutes(); // registered in routes.ts
 */
export function dagSourceRoutes(): Route[] {
  return [{ method: 'GET', path: '/api/v2/dagSources/{dag_id}', handle: source }];
}
