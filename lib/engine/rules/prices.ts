/**
 * AWS list prices (us-east-1, checked 2026-11) the cost figures use: the one place prices
 * live, each with its source (copied from the project's PRICES.md). The bench
 * (bench/prices.ts) and the backfill's cost preview both read them.
 */

export interface Price {
  /** US dollars per `per` units. */
  usd: number;
  per: number;
  unit: string;
  source: string;
}

const DYNAMODB = 'AWS DynamoDB on-demand pricing, https://aws.amazon.com/dynamodb/pricing/on-demand/ (after the 2024-11-01 cut)';
const LAMBDA = 'AWS Lambda pricing, https://aws.amazon.com/lambda/pricing/';

export const PRICES = {
  dynamoWrite: { usd: 0.625, per: 1e6, unit: 'write request unit (1 KB; a failed conditional write still consumes units)', source: DYNAMODB },
  dynamoRead: { usd: 0.125, per: 1e6, unit: 'read request unit (strongly consistent 4 KB = 1, eventually consistent = 0.5)', source: DYNAMODB },
  sqsRequest: { usd: 0.4, per: 1e6, unit: 'SQS standard request (a batch of up to 10 messages is one request)', source: 'AWS SQS pricing, https://aws.amazon.com/sqs/pricing/' },
  lambdaRequest: { usd: 0.2, per: 1e6, unit: 'Lambda invocation', source: LAMBDA },
  lambdaGbSecondArm: { usd: 0.0000133334, per: 1, unit: 'Lambda GB-second on arm64', source: LAMBDA },
  lambdaGbSecondX86: { usd: 0.0000166667, per: 1, unit: 'Lambda GB-second on x86_64', source: LAMBDA },
  schedulerInvocation: { usd: 1.0, per: 1e6, unit: 'EventBridge Scheduler invocation (first 14 million a month free)', source: 'AWS EventBridge pricing, https://aws.amazon.com/eventbridge/pricing/' },
  stepFunctionsTransition: { usd: 0.025, per: 1e3, unit: 'Step Functions Standard state transition', source: 'AWS Step Functions pricing, https://aws.amazon.com/step-functions/pricing/' },
  cloudwatchMetricMonth: { usd: 0.3, per: 1, unit: 'CloudWatch custom metric-month (each dimension combination is a metric; prorated by the hour)', source: 'AWS CloudWatch pricing, https://aws.amazon.com/cloudwatch/pricing/' },
  cloudwatchAlarmMonth: { usd: 0.1, per: 1, unit: 'CloudWatch standard-resolution alarm-month', source: 'AWS CloudWatch pricing, https://aws.amazon.com/cloudwatch/pricing/' },
  mwaaSmallHour: { usd: 0.49, per: 1, unit: 'MWAA mw1.small environment-hour (runs idle or not)', source: 'AWS MWAA pricing, https://aws.amazon.com/managed-workflows-for-apache-airflow/pricing/' },
} as const satisfies Record<string, Price>;

export type PriceItem = keyof typeof PRICES;

/**
 * Dollars for `units` of an item.
 *
 * @example
 * usd('sqsRequest', 1e6); // 0.4
 */
export function usd(item: PriceItem, units: number): number {
  const p: Price = PRICES[item];
  return (p.usd / p.per) * units;
}
