/**
 * Scenario `data`: assets fed from outside, pushed and never polled (docs/assets.md). An
 * object written to the scaffold's bucket (data-scaffold.ts) reaches the asset-events
 * function through S3's EventBridge notification and a rule, and triggers the DAG scheduled
 * on it once, though EventBridge delivers the notification twice; its task's outlet feeds
 * an `allOf` DAG that waits for an invoice too (an EventBridge event, deduplicated by its
 * invoice id), and an `anyOf` DAG runs on the invoice and then on an order (an SQS message
 * through an event source mapping, deduplicated by its order id). The CLI lists and emits
 * asset events through the endpoint; an invocation that keeps failing is dead-lettered by
 * Lambda's destination; a second push drops a watcher and a schedule's asset.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { ReceiveMessageCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { PROJECT_ROOT } from '../rehearsal.js';
import type { ScenarioContext } from './context.js';
import { DATA_SCAFFOLD } from './data-names.js';

const DAGS = join(PROJECT_ROOT, 'lib', 'rehearsal', 'scenarios', 'dags', 'data.ts');
const CLI_CREDENTIALS = { accessKeyId: 'AKIACLIREHEARSAL0000', secretAccessKey: 'x' };

export async function data(c: ScenarioContext): Promise<void> {
  const { r, cli, ports } = c;
  const t0 = performance.now();
  const check = (ok: boolean, what: string) => c.check(ok, `${what} [${((performance.now() - t0) / 1000).toFixed(1)} s]`);
  const fn = (prefix: string) => [...r.functions.values()].find((f) => f.spec.logicalId.includes(prefix))!;
  const allowedBy = (who: string, action: string, resource = '') =>
    r.gateway.decisions.filter((d) => d.allowed && d.principal.includes(who) && d.action === action && d.resource.includes(resource)).length;
  const runs = async (dagId: string) => (await ports.store.listRuns(dagId)).sort((a, b) => a.queuedAt - b.queuedAt);
  const settled = async (dagId: string, n: number) => {
    const list = await runs(dagId);
    return list.length === n && list.every((x) => x.state === 'success' || x.state === 'failed');
  };
  const push = async (source: string) => {
    const dir = mkdtempSync(join(tmpdir(), 'airless-rehearsal-data-'));
    try {
      writeFileSync(join(dir, 'data.ts'), source);
      return await cli('push', [dir], { 'no-typecheck': true });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
  const dags = readFileSync(DAGS, 'utf8');
  const v1 = await push(dags);
  check(v1.code === 0 && v1.out.some((l) => l.includes('rehearsal_on_landing')), `push registers the data DAGs and their watchers (${v1.error ?? ''})`);

  // An object under landing/, its notification delivered twice by EventBridge; one outside the prefix.
  const s3 = new S3Client({ endpoint: r.endpoint, region: 'us-east-1', forcePathStyle: true, credentials: CLI_CREDENTIALS, requestChecksumCalculation: 'WHEN_REQUIRED', responseChecksumValidation: 'WHEN_REQUIRED' });
  r.gateway.events.duplicate((e) => e.source === 'aws.s3', 1);
  await s3.send(new PutObjectCommand({ Bucket: DATA_SCAFFOLD.bucket, Key: 'landing/2026-01-02.csv', Body: 'id,amount\n1,12\n' }));
  await s3.send(new PutObjectCommand({ Bucket: DATA_SCAFFOLD.bucket, Key: 'elsewhere/ignored.csv', Body: 'x' }));
  const s3Delivered = () => r.gateway.events.delivered.filter((d) => d.event.source === 'aws.s3' && d.target.Arn === fn('AssetEvents').spec.arn).length;
  // Both copies delivered, not merely an idle stack: a copy refused while the function was busy
  // is retried later by EventBridge, and an idle stack does not wait for a retry still to come.
  await r.until(async () => (await settled('rehearsal_on_landing', 1)) && s3Delivered() >= 2, 'the landing DAG to run and both copies of its notification to arrive');
  await r.until(() => r.idle(), 'the stack to settle');
  const [landed] = await runs('rehearsal_on_landing');
  const loaded = await ports.store.getXcom({ dagId: 'rehearsal_on_landing', runId: landed!.runId, taskId: 'load', key: 'return_value' });
  const s3Deliveries = s3Delivered();
  check((await runs('rehearsal_on_landing')).length === 1 && landed!.state === 'success' && landed!.runType === 'asset_triggered'
    && JSON.stringify(loaded) === '["landing/2026-01-02.csv"]' && s3Deliveries === 2,
    `an object under landing/ triggers rehearsal_on_landing once, though EventBridge delivered its notification ${s3Deliveries} times (${landed?.runId} ${landed?.state}; it saw ${JSON.stringify(loaded)})`);

  // allOf waits: the clean data is queued, the invoice is not there yet.
  const queued = await ports.store.getAssetQueue('rehearsal_both');
  check((await runs('rehearsal_both')).length === 0 && Object.keys(queued?.queued ?? {}).join() === 'rehearsal.clean',
    `rehearsal_both (allOf clean, invoices) waits, the outlet event of its producer queued (${JSON.stringify(Object.keys(queued?.queued ?? {}))})`);

  // The invoice, published twice with two event ids: one asset event; both DAGs run once.
  for (let i = 0; i < 2; i++) r.gateway.events.publish({ source: DATA_SCAFFOLD.eventSource, detailType: 'Invoice Closed', detail: { invoiceId: 'INV-7', total: 120 } });
  await r.until(async () => (await settled('rehearsal_both', 1)) && (await settled('rehearsal_either', 1)), 'the invoice to run both DAGs');
  const [joined] = await runs('rehearsal_both');
  const join1 = await ports.store.getXcom({ dagId: 'rehearsal_both', runId: joined!.runId, taskId: 'join', key: 'return_value' });
  check(joined!.state === 'success' && JSON.stringify(join1) === '{"rehearsal.clean":1,"rehearsal.invoices":1}'
    && (await ports.store.listAssetEvents('rehearsal.invoices', { limit: 5 })).length === 1,
    `the invoice completes rehearsal_both (allOf) and runs rehearsal_either (anyOf); published twice, it is one event (${JSON.stringify(join1)})`);

  // An order on the queue (another system sends it), sent twice (two message ids, one order id): rehearsal_either runs once more.
  const ordersQueue = r.resources.queues.find((q) => q.arn.endsWith(`:${DATA_SCAFFOLD.queue}`))!;
  for (let i = 0; i < 2; i++) await r.direct.sqs.send(new SendMessageCommand({ QueueUrl: ordersQueue.localUrl, MessageBody: JSON.stringify({ orderId: 'ORD-1', lines: 3 }) }));
  await r.until(async () => settled('rehearsal_either', 2), 'the order to run rehearsal_either');
  await r.until(() => r.idle(), 'the stack to settle');
  const either = await runs('rehearsal_either');
  check(either.length === 2 && either.every((x) => x.state === 'success') && allowedBy('AssetEvents', 'sqs:ReceiveMessage', ordersQueue.arn) > 0,
    `an SQS message feeds rehearsal.orders through the mapping; sent twice, it runs rehearsal_either once (${either.map((x) => Object.keys(x.assetEvents ?? {}).join('+')).join(', ')})`);

  // The CLI through the endpoint: list, events, emit (the worker creates the run).
  const list = await cli('assets', ['list'], { json: true });
  const events = await cli('assets', ['events', 'rehearsal.clean'], { json: true });
  const emit = await cli('assets', ['emit', 'rehearsal.orders'], { extra: '{"by":"cli"}' });
  await r.until(async () => settled('rehearsal_either', 3), 'the emitted event to run rehearsal_either');
  const listed = JSON.parse(list.out[0] ?? '[]') as { uri: string }[];
  check(list.code === 0 && listed.length === 4 && events.code === 0 && JSON.parse(events.out[0] ?? '[]')[0]?.extra?.keys?.[0] === 'landing/2026-01-02.csv' && emit.code === 0,
    `airless assets list|events|emit --stack work through the endpoint (${listed.length} assets; ${emit.out.join(' ') || emit.error})`);

  // An invocation that keeps failing: Lambda retries it twice, then its destination dead-letters it.
  const assetFn = fn('AssetEvents');
  const dlq = r.resources.queues.find((q) => q.arn.includes('SchedulerDeadLetterQueue'))!;
  r.gateway.events.publish({ source: DATA_SCAFFOLD.eventSource, detailType: 'Invoice Closed', detail: { invoiceId: 'INV-8' } });
  let killed = 0;
  for (let attempt = 0; attempt < 3; attempt++) {
    // Killed as soon as it runs (a timeout, forced now): Lambda retries it a minute, then two, later.
    await r.until(() => assetFn.expireInFlight() > 0, `asset-events attempt ${attempt + 1} to run`);
    killed++;
  }
  await r.until(() => allowedBy('AssetEvents', 'sqs:SendMessage', 'SchedulerDeadLetterQueue') > 0, 'the failed invocation to be dead-lettered');
  const got = await r.direct.sqs.send(new ReceiveMessageCommand({ QueueUrl: dlq.localUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 0 }));
  const letter = (got.Messages ?? []).map((m) => JSON.parse(m.Body ?? '{}')).find((b) => b?.requestContext?.condition === 'RetriesExhausted');
  check(letter?.requestPayload?.detail?.invoiceId === 'INV-8' && allowedBy('AssetEvents', 'sqs:SendMessage', 'SchedulerDeadLetterQueue') > 0,
    `an asset-events invocation that fails three times (${killed} killed) lands in the EventBridge dead-letter queue with its event (${letter ? letter.requestContext.condition : `none of ${got.Messages?.length ?? 0}`})`);

  // A second push: the queue watcher goes, rehearsal_either no longer waits on orders.
  const v2 = await push(dags.replace("watchers: [watch.sqs({ queue: 'rehearsal-orders', dedupField: 'orderId' })]", 'watchers: []')
    .replace('schedule: anyOf(invoices, orders)', 'schedule: anyOf(invoices)'));
  const watchers = await ports.store.listAssetWatchers(`sqs:${DATA_SCAFFOLD.queue}`);
  check(v2.code === 0 && watchers.length === 0 && allowedBy('RegisterBundle', 'dynamodb:DeleteItem', 'StateAssets') > 0 && allowedBy('RegisterBundle', 'dynamodb:UpdateItem', 'StateAssets') > 0,
    `a push that drops the queue's watcher and an asset of a schedule updates the watcher index and the queues (${v2.error ?? 'ok'})`);
}
