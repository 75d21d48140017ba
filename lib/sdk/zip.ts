/**
 * `zip(a, b, ...)`: Airflow's `XComArg.zip` as a function of task outputs (ADR 0021).
 */
import { InvalidDagError } from '../engine/index.js';
import { outputDraft, outputOf } from './outputs.js';
import { zipNode } from './taskflow.js';
import type { Output, ZipOptions, ZipPart, ZipTuple } from './taskflow-types.js';

/**
 * The outputs side by side: element i is the tuple of their i-th elements, as long as the
 * shortest; with `{ fillValue }` last, as long as the longest, the missing places holding
 * `fillValue`. Map over it (`pair.expand({ p: zip(a, b) })`) or pass it as an input.
 *
 * @example
 * const pairs = zip(names(), sizes());                      // Output<[string, number][]>
 * const all = zip(names(), sizes(), { fillValue: null });   // Output<[string | null, number | null][]>
 */
export function zip<P extends readonly ZipPart[]>(...parts: P): Output<ZipTuple<P>[]>;
export function zip<P extends readonly ZipPart[], F>(...args: [...P, ZipOptions<F>]): Output<ZipTuple<P, F>[]>;
export function zip(...args: unknown[]): unknown {
  const draft = args.map(outputDraft).find((d) => d !== undefined);
  if (!draft) throw new InvalidDagError('zip() takes the outputs of tasks (zip(names(), sizes())), got none');
  return outputOf(draft, zipNode(draft, args));
}
