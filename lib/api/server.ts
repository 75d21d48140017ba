/**
 * The API and UI server: Airflow's REST API v2 subset, the UI's own endpoints and the
 * single-page UI, on node:http, bound to 127.0.0.1 unless told otherwise, with a token
 * on every request.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { uiAssets } from '../ui/assets.js';
import { BACKEND_HEADER } from '../ui/dom.js';
import type { ApiBackend } from './backend.js';
import { authenticate, HttpError, problem, readJsonBody, sendHttpError, sendJson, tokenLogin } from './http.js';
import { Router } from './router.js';
import { apiRoutes } from './routes.js';
import { recordAudit } from './audit.js';

export interface ApiServerOptions {
  backend: ApiBackend;
  /** Access token; a random one when absent. */
  token?: string;
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 8080; 0 picks a free port. */
  port?: number;
  /** Errors that are not the client's fault (500s), for the terminal. */
  onError?: (err: unknown) => void;
}

export interface ApiServer {
  url: string;
  token: string;
  server: Server;
  close(): Promise<void>;
}

/** Paths answered without the token, as Airflow's spec gives them. */
const PUBLIC_PATHS = new Set(['/api/v2/version', '/api/v2/monitor/health']);

/** A random URL-safe token, as `airflow standalone` prints one at start. */
export function newToken(): string {
  return randomBytes(18).toString('base64url');
}

/**
 * Starts the server and resolves once it listens.
 *
 * @example
 * const api = await startApiServer({ backend: { ports: rt.ports, logs, name: 'local' }, port: 0 });
 * await fetch(`${api.url}/api/v2/dags`, { headers: { authorization: `Bearer ${api.token}` } });
 */
export async function startApiServer(opts: ApiServerOptions): Promise<ApiServer> {
  const token = opts.token ?? newToken();
  if (token.length < 8) throw new Error('--token must be at least 8 characters');
  const router = new Router(apiRoutes());
  const b = opts.backend;
  const server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://localhost');
      const isPage = url.pathname === '/' || url.pathname === '/index.html';
      try {
        if (isPage && tokenLogin(req, res, url, token)) return;
        // The page and its script hold no data and no credential: served without the token,
        // which the page reads from its own URL fragment (docs/adr/0028).
        if (isPage || url.pathname.startsWith('/assets/')) {
          const asset = await uiAssets(url.pathname);
          if (!asset) throw new HttpError(404, `path: no asset ${url.pathname}`);
          res.writeHead(200, {
            'content-type': asset.type, 'cache-control': 'no-store', 'x-frame-options': 'DENY', 'referrer-policy': 'no-referrer',
            'content-security-policy': "default-src 'self'; style-src 'self' 'unsafe-inline'; frame-ancestors 'none'",
          });
          res.end(asset.body);
          return;
        }
        // Airflow serves these two without credentials (no `security` in its spec): probes and load balancers.
        if (!PUBLIC_PATHS.has(url.pathname)) authenticate(req, token);
        // Which backend answers (`local`, `stack <name>`), for the UI's header: a response header,
        // as the spec's bodies have no field for it; only to callers holding the token.
        if (!PUBLIC_PATHS.has(url.pathname)) res.setHeader(BACKEND_HEADER, encodeURIComponent(b.name));
        const { route, params } = router.match(req.method ?? 'GET', url.pathname);
        const body = req.method === 'GET' ? {} : await readJsonBody(req);
        // Airflow's action_logging: recorded before the operation runs, whatever it then answers.
        if (req.method !== 'GET') await recordAudit(b, req.method ?? '', route.path, params, url, body);
        const out = await route.handle({ b, p: params, url, body, req, res });
        if (out !== undefined) sendJson(res, 200, out);
      } catch (err) {
        if (res.headersSent) { res.end(); return; }
        if (err instanceof HttpError) {
          if (isPage && err.status === 401) {
            res.writeHead(401, { 'content-type': 'text/html; charset=utf-8' });
            res.end('<!doctype html><title>Airless</title><p>Open this page with the access token printed at start: <code>/#token=…</code></p>');
            return;
          }
          sendHttpError(res, err);
          return;
        }
        opts.onError?.(err);
        problem(res, 500, `internal error: ${(err as Error)?.message ?? String(err)}`);
      }
    })();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 8080, opts.host ?? '127.0.0.1', () => resolve());
  });
  const addr = server.address() as AddressInfo;
  const host = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
  return {
    url: `http://${host}:${addr.port}`,
    token,
    server,
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}
