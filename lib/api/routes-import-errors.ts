/**
 * `get_import_errors`, `get_import_error`: the DAG files whose last build failed, from the
 * store (lib/engine/model/import-error-store.ts). `airless dev` records a reload that
 * failed and clears the records when the folder builds again; `airless push` refuses a
 * bundle with errors before anything is uploaded and records nothing, so a stack lists
 * none (what it runs built). The stack trace is the build's one-line message.
 */
import type { ImportErrorRecord } from '../engine/index.js';
import { HttpError, invalid } from './http.js';
import { likeMatcher, page, sorter } from './params.js';
import type { Route, RouteCtx } from './router.js';

const json = (e: ImportErrorRecord) => ({
  import_error_id: e.id, timestamp: new Date(e.at).toISOString(), filename: e.file, bundle_name: 'airless', stack_trace: e.message,
});

async function list({ b, url }: RouteCtx): Promise<unknown> {
  const pattern = url.searchParams.get('filename_pattern');
  const match = pattern === null ? () => true : likeMatcher(pattern);
  const all = (await b.ports.store.listImportErrors()).filter((e) => match(e.file)).map(json);
  all.sort(sorter<(typeof all)[number]>(url, 'id', {
    id: (e) => e.import_error_id, import_error_id: (e) => e.import_error_id, timestamp: (e) => e.timestamp, filename: (e) => e.filename,
    bundle_name: (e) => e.bundle_name, stacktrace: (e) => e.stack_trace,
  }));
  return { import_errors: page(url, all), total_entries: all.length };
}

async function one({ b, p }: RouteCtx): Promise<unknown> {
  if (!/^-?\d+$/.test(p.import_error_id)) throw invalid(['path', 'import_error_id'], `import_error_id: must be a whole number, got ${JSON.stringify(p.import_error_id)}`, p.import_error_id, 'int_parsing');
  const id = Number(p.import_error_id);
  const found = (await b.ports.store.listImportErrors()).find((e) => e.id === id);
  if (!found) throw new HttpError(404, `The ImportError with import_error_id: \`${id}\` was not found`);
  return json(found);
}

/**
 * @example
 * const routes = importErrorRoutes(); // registered in routes.ts
 */
export function importErrorRoutes(): Route[] {
  return [
    { method: 'GET', path: '/api/v2/importErrors', handle: list },
    { method: 'GET', path: '/api/v2/importErrors/{import_error_id}', handle: one },
  ];
}
