/**
 * What orchestration costs per task and per run, as `npm run bench -- --only backfill`
 * measures it with the real adapters (DynamoDB Local, local-aws-sqs), and the estimate a
 * backfill's dry run prints from it. The figures between the `measured` markers are
 * written by `npm run bench -- --only backfill --update-cost-model`: update them there,
 * not by hand, when the hot path's writes change.
 *
 * The estimate is orchestration only (DynamoDB, SQS, Lambda requests, Scheduler) plus,
 * when the store holds the DAG's recent tries, Lambda duration from their lengths. It
 * assumes every message is its own worker invocation (a quiet queue); under load Lambda
 * batches up to 10 messages, so the figure is an upper bound on those two items.
 */
import { PRICES, usd } from './prices.js';

/** Orchestration requests and capacity units of one unit of work. */
export interface RequestCost {
  wcu: number;
  rcu: number;
  dynamoRequests: number;
  sqsRequests: number;
  lambdaInvocations: number;
  schedulerCalls: number;
}

export interface CostModel {
  /** One more task in a run (the 100-task chain's marginal task). */
  perTask: RequestCost;
  /** A run's own work beyond its tasks: its creation, start and end. */
  perRun: RequestCost;
  /** A backfill's own work per run: its step, the message its run's end sends, its advance. */
  perBackfillRun: RequestCost;
  /** When and how the figures were measured. */
  measured: string;
}

// measured:begin (written by `npm run bench -- --only backfill --update-cost-model`)
export const COST_MODEL: CostModel = {
  "perTask": { "wcu": 3, "rcu": 1.1, "dynamoRequests": 4, "sqsRequests": 3, "lambdaInvocations": 1, "schedulerCalls": 0 },
  "perRun": { "wcu": 22, "rcu": 8, "dynamoRequests": 14, "sqsRequests": 0, "lambdaInvocations": 0, "schedulerCalls": 0 },
  "perBackfillRun": { "wcu": 3.8, "rcu": 2, "dynamoRequests": 1.6, "sqsRequests": 3, "lambdaInvocations": 1, "schedulerCalls": 0 },
  "measured": "2026-11-25, npm run bench -- --only backfill (DynamoDB Local, local-aws-sqs)"
};
// measured:end

/** Memory of a worker Lambda unless the stack says otherwise (MB): the duration estimate's GB. */
export const DEFAULT_WORKER_MEMORY_MB = 1024;

export interface CostEstimate {
  /** Task instances the runs create (a mapped task counts once: its width is known only when it runs). */
  tasks: number;
  /** Orchestration requests: DynamoDB, SQS, Lambda invocations, Scheduler. An estimate. */
  requests: number;
  /** Dollars at list prices: orchestration, plus Lambda duration when known. An estimate. */
  usd: number;
  parts: {
    orchestrationUsd: number;
    /** Lambda GB-seconds from the DAG's recent tries; undefined when the store has none. */
    gbSeconds?: number;
    durationUsd?: number;
    wcu: number;
    rcu: number;
  };
}

const total = (c: RequestCost) => c.dynamoRequests + c.sqsRequests + c.lambdaInvocations + c.schedulerCalls;

function priced(c: RequestCost): number {
  return usd('dynamoWrite', c.wcu) + usd('dynamoRead', c.rcu) + usd('sqsRequest', c.sqsRequests) +
    usd('lambdaRequest', c.lambdaInvocations) + usd('schedulerInvocation', c.schedulerCalls);
}

function times(c: RequestCost, n: number): RequestCost {
  return {
    wcu: c.wcu * n, rcu: c.rcu * n, dynamoRequests: c.dynamoRequests * n, sqsRequests: c.sqsRequests * n,
    lambdaInvocations: c.lambdaInvocations * n, schedulerCalls: c.schedulerCalls * n,
  };
}

function plus(...cs: RequestCost[]): RequestCost {
  return cs.reduce((a, c) => ({
    wcu: a.wcu + c.wcu, rcu: a.rcu + c.rcu, dynamoRequests: a.dynamoRequests + c.dynamoRequests, sqsRequests: a.sqsRequests + c.sqsRequests,
    lambdaInvocations: a.lambdaInvocations + c.lambdaInvocations, schedulerCalls: a.schedulerCalls + c.schedulerCalls,
  }));
}

/**
 * The cost of `runs` backfilled runs of `tasksPerRun` tasks each; `gbSecondsPerRun` (the
 * DAG's recent tries, when known) adds Lambda duration.
 *
 * @example
 * estimateBackfillCost({ runs: 31, tasksPerRun: 5 }).usd; // orchestration dollars for a month of a 5-task daily DAG
 */
export function estimateBackfillCost(input: { runs: number; tasksPerRun: number; gbSecondsPerRun?: number }, model: CostModel = COST_MODEL): CostEstimate {
  const perRun = plus(model.perRun, model.perBackfillRun, times(model.perTask, input.tasksPerRun));
  const all = times(perRun, input.runs);
  const orchestrationUsd = priced(all);
  const gbSeconds = input.gbSecondsPerRun === undefined ? undefined : input.gbSecondsPerRun * input.runs;
  const durationUsd = gbSeconds === undefined ? undefined : gbSeconds * (PRICES.lambdaGbSecondArm.usd / PRICES.lambdaGbSecondArm.per);
  return {
    tasks: input.runs * input.tasksPerRun,
    requests: Math.round(total(all)),
    usd: orchestrationUsd + (durationUsd ?? 0),
    parts: {
      orchestrationUsd, wcu: all.wcu, rcu: all.rcu,
      ...(gbSeconds === undefined ? {} : { gbSeconds, durationUsd }),
    },
  };
}
