/**
 * Built-in sensor pokes that need I/O. The engine keeps `external_task` and `time`
 * (they need only the store and the clock); runtimes pass these in `Ports.sensors`.
 */
import type { SensorPoke } from '../engine/index.js';
import { fileSensor } from './file.js';
import { httpSensor, type HttpSensorOptions } from './http.js';
import { defaultS3Client, s3KeySensor, type S3ClientFactory, type S3Like } from './s3-key.js';

export { fileSensor, type FilePokeContext } from './file.js';
export { httpSensor, HttpSensorError, type HttpPokeContext, type HttpSensorOptions } from './http.js';
export { s3KeySensor, parseTarget, type S3ClientFactory, type S3KeyPokeContext, type S3Like } from './s3-key.js';

export interface BuiltinSensorOptions {
  /**
   * One shared S3 client for `s3_key` pokes without a `region` (an `S3Client` fits: the
   * poker Lambda's); a poke context with a `region` gets a client of that region.
   */
  s3?: S3Like;
  /** Or an S3 client per region (default: a lazily created `S3Client` per region). */
  s3Client?: S3ClientFactory;
  /** fetch for `http` (default: the global one). */
  fetch?: HttpSensorOptions['fetch'];
  /** Per-request timeout of `http` pokes (default 10 s). */
  httpTimeoutMs?: number;
}

/**
 * @example
 * const rt = new EmbeddedRuntime({ bundles, sensors: builtinSensors() });
 * // poker Lambda, sharing its client: builtinSensors({ s3: clients.s3 })
 */
export function builtinSensors(opts: BuiltinSensorOptions = {}): Record<string, SensorPoke> {
  return {
    file: fileSensor(),
    s3_key: s3KeySensor(opts.s3Client ?? (opts.s3 ? ({ region }) => (region === undefined ? opts.s3! : defaultS3Client({ region })) : undefined)),
    http: httpSensor({ fetch: opts.fetch, timeoutMs: opts.httpTimeoutMs }),
  };
}
