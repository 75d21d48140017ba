/**
 * A route table matched in order. Twenty-odd fixed paths with `{name}` segments do not
 * need a router library: a compiled regular expression per route is the whole job, and
 * node:http keeps the server free of dependencies.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ApiBackend } from './backend.js';
import { HttpError } from './http.js';

export interface RouteCtx {
  b: ApiBackend;
  /** Path parameters, URL-decoded. */
  p: Record<string, string>;
  url: URL;
  body: Record<string, unknown>;
  req: IncomingMessage;
  res: ServerResponse;
}

export interface Route {
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  /** Airflow-style path, `{name}` for a segment. */
  path: string;
  /** Returns the JSON body of a 200, or `undefined` when it wrote the response itself. */
  handle: (ctx: RouteCtx) => Promise<unknown>;
}

interface Compiled extends Route {
  re: RegExp;
  names: string[];
}

export class Router {
  private routes: Compiled[];
  constructor(routes: Route[]) {
    this.routes = routes.map((r) => {
      const names: string[] = [];
      const re = new RegExp(`^${r.path.replace(/\{(\w+)\}/g, (_m, n: string) => { names.push(n); return '([^/]+)'; })}$`);
      return { ...r, re, names };
    });
  }

  /** The route for a method and path; 404 when no path matches, 405 when only the method differs. */
  match(method: string, pathname: string): { route: Route; params: Record<string, string> } {
    let pathMatched = false;
    for (const r of this.routes) {
      const m = r.re.exec(pathname);
      if (!m) continue;
      pathMatched = true;
      if (r.method !== method) continue;
      const params: Record<string, string> = {};
      r.names.forEach((n, i) => {
        try {
          params[n] = decodeURIComponent(m[i + 1]);
        } catch {
          throw new HttpError(400, `${n}: malformed percent-encoding`);
        }
      });
      return { route: r, params };
    }
    if (pathMatched) throw new HttpError(405, `${method} is not allowed on ${pathname}`);
    throw new HttpError(404, `path: no endpoint ${pathname}`);
  }
}
