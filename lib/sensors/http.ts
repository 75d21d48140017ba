/**
 * `http` sensor (Airflow's HttpSensor): true when the URL answers with an expected
 * status (200 by default). A 404 is "not yet" (Airflow's `response_error_codes_allowlist`);
 * any other status or a network error throws, which fails the try as any poke error does
 * (retries apply), or with `silentFail` is logged and counts as "not yet".
 */
import type { SensorPoke } from '../engine/index.js';
import { AirlessError, InvalidInputError } from '../engine/index.js';

/** Poke context of the `http` sensor. */
export interface HttpPokeContext {
  url: string;
  /** Default GET. */
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  /** Status (or statuses) that mean "ready". Default 200. */
  expectedStatus?: number | number[];
  /** When set, the body must also contain this text. */
  responseContains?: string;
  /** Per-request timeout in ms (default: the sensor's `timeoutMs` option, 10 s). */
  timeoutMs?: number;
}

export interface HttpSensorOptions {
  /** Default: the global fetch. */
  fetch?: typeof fetch;
  /** Default 10 000 ms. */
  timeoutMs?: number;
}

/** An HTTP answer other than the expected one (retryable: the next poke may see it). */
export class HttpSensorError extends AirlessError {}

/**
 * @example
 * const poke = httpSensor({ timeoutMs: 5_000 });
 * await poke({ url: 'https://api.example.com/ready', expectedStatus: [200, 204] }, { now: Date.now() });
 */
export function httpSensor(opts: HttpSensorOptions = {}): SensorPoke {
  const doFetch = opts.fetch ?? fetch;
  return async (raw) => {
    const pc = raw as unknown as HttpPokeContext;
    if (typeof pc.url !== 'string' || !/^https?:\/\//.test(pc.url)) {
      throw new InvalidInputError(`http sensor needs an http(s) "url" in its poke context, got ${JSON.stringify(pc.url)}`);
    }
    const expected = pc.expectedStatus === undefined ? [200] : [pc.expectedStatus].flat().map(Number);
    const timeoutMs = pc.timeoutMs ?? opts.timeoutMs ?? 10_000;
    let res: Response;
    try {
      res = await doFetch(pc.url, {
        method: pc.method ?? 'GET',
        headers: pc.headers,
        body: pc.body,
        signal: AbortSignal.timeout(timeoutMs),
        redirect: 'follow',
      });
    } catch (err) {
      const e = err as Error;
      const why = e.name === 'TimeoutError' ? `no answer within ${timeoutMs} ms` : (e.cause as Error)?.message ?? e.message;
      throw new HttpSensorError(`${pc.method ?? 'GET'} ${pc.url} failed: ${why}`, { cause: err, retryable: true });
    }
    if (!expected.includes(res.status)) {
      await res.body?.cancel();
      if (res.status === 404) return false;
      throw new HttpSensorError(`${pc.method ?? 'GET'} ${pc.url} answered HTTP ${res.status}, expected ${expected.join(' or ')}`, { retryable: true });
    }
    if (pc.responseContains === undefined) {
      await res.body?.cancel();
      return true;
    }
    return (await res.text()).includes(pc.responseContains);
  };
}
