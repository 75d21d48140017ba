/**
 * The Notifier port: webhooks with Node's fetch (Slack-compatible JSON) and SNS with
 * @aws-sdk/client-sns, loaded on first use so a worker that sends no SNS notification
 * never loads it. The worker's role needs sns:Publish on the topic (the stack's
 * `notificationTopicArns` prop grants it).
 */
import type { SNSClient } from '@aws-sdk/client-sns';
import type { Notifier, RenderedNotifier } from '../engine/index.js';

export interface NotifierOptions {
  /** SNS client per region (tests pass one with a local endpoint). */
  sns?: (region: string) => SNSClient | Promise<SNSClient>;
  /** A webhook that does not answer within this is a failure. @default 10_000 */
  timeoutMs?: number;
}

/** The region of an SNS topic ARN (`arn:aws:sns:REGION:ACCOUNT:NAME`). */
export function topicRegion(arn: string): string {
  const m = /^arn:aws[a-z-]*:sns:([a-z0-9-]+):\d{12}:[A-Za-z0-9_.-]+$/.exec(arn);
  if (!m) throw new Error(`${JSON.stringify(arn)} is not an SNS topic ARN (arn:aws:sns:REGION:ACCOUNT:NAME)`);
  return m[1]!;
}

/**
 * @example
 * await new AwsNotifier().send({ type: 'webhook', url: 'https://hooks.slack.com/services/T/B/X', body: { text: 'etl failed' } });
 */
export class AwsNotifier implements Notifier {
  private readonly clients = new Map<string, Promise<SNSClient>>();
  constructor(private readonly opts: NotifierOptions = {}) {}

  async send(n: RenderedNotifier): Promise<void> {
    if (n.type === 'webhook') return this.webhook(n);
    const region = topicRegion(n.topicArn);
    const { PublishCommand } = await import('@aws-sdk/client-sns');
    const client = await this.client(region);
    await client.send(new PublishCommand({ TopicArn: n.topicArn, Message: n.message, ...(n.subject !== undefined ? { Subject: n.subject } : {}) }));
  }

  private client(region: string): Promise<SNSClient> {
    let c = this.clients.get(region);
    if (!c) {
      c = Promise.resolve(this.opts.sns ? this.opts.sns(region) : import('@aws-sdk/client-sns').then(({ SNSClient: Client }) => new Client({ region })));
      this.clients.set(region, c);
    }
    return c;
  }

  private async webhook(n: Extract<RenderedNotifier, { type: 'webhook' }>): Promise<void> {
    let url: URL;
    try {
      url = new URL(n.url);
    } catch {
      throw new Error(`webhook url ${JSON.stringify(n.url)} is not a URL`);
    }
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...n.headers },
      body: JSON.stringify(n.body),
      signal: AbortSignal.timeout(this.opts.timeoutMs ?? 10_000),
    });
    // The answer's body is not read beyond this: its status is all a webhook tells.
    await res.body?.cancel();
    // The origin only: a webhook path often holds its secret (Slack's do).
    if (!res.ok) throw new Error(`webhook ${url.origin} answered HTTP ${res.status}`);
  }
}
