/**
 * What the `paths` scenario relies on when it turns the tick off and on (UpdateSchedule
 * State DISABLED, then ENABLED): a disabled schedule neither fires nor moves the warped
 * clock, and re-enabling a rate schedule fires it at once, then every period from there.
 */
import { describe, expect, it } from 'vitest';
import { Scheduler } from '../../lib/rehearsal/gateway/scheduler/emulator.js';
import { nextScheduleFire } from '../../lib/rehearsal/schedules.js';

const T0 = Date.parse('2026-03-27T00:00:00Z');
const TICK = { Name: 'tick', ScheduleExpression: 'rate(1 minute)', FlexibleTimeWindow: { Mode: 'OFF' }, Target: { Arn: 'arn:aws:lambda:us-east-1:000000000000:function:tick', RoleArn: 'arn:aws:iam::000000000000:role/invoker' } };
const minutes = (fires: { fireTime: number }[]) => fires.map((f) => (f.fireTime - T0) / 60_000);

describe('a disabled schedule in the Scheduler emulator', () => {
  it('does not fire or set the next warp while disabled, and fires at once when enabled again', () => {
    let t = T0;
    const s = new Scheduler({ region: 'us-east-1', accountId: '000000000000', clock: () => t, authorizeFire: async () => true });
    s.create(TICK);
    expect(minutes(s.dueFires(t))).toEqual([0]);

    s.update({ ...TICK, State: 'DISABLED' });
    t = T0 + 5 * 60_000;
    expect(s.dueFires(t)).toEqual([]);
    expect(s.nextDue()).toBeUndefined();
    expect(nextScheduleFire(s.listSchedules(), t)).toBeNull();

    t += 30_000;
    s.update({ ...TICK, State: 'ENABLED' });
    expect(minutes(s.dueFires(t))).toEqual([5.5]);
    t += 60_000;
    expect(minutes(s.dueFires(t))).toEqual([6.5]);
  });
});
