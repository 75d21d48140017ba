// One simulated Lambda container: a worker thread that patches Date to the rehearsal's
// virtual clock (a SharedArrayBuffer offset), imports the function's asset once and
// serves invocations from the parent, as the Lambda runtime's loop does. Module state
// and the container's own TMPDIR survive between invocations.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parentPort, workerData } from 'node:worker_threads';

const offset = new Float64Array(workerData.clockBuffer);
const RealDate = Date;
const realNow = RealDate.now.bind(RealDate);
class VirtualDate extends RealDate {
  constructor(...args) {
    if (args.length === 0) super(realNow() + offset[0]);
    else super(...args);
  }
  static now() {
    return realNow() + offset[0];
  }
}
// Date() called without `new` returns a string.
globalThis.Date = new Proxy(VirtualDate, { apply: () => new VirtualDate().toString() });

const [moduleName, exportName] = workerData.handler.split('.');
const file = ['.mjs', '.js', '.cjs'].map((ext) => join(workerData.codeDir, moduleName + ext)).find((f) => existsSync(f));
let handler;
try {
  if (!file) throw new Error(`Cannot find module '${moduleName}' in ${workerData.codeDir}`);
  const mod = await import(pathToFileURL(file).href);
  handler = mod[exportName];
  if (typeof handler !== 'function') throw new Error(`${workerData.handler} is undefined or not exported`);
} catch (e) {
  parentPort.postMessage({ type: 'initError', error: { errorType: 'Runtime.ImportModuleError', errorMessage: String(e?.message ?? e) } });
}

parentPort.on('message', async (m) => {
  const context = {
    functionName: workerData.functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: workerData.functionArn,
    memoryLimitInMB: String(workerData.memoryMb),
    awsRequestId: m.requestId,
    logGroupName: workerData.logGroupName,
    logStreamName: workerData.logStreamName,
    callbackWaitsForEmptyEventLoop: true,
    getRemainingTimeInMillis: () => Math.max(0, m.deadline - Date.now()),
  };
  try {
    const result = await handler(m.event, context);
    parentPort.postMessage({ type: 'result', id: m.id, ok: true, result: result === undefined ? null : JSON.parse(JSON.stringify(result)) });
  } catch (e) {
    parentPort.postMessage({ type: 'result', id: m.id, ok: false, error: { errorType: e?.name ?? 'Error', errorMessage: String(e?.message ?? e) } });
  }
});
parentPort.postMessage({ type: 'ready' });
