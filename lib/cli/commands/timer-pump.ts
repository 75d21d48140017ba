import { COMMON } from '../options.js';
import type { Command } from '../registry.js';
import { ENDPOINT, onStack } from './stack.js';

export const timerPump: Command = {
  words: ['timer-pump'], args: [], group: 'stack',
  summary: 'deliver due schedules where EventBridge Scheduler never fires (LocalStack)',
  details: 'Interval from AIRLESS_TIMER_PUMP_INTERVAL_S (default 5); one pass with AIRLESS_TIMER_PUMP_ONCE=1.',
  options: { stack: COMMON.stack, endpoint: ENDPOINT },
  run: (_a, o, io) => onStack(o, io, async (ctx) => {
    const { runTimerPump } = await import('../aws.js');
    return runTimerPump(ctx, io.env);
  }),
};
