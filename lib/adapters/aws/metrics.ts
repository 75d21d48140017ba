/**
 * Metrics for Lambda (CloudWatch EMF through Powertools) and in memory (benchmarks,
 * tests, the embedded runtime). Only low-cardinality names: a DAG or task id never
 * becomes a dimension, so the metric count stays fixed however many DAGs run.
 */
import { Metrics as PowertoolsMetrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import type { Metrics } from '../../engine/index.js';
import { METRIC_NAMESPACE, PUBLISHED_AS } from './metric-names.js';

/**
 * {@link Metrics} as CloudWatch embedded metric format. Only the names of
 * {@link PUBLISHED_AS} reach CloudWatch (under their published name); any other name is
 * dropped here. Counts are summed in memory and written once per {@link EmfMetrics.flush}
 * (call it at the end of each invocation), and a count that adds up to zero is not
 * written: an invocation with nothing to count publishes nothing, so an idle stack pays
 * for no metric (docs/adr/0024-nothing-at-idle.md). Timings keep every sample.
 *
 * @example
 * const metrics = new EmfMetrics();
 * metrics.count('TaskSucceeded');
 * metrics.count('dynamodb.requests'); // in process only: not published
 * metrics.timing('SchedulingLagMs', 1234);
 * metrics.flush();
 */
export class EmfMetrics implements Metrics {
  readonly powertools: PowertoolsMetrics;
  private counts = new Map<string, number>();

  constructor(opts: { namespace?: string; serviceName?: string; powertools?: PowertoolsMetrics } = {}) {
    this.powertools =
      opts.powertools ??
      new PowertoolsMetrics({ namespace: opts.namespace ?? METRIC_NAMESPACE, serviceName: opts.serviceName ?? 'airless' });
  }

  count(name: string, value = 1): void {
    const published = PUBLISHED_AS[name];
    if (published === undefined) return;
    this.counts.set(published, (this.counts.get(published) ?? 0) + value);
  }

  timing(name: string, ms: number): void {
    const published = PUBLISHED_AS[name];
    if (published !== undefined) this.powertools.addMetric(published, MetricUnit.Milliseconds, ms);
  }

  /** Writes the stored metrics to stdout as EMF; nothing is written when there are none. */
  flush(): void {
    for (const [name, value] of this.counts) if (value !== 0) this.powertools.addMetric(name, MetricUnit.Count, value);
    this.counts = new Map();
    if (this.powertools.hasStoredMetrics()) this.powertools.publishStoredMetrics();
  }
}

/** Summary of the timings of one name. */
export interface TimingSummary {
  n: number;
  totalMs: number;
  maxMs: number;
}

/**
 * {@link Metrics} kept in memory.
 *
 * @example
 * const metrics = new CountingMetrics();
 * metrics.count('sqs.requests', 2);
 * metrics.snapshot(); // { 'sqs.requests': 2 }
 */
export class CountingMetrics implements Metrics {
  readonly counters = new Map<string, number>();
  readonly timings = new Map<string, TimingSummary>();

  count(name: string, value = 1): void {
    this.counters.set(name, (this.counters.get(name) ?? 0) + value);
  }

  timing(name: string, ms: number): void {
    const t = this.timings.get(name) ?? { n: 0, totalMs: 0, maxMs: 0 };
    this.timings.set(name, { n: t.n + 1, totalMs: t.totalMs + ms, maxMs: Math.max(t.maxMs, ms) });
  }

  /** The counters as a plain object, sorted by name. */
  snapshot(): Record<string, number> {
    return Object.fromEntries([...this.counters].sort(([a], [b]) => a.localeCompare(b)));
  }

  /** Value of one counter (0 when never counted). */
  get(name: string): number {
    return this.counters.get(name) ?? 0;
  }

  reset(): void {
    this.counters.clear();
    this.timings.clear();
  }
}
