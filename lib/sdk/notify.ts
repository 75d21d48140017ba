/**
 * Built-in notifiers, usable wherever a callback is (`onFailure: notify.webhook({...})`).
 * They are data, not code: the manifest carries them, and the worker renders their
 * templates (`{{ dag_id }}`, `{{ task_id }}`, `{{ run_id }}`, `{{ ds }}`, `{{ state }}`,
 * `{{ event }}`, `{{ error }}`, `{{ var.value.x }}`, `{{ conn.x.host }}`...) and sends them, so a
 * DAG bundle never carries an AWS SDK client.
 */
import { InvalidDagError } from '../engine/index.js';

/** What `notify.sns` and `notify.webhook` return. */
export type NotifierDefinition =
  | { readonly __airless: 'notifier'; readonly type: 'sns'; readonly topicArn: string; readonly message: string; readonly subject?: string }
  | { readonly __airless: 'notifier'; readonly type: 'webhook'; readonly url: string; readonly body?: unknown; readonly headers?: Record<string, string> };

function need(what: string, field: string, v: unknown): void {
  if (typeof v !== 'string' || v.length === 0) throw new InvalidDagError(`${what}: ${field} must be a non-empty string, got ${JSON.stringify(v)}`);
}

/**
 * Publishes to an SNS topic (the stack grants sns:Publish on the topics named in its
 * `notificationTopicArns` prop).
 *
 * @example
 * dag('etl', { onFailure: notify.sns({ topicArn: 'arn:aws:sns:eu-west-1:123456789012:alerts', message: '{{ dag_id }} failed: {{ failed_tasks }}' }) }, ...);
 */
function sns(o: { topicArn: string; message: string; subject?: string }): NotifierDefinition {
  need('notify.sns', 'topicArn', o?.topicArn);
  need('notify.sns', 'message', o?.message);
  if (o.subject !== undefined) need('notify.sns', 'subject', o.subject);
  return Object.freeze({ __airless: 'notifier' as const, type: 'sns' as const, topicArn: o.topicArn, message: o.message, ...(o.subject !== undefined ? { subject: o.subject } : {}) });
}

/**
 * POSTs JSON to a URL. A string body is sent as Slack's `{ "text": ... }`; an object is sent as it is (its strings rendered).
 *
 * @example
 * task('load', fn, { onRetry: notify.webhook({ url: '{{ var.value.slack_webhook }}', body: 'retrying {{ task_id }}: {{ error }}' }) });
 */
function webhook(o: { url: string; body?: unknown; headers?: Record<string, string> }): NotifierDefinition {
  need('notify.webhook', 'url', o?.url);
  if (!/^(https?:\/\/|\{\{)/.test(o.url)) throw new InvalidDagError(`notify.webhook: url must start with http:// or https:// (or be a template), got ${JSON.stringify(o.url)}`);
  return Object.freeze({
    __airless: 'notifier' as const, type: 'webhook' as const, url: o.url,
    ...(o.body !== undefined ? { body: o.body } : {}), ...(o.headers ? { headers: { ...o.headers } } : {}),
  });
}

export const notify = { sns, webhook };

/** True when `v` is what `notify.*` returns. */
export function isNotifier(v: unknown): v is NotifierDefinition {
  return typeof v === 'object' && v !== null && (v as { __airless?: unknown }).__airless === 'notifier';
}
