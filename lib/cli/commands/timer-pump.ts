import { stackCommand } from './stack.js';

export const timerPump = stackCommand({
  words: ['timer-pump'], args: [],
  summary: 'deliver due schedules where EventBridge Scheduler never fires (LocalStack)',
  details: 'Interval from AIRLESS_TIMER_PUMP_INTERVAL_S (default 5); one pass with AIRLESS_TIMER_PUMP_ONCE=1.',
});
