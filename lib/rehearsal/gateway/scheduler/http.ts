/**
 * The Scheduler REST-JSON API (the paths `@aws-sdk/client-scheduler` calls) on top of the
 * emulator. Timestamps travel as epoch seconds, as the protocol does.
 */
import { errorResponse, GatewayError, type GatewayResponse } from '../errors.js';
import type { Scheduler } from './emulator.js';
import { SchedulerApiError } from './errors.js';
import type { Schedule, ScheduleInput } from './types.js';

export type SchedulerOp =
  | 'CreateSchedule' | 'UpdateSchedule' | 'GetSchedule' | 'DeleteSchedule' | 'ListSchedules'
  | 'CreateScheduleGroup' | 'GetScheduleGroup' | 'DeleteScheduleGroup' | 'ListScheduleGroups';

export interface SchedulerRoute {
  op: SchedulerOp;
  name?: string;
  group?: string;
  query: URLSearchParams;
  body: Record<string, unknown>;
}

/**
 * @example
 * schedulerRoute('GET', '/schedules/tick', new URLSearchParams('groupName=sys'), {})
 * // { op: 'GetSchedule', name: 'tick', group: 'sys', ... }
 */
export function schedulerRoute(method: string, path: string, query: URLSearchParams, body: Record<string, unknown>): SchedulerRoute {
  const parts = path.split('/').filter(Boolean).map(decodeURIComponent);
  const [kind, name] = parts;
  const route = (op: SchedulerOp, group?: string): SchedulerRoute => ({ op, ...(name !== undefined ? { name } : {}), ...(group !== undefined ? { group } : {}), query, body });
  if (kind === 'schedules' && parts.length === 1 && method === 'GET') return route('ListSchedules');
  if (kind === 'schedules' && parts.length === 2) {
    const group = method === 'POST' || method === 'PUT' ? (body.GroupName as string | undefined) ?? 'default' : query.get('groupName') ?? 'default';
    const op = ({ POST: 'CreateSchedule', PUT: 'UpdateSchedule', GET: 'GetSchedule', DELETE: 'DeleteSchedule' } as const)[method as 'POST'];
    if (op) return route(op, group);
  }
  if (kind === 'schedule-groups' && parts.length === 1 && method === 'GET') return route('ListScheduleGroups');
  if (kind === 'schedule-groups' && parts.length === 2) {
    const op = ({ POST: 'CreateScheduleGroup', GET: 'GetScheduleGroup', DELETE: 'DeleteScheduleGroup' } as const)[method as 'POST'];
    if (op) return route(op, name);
  }
  throw new GatewayError(`the Scheduler emulator does not serve ${method} ${path}`);
}

const seconds = (ms: number | undefined) => (ms === undefined ? undefined : ms / 1000);

function describe(s: Schedule): Record<string, unknown> {
  return {
    ...s,
    StartDate: seconds(s.StartDate),
    EndDate: seconds(s.EndDate),
    CreationDate: seconds(s.CreationDate),
    LastModificationDate: seconds(s.LastModificationDate),
  };
}

const ok = (body: unknown): GatewayResponse => ({ status: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

/** Serve one routed request; API errors become the SDK's ConflictException, ResourceNotFoundException, ValidationException. */
export function serveScheduler(s: Scheduler, r: SchedulerRoute): GatewayResponse {
  try {
    const input = () => ({ ...(r.body as unknown as ScheduleInput), Name: r.name! });
    const num = (k: string) => (r.query.has(k) ? Number(r.query.get(k)) : undefined);
    const opt = (k: string) => r.query.get(k) ?? undefined;
    switch (r.op) {
      case 'CreateSchedule':
        return ok({ ScheduleArn: s.create(input()).Arn });
      case 'UpdateSchedule':
        return ok({ ScheduleArn: s.update(input()).Arn });
      case 'GetSchedule':
        return ok(describe(s.get(r.group!, r.name!)));
      case 'DeleteSchedule':
        s.delete(r.group!, r.name!);
        return ok({});
      case 'ListSchedules': {
        const { items, NextToken } = s.list({ GroupName: opt('ScheduleGroup'), NamePrefix: opt('NamePrefix'), State: opt('State'), MaxResults: num('MaxResults'), NextToken: opt('NextToken') } as never);
        const Schedules = items.map((x) => ({ Arn: x.Arn, Name: x.Name, GroupName: x.GroupName, State: x.State, CreationDate: seconds(x.CreationDate), LastModificationDate: seconds(x.LastModificationDate), Target: { Arn: x.Target.Arn } }));
        return ok({ Schedules, ...(NextToken ? { NextToken } : {}) });
      }
      case 'CreateScheduleGroup':
        s.createGroup(r.name!);
        return ok({ ScheduleGroupArn: s.groupArn(r.name!) });
      case 'GetScheduleGroup': {
        const g = s.getGroup(r.name!);
        return ok({ ...g, CreationDate: seconds(g.CreationDate), LastModificationDate: seconds(g.LastModificationDate) });
      }
      case 'DeleteScheduleGroup':
        s.deleteGroup(r.name!);
        return ok({});
      case 'ListScheduleGroups': {
        const { items, NextToken } = s.listGroups({ NamePrefix: opt('NamePrefix'), MaxResults: num('MaxResults'), NextToken: opt('NextToken') } as never);
        const ScheduleGroups = items.map((g) => ({ ...g, CreationDate: seconds(g.CreationDate), LastModificationDate: seconds(g.LastModificationDate) }));
        return ok({ ScheduleGroups, ...(NextToken ? { NextToken } : {}) });
      }
    }
  } catch (err) {
    if (err instanceof SchedulerApiError) return errorResponse('scheduler', err.status, err.code, err.message);
    throw err;
  }
}
