/**
 * Browser helpers of the UI: API calls (cookie auth plus the CSRF header), HTML escaping,
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

/** GET returning the body's text, for views that skip re-rendering unchanged data. */
export async function apiText(path: string): Promise<string> {
  const res = await fetch(path, { headers: { accept: 'application/json' }, credentials: 'same-origin' });
  const text = await res.text();
  if (!res.ok) throw new ApiError(JSON.parse(text)?.detail ?? `${res.status} ${res.statusText}`);
  return text;
}

export async function api<T = any>(path: string, init: { method?: string; body?: unknown } = {}): Promise<T> {
  const method = init.method ?? 'GET';
  const headers: Record<string, string> = { accept: 'application/json' };
  if (method !== 'GET') {
    headers['content-type'] = 'application/json';
    headers['x-airless-csrf'] = '1';
  }
  const res = await fetch(path, { method, headers, credentials: 'same-origin', body: init.body === undefined ? undefined : JSON.stringify(init.body) });
  const text = await res.text();
  const json = text ? JSON.parse(text) : undefined;
  // A 422 carries FastAPI's list of { loc, msg }: show the messages.
  const detail = Array.isArray(json?.detail) ? json.detail.map((d: { msg?: string }) => d.msg).join('; ') : json?.detail;
  if (!res.ok) throw new ApiError(detail ?? `${res.status} ${res.statusText}`);
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
