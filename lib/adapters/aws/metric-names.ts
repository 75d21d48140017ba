/**
 * The custom CloudWatch metrics Airless publishes, in one place: the functions' EMF output
 * (metrics.ts) publishes only these, and the stack's dashboard graphs them
 * (lib/infra/monitoring.ts). Each name is billed ($0.30 a metric-month, prorated by the
 * hour) for every hour it receives a data point, so the list is short, its only dimension
 * is `service=airless`, and nothing is published when there is nothing to count
 * (docs/adr/0024-nothing-at-idle.md). No CDK here: the Lambda bundles import it.
 */

/** Namespace of the custom (EMF) metrics. */
export const METRIC_NAMESPACE = 'Airless';

/** The metrics CloudWatch receives. */
export const METRIC_NAMES = [
  'TaskSucceeded',
  'TaskFailed',
  'TaskRetried',
  'RunsCreated',
  'RunsSucceeded',
  'RunsFailed',
  'SchedulingLagMs',
  'TasksDeferred',
  'TriggersFired',
  'SensorsWaiting',
  'Pokes',
  'LostRaces',
  'Recovered',
  'MessagesDropped',
  'CallbacksFailed',
] as const;
export type MetricName = (typeof METRIC_NAMES)[number];

/**
 * Counter or timing name in the code → the CloudWatch metric it is published as. The
 * safety net's repairs share one metric (`Recovered`: work reconcile, the tick or the
 * jobs' safety net picked up after a lost worker, message or event); their detail is in
 * the logs. Messages and events dropped as unusable share `MessagesDropped`. A name not listed here is counted
 * in process only (the bench and tests read it): the adapters' request counts duplicate
 * the metrics AWS publishes for free per table, queue and schedule group.
 */
export const PUBLISHED_AS: Readonly<Record<string, MetricName>> = {
  TaskSucceeded: 'TaskSucceeded',
  TaskFailed: 'TaskFailed',
  TaskRetried: 'TaskRetried',
  RunsCreated: 'RunsCreated',
  RunsSucceeded: 'RunsSucceeded',
  RunsFailed: 'RunsFailed',
  SchedulingLagMs: 'SchedulingLagMs',
  TasksDeferred: 'TasksDeferred',
  TriggersFired: 'TriggersFired',
  SensorsWaiting: 'SensorsWaiting',
  Pokes: 'Pokes',
  LostRaces: 'LostRaces',
  Requeued: 'Recovered',
  ExpiredLeases: 'Recovered',
  RepairedFollows: 'Recovered',
  TimersRecovered: 'Recovered',
  CallbacksRecovered: 'Recovered',
  PokerRecovered: 'Recovered',
  JobsResumedBySafetyNet: 'Recovered',
  MessagesDropped: 'MessagesDropped',
  // An EventBridge event that is not one: dropped like a worker's unretryable message.
  EventsDropped: 'MessagesDropped',
  CallbacksFailed: 'CallbacksFailed',
};
