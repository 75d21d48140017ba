/**
 * Browser helpers of the UI: API calls (the token from the page's own storage), HTML escaping,
 * Airflow's state colours and date formatting.
 */

/** Airflow's default state colours (airflow.settings.STATE_COLORS). */
export const STATE_COLORS: Record<string, string> = {
  success: '#008000',
  failed: '#ff0000',
  running: '#00ff00',
  queued: '#808080',
  scheduled: '#d2b48c',
  up_for_retry: '#ffd700',
  up_for_reschedule: '#40e0d0',
  deferred: '#9370db',
  sensing: '#20b2aa',
  skipped: '#ff69b4',
  upstream_failed: '#ffa500',
  removed: '#d3d3d3',
  none: '#ffffff',
};

export function color(state: string | null | undefined): string {
  return STATE_COLORS[state ?? 'none'] ?? '#ffffff';
}

export class ApiError extends Error {}

/** The response header naming the backend that answered (`local`, `stack <name>`), URI-encoded. */
export const BACKEND_HEADER = 'x-airless-backend';

/** Shows the backend an answer names in the page's header (every API answer carries it). */
function showBackend(res: Response): void {
  const name = res.headers.get(BACKEND_HEADER);
  const el = typeof document === 'undefined' ? null : document.getElementById('backend');
  if (name !== null && el) el.textContent = decodeURIComponent(name);
}

const TOKEN_KEY = 'airless.token';

/**
 * Takes the token from the address (`/#token=…`, printed at start) into this tab's
 * sessionStorage and removes it from the address bar and the history. sessionStorage
 * belongs to this origin, port included: no page served from another port can read it,
 * and two UIs on two ports keep their own (docs/adr/0028). A cookie reached them all.
 */
export function takeToken(): void {
  const m = /^#token=([^&]*)(?:&(.*))?$/.exec(location.hash);
  if (!m) return;
  sessionStorage.setItem(TOKEN_KEY, decodeURIComponent(m[1]));
  history.replaceState(null, '', `${location.pathname}${location.search}#${m[2] ?? '/'}`);
}

function headers(extra: Record<string, string> = {}): Record<string, string> {
  const token = sessionStorage.getItem(TOKEN_KEY);
  return { accept: 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}), ...extra };
}

/** An error response as one line: problem JSON's detail, or the messages of a validation error. */
function failure(status: number, statusText: string, json: any): ApiError {
  if (status === 401) return new ApiError('Not signed in: open this page at the address printed at start (…/#token=…)');
  const d = json?.detail;
  return new ApiError(Array.isArray(d) ? d.map((x: { msg?: string }) => x.msg).join('; ') : d ?? `${status} ${statusText}`);
}

/** GET returning the body's text, for views that skip re-rendering unchanged data. */
export async function apiText(path: string): Promise<string> {
  const res = await fetch(path, { headers: headers(), credentials: 'omit' });
  showBackend(res);
  const text = await res.text();
  if (!res.ok) throw failure(res.status, res.statusText, JSON.parse(text || 'null'));
  return text;
}

export async function api<T = any>(path: string, init: { method?: string; body?: unknown } = {}): Promise<T> {
  const method = init.method ?? 'GET';
  const res = await fetch(path, {
    method, headers: headers(method === 'GET' ? {} : { 'content-type': 'application/json' }), credentials: 'omit',
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  showBackend(res);
  const text = await res.text();
  const json = text ? JSON.parse(text) : undefined;
  if (!res.ok) throw failure(res.status, res.statusText, json);
  return json as T;
}

const ESC: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
export function esc(v: unknown): string {
  return String(v ?? '').replace(/[&<>"']/g, (c) => ESC[c]);
}

export function fmtDate(iso: string | null | undefined): string {
  if (!iso) return '—';
  return iso.replace('T', ' ').replace(/\.\d+Z$/, 'Z').replace(/:00Z$/, 'Z');
}

export function fmtDuration(sec: number | null | undefined): string {
  if (sec === null || sec === undefined) return '—';
  if (sec < 1) return `${Math.round(sec * 1000)} ms`;
  if (sec < 120) return `${sec.toFixed(1)} s`;
  return `${Math.floor(sec / 60)} min ${Math.round(sec % 60)} s`;
}

export function badge(state: string | null | undefined): string {
  const s = state ?? 'none';
  const dark = ['success', 'failed', 'queued', 'deferred'].includes(s);
  return `<span class="badge" data-state="${esc(s)}" style="background:${color(s)};color:${dark ? '#fff' : '#000'}">${esc(s)}</span>`;
}

export function enc(s: string): string {
  return encodeURIComponent(s);
}

/** Shows a one-line message at the top of the page (errors from actions). */
export function flash(msg: string, kind: 'ok' | 'error' = 'ok'): void {
  const el = document.getElementById('flash');
  if (!el) return;
  el.textContent = msg;
  el.className = `flash ${kind}`;
  setTimeout(() => { if (el.textContent === msg) el.className = 'flash'; }, 6000);
}
