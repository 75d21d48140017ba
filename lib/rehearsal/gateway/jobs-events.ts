/**
 * EventBridge and the job services inside the gateway: the emulators, how each asks IAM
 * (through the same `Access` as every other call, so every decision is recorded), and the
 * routing of their requests to IAM checks and an answer.
 */
import type { IncomingMessage } from 'node:http';
import type { Access } from './access.js';
import { JobApiError, type JobHandling } from './jobs/api.js';
import { EventBridge } from './eventbridge/bus.js';
import { eventsRequest } from './eventbridge/http.js';
import type { GatewayOptions, Principal } from './index.js';
import { sessionArn } from './identify.js';
import { JOB_SERVICES, JobRunner, jobsRequest, type JobHooks } from './jobs/index.js';
import type { Service } from './errors.js';

export { JobApiError };

/**
 * @example
 * const extra = jobsAndEvents(options, access);
 * if (extra.serves(service)) ({ checks, serve } = extra.request(service, req, url, target, body, principal));
 */
export function jobsAndEvents(o: GatewayOptions, access: Access) {
  const scope = { region: o.region, accountId: o.accountId };
  const events = new EventBridge({
    ...scope,
    clock: o.clock,
    auth: {
      service: async (principal, action, resource, context) => (await access.checkService(principal, { action, resource, context })).result.allowed,
      role: async (roleArn, action, resource, context) => {
        const role = access.byName(roleArn);
        if (!role) return (access.refuse(roleArn, { action, resource }, 'UnknownRole'), false);
        if (role.trustPolicy) {
          const trust = await access.checkService('events.amazonaws.com', { action: 'sts:AssumeRole', resource: roleArn, context }, role.trustPolicy);
          if (!trust.result.allowed) return false;
        }
        return (await access.check(role, { action, resource })).result.allowed;
      },
    },
  });
  const jobs = new JobRunner({
    ...scope,
    clock: o.clock,
    events,
    authorizeAs: async (name, check) => {
      const p = access.byName(name);
      if (!p) return (access.refuse(name, check, 'UnknownPrincipal'), false);
      return (await access.check(p, check)).result.allowed;
    },
  });
  const hooks: JobHooks = {};
  return {
    events,
    jobs,
    hooks,
    serves: (service: Service) => service === 'events' || JOB_SERVICES.has(service),
    request(service: Service, req: IncomingMessage, url: URL, target: string, body: Buffer | undefined, principal: Principal): JobHandling {
      if (service === 'events') {
        const json = body && body.length ? JSON.parse(body.toString('utf8')) as Record<string, unknown> : {};
        const { checks, serve } = eventsRequest(target, json, scope, events);
        return { checks, serve: async () => serve() };
      }
      const caller = { name: principal.name, arn: principal.name === 'cli' ? principal.roleArn : sessionArn(principal.roleArn, principal.name) };
      return jobsRequest({ service, method: req.method ?? 'GET', path: url.pathname, query: url.searchParams, target, headers: req.headers, body, caller }, jobs, scope, hooks);
    },
  };
}
