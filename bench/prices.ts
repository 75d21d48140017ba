/**
 * AWS list prices used by the cost report: they live in lib/engine/rules/prices.ts (the
 * backfill's cost preview reads them too), each with its source. Bench-only figures below.
 */
export { PRICES, usd, type Price } from '../lib/engine/index.js';

/** Hours in the month MWAA's published monthly figure assumes (730 h). */
export const HOURS_PER_MONTH = 730;

/** Step Functions Standard: state transitions per task (a Task state entered and left). */
export const STEP_FUNCTIONS_TRANSITIONS_PER_TASK = { low: 2, high: 3 } as const;
