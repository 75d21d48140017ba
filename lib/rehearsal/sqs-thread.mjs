// local-aws-sqs in its own worker thread, on fake timers (@sinonjs/fake-timers) that
// follow the rehearsal's virtual clock: local-aws-sqs measures delays and visibility
// timeouts with setTimeout, so a --time-warp jump must fire them. A real interval
// advances the fake clock to real time + the shared offset every few milliseconds.
import { parentPort, workerData } from 'node:worker_threads';
import FakeTimers from '@sinonjs/fake-timers';

const realSetInterval = globalThis.setInterval;
const realNow = Date.now.bind(Date);
const offset = new Float64Array(workerData.clockBuffer);
const virtualNow = () => realNow() + offset[0];

const clock = FakeTimers.install({
  now: virtualNow(),
  toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'],
  shouldClearNativeTimers: true,
});
realSetInterval(() => {
  const behind = virtualNow() - clock.now;
  if (behind > 0) clock.tick(behind);
}, 10);

const { createSqsServer } = await import('local-aws-sqs');
const server = await createSqsServer({
  port: 0, hostname: '127.0.0.1', emulateQueueCreationLifecycle: false,
  accountId: workerData.accountId, region: workerData.region,
});

parentPort.on('message', (msg) => {
  if (msg.type === 'nextDue') {
    // The next timer more than 100 ms ahead that is not a retention timer (days away):
    // a delayed message becoming visible or a visibility timeout ending.
    let next = null;
    const now = clock.now;
    // clock.timers is internal: a Map in @sinonjs/fake-timers 15 (pinned), an object before.
    const timers = clock.timers instanceof Map ? [...clock.timers.values()] : Object.values(clock.timers ?? {});
    for (const t of timers) {
      if (!t.interval && t.callAt > now + 100 && t.callAt < now + 86_400_000 && (next === null || t.callAt < next)) next = t.callAt;
    }
    parentPort.postMessage({ type: 'nextDue', id: msg.id, next });
  } else if (msg.type === 'close') {
    server.close(() => parentPort.postMessage({ type: 'closed' }));
  }
});
parentPort.postMessage({ type: 'ready', port: server.address().port });
