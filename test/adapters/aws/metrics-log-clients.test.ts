import { afterEach, describe, expect, it, vi } from 'vitest';
import { makeClients } from '../../../lib/adapters/aws/clients.js';
import { PowertoolsLog } from '../../../lib/adapters/aws/log.js';
import { CountingMetrics, EmfMetrics } from '../../../lib/adapters/aws/metrics.js';

afterEach(() => {
  vi.restoreAllMocks();
});

describe('EmfMetrics', () => {
  const capture = (metrics: EmfMetrics) => {
    const published: Array<Record<string, unknown> & { _aws: { CloudWatchMetrics: { Namespace: string; Dimensions: string[][]; Metrics: { Name: string; Unit: string }[] }[] } }> = [];
    vi.spyOn(metrics.powertools, 'publishStoredMetrics').mockImplementation(() => {
      published.push(metrics.powertools.serializeMetrics() as never);
      metrics.powertools.clearMetrics();
      return metrics.powertools;
    });
    return published;
  };

  it('sums counts and publishes one EMF document per flush in namespace Airless', () => {
    const metrics = new EmfMetrics();
    const published = capture(metrics);
    metrics.count('TaskSucceeded');
    metrics.count('TaskSucceeded', 2);
    metrics.timing('SchedulingLagMs', 120);
    metrics.flush();
    metrics.flush(); // nothing stored: nothing written

    expect(published).toHaveLength(1);
    const emf = published[0]!;
    const doc = emf._aws.CloudWatchMetrics[0]!;
    expect(doc.Namespace).toBe('Airless');
    expect(doc.Dimensions).toEqual([['service']]);
    expect(emf.service).toBe('airless');
    expect(emf.TaskSucceeded).toBe(3);
    expect(emf.SchedulingLagMs).toBe(120);
    expect(doc.Metrics).toEqual(
      expect.arrayContaining([
        { Name: 'TaskSucceeded', Unit: 'Count' },
        { Name: 'SchedulingLagMs', Unit: 'Milliseconds' },
      ]),
    );
  });

  it('publishes only the listed names, the safety net\'s repairs as one Recovered, and no zero', () => {
    const metrics = new EmfMetrics();
    const published = capture(metrics);
    metrics.count('dynamodb.requests', 17); // in process only: AWS publishes table metrics for free
    metrics.count('EagerFollows');
    metrics.timing('DedupRatio', 2);
    metrics.count('Requeued');
    metrics.count('ExpiredLeases', 2);
    metrics.count('RepairedFollows', 0);
    metrics.count('SensorsWaiting', 0);
    metrics.flush();

    expect(published).toHaveLength(1);
    expect(published[0]!._aws.CloudWatchMetrics[0]!.Metrics).toEqual([{ Name: 'Recovered', Unit: 'Count' }]);
    expect(published[0]!.Recovered).toBe(3);
  });

  it('writes nothing at all for an invocation that counted only zeros or unlisted names (an idle tick or poker)', () => {
    const metrics = new EmfMetrics();
    const published = capture(metrics);
    metrics.count('Pokes', 0);
    metrics.count('dynamodb.rcu', 12);
    metrics.flush();
    expect(published).toEqual([]);
  });
});

describe('CountingMetrics', () => {
  it('counts, summarizes timings and snapshots sorted by name', () => {
    const m = new CountingMetrics();
    m.count('b');
    m.count('a', 5);
    m.count('b');
    m.timing('t', 10);
    m.timing('t', 30);
    expect(m.snapshot()).toEqual({ a: 5, b: 2 });
    expect(Object.keys(m.snapshot())).toEqual(['a', 'b']);
    expect(m.timings.get('t')).toEqual({ n: 2, totalMs: 40, maxMs: 30 });
    expect(m.get('missing')).toBe(0);
    m.reset();
    expect(m.snapshot()).toEqual({});
  });
});

describe('PowertoolsLog', () => {
  it('writes structured JSON lines with the fields, and children keep their keys', () => {
    const lines: string[] = [];
    const write = (chunk: unknown) => {
      lines.push(String(chunk));
      return true;
    };
    vi.spyOn(process.stdout, 'write').mockImplementation(write as never);
    vi.spyOn(process.stderr, 'write').mockImplementation(write as never);
    const log = new PowertoolsLog();
    log.info('task finished', { dagId: 'etl' });
    log.warn('slow');
    log.with({ runId: 'r1' }).error('boom', { taskId: 't' });
    vi.restoreAllMocks();
    const parsed = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(parsed).toEqual([
      expect.objectContaining({ level: 'INFO', message: 'task finished', service: 'airless', dagId: 'etl' }),
      expect.objectContaining({ level: 'WARN', message: 'slow' }),
      expect.objectContaining({ level: 'ERROR', message: 'boom', runId: 'r1', taskId: 't' }),
    ]);
    expect(parsed[0]).not.toHaveProperty('runId');
  });
});

describe('makeClients', () => {
  it('points every client at its local endpoint with fake credentials and capped retries', async () => {
    const c = makeClients({ endpoints: { sqs: 'http://127.0.0.1:1', s3: 'http://127.0.0.1:2' } });
    expect(await c.sqs.config.region()).toBe('us-east-1');
    expect(await c.sqs.config.maxAttempts()).toBe(3);
    expect((await c.s3.config.credentials()).accessKeyId).toBe('S3RVER');
    expect(c.s3.config.forcePathStyle).toBe(true);
    expect(await c.s3.config.requestChecksumCalculation()).toBe('WHEN_REQUIRED');
    const sqsEndpoint = await c.sqs.config.endpoint!();
    expect(sqsEndpoint.port).toBe(1);
    expect(c.dynamodb.config.endpoint).toBeUndefined();
  });

  it('leaves region and credentials to the environment without endpoints', async () => {
    const c = makeClients({ region: 'eu-west-1', maxAttempts: 5 });
    expect(await c.scheduler.config.region()).toBe('eu-west-1');
    expect(await c.scheduler.config.maxAttempts()).toBe(5);
    expect(c.s3.config.forcePathStyle).toBe(false);
  });
});
