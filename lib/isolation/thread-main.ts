/**
 * The code that runs inside an isolation thread, as JavaScript source text (started with
 * `new Worker(THREAD_SOURCE, { eval: true })`), so it works the same under tsx, vitest and
 * an esbuild-bundled Lambda, where no separate worker file exists.
 *
 * It is a string, not a function sent as `fn.toString()`: a bundler rewrites a function's
 * text. esbuild with `minify` and `keepNames` (lib/infra/functions.ts) turns `require(...)`
 * into its module-level `__require` shim and wraps named arrows in its `__name` helper, both
 * under minified names (`ti(...)`, `a(...)`) that the eval'd thread does not have: every
 * try failed with `ReferenceError: ti is not defined` in the bundled worker Lambda. A string
 * literal reaches the thread byte for byte, whatever the bundler does.
 *
 * Rules for the text: plain JavaScript (no types), only `require` of Node built-ins, no
 * backticks (it sits in a template literal; hence string concatenation). `import()` is
 * reached through `globalThis.__airlessImport`, which pool.ts defines in the prelude.
 *
 * Protocol (see pool.ts for the other side):
 * - in: `{ t: 'run', id, dagId, taskId, method, ctx, arg }`, `{ t: 'poke', id, type, pc, env }`,
 *   `{ t: 'reply', callId, ok, value | error }`
 * - out: `{ t: 'ready' }` (bundle loaded), `{ t: 'call', id, callId, op, args }` (xcom pull/push, var, conn), `{ t: 'log', level, msg, fields }`,
 *   `{ t: 'out', stream, text }` (what task code wrote to stdout or stderr),
 *   `{ t: 'render', template }` (synchronous: answered on the sync port),
 *   `{ t: 'done', id, ok, value | error | control }`, `{ t: 'crash', what, error }`.
 */
export const THREAD_SOURCE = String.raw`
(function threadMain() {
  const { parentPort, workerData, receiveMessageOnPort } = require('node:worker_threads');
  const data = workerData;
  if (typeof process.setSourceMapsEnabled === 'function') process.setSourceMapsEnabled(true);
  const port = parentPort;

  const errorOf = (e) =>
    e instanceof Error || (e && typeof e === 'object' && 'message' in e)
      ? { name: String(e.name ?? 'Error'), message: String(e.message), stack: typeof e.stack === 'string' ? e.stack : undefined }
      : { name: 'Error', message: 'a non-Error value was thrown: ' + String(e), stack: undefined };

  // A crash outside the awaited body of a try (a stray timer, a promise nobody awaits):
  // report it for the try in progress, then end the thread, whose state is now unknown.
  let current;
  const crash = (what) => (e) => {
    port.postMessage({ t: 'crash', id: current, what, error: errorOf(e) });
    process.exit(70);
  };
  process.on('uncaughtException', crash('uncaught exception'));
  process.on('unhandledRejection', crash('unhandled rejection'));
  // A message from the main thread that cannot be read (a reply or a try's ctx nested too
  // deeply for structured clone) would leave its try waiting for ever: fail it instead.
  port.on('messageerror', crash('the try could not read a message from the main thread (a value nested too deeply?):'));

  // What task code prints goes to the main thread on this port, ordered before its try's
  // 'done' (Node's own stdout pipe is another channel: lines came after the end of a run or
  // were lost at exit), where it is masked (output-mask.ts) and written.
  const forward = (stream) => (chunk, encoding, cb) => {
    const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
    port.postMessage({ t: 'out', stream, text });
    const done = typeof encoding === 'function' ? encoding : cb;
    if (typeof done === 'function') process.nextTick(done);
    return true;
  };
  process.stdout.write = forward('stdout');
  process.stderr.write = forward('stderr');

  const BRAND = '__airless';
  const dags = new Map();
  const sensors = new Map();
  const loaded = globalThis.__airlessImport(data.bundleUrl).then(async (mod) => {
    for (const entry of mod.files ?? []) {
      const ns = await entry.load();
      for (const raw of Object.values(ns)) {
        // A Dag of Airflow's TypeScript SDK is read as Airless's DAG (the build checked it).
        const v = raw && typeof raw[Symbol.for('airless.definition')] === 'function' ? raw[Symbol.for('airless.definition')]() : raw;
        if (v && v[BRAND] === 'dag') {
          if (!dags.has(v.spec.dagId)) dags.set(v.spec.dagId, v);
          for (const s of v.sensors ?? []) sensors.set(s.type, s);
        } else if (v && v[BRAND] === 'sensor') sensors.set(v.type, v);
      }
    }
  });

  // Values cross to the main thread by structured clone, which turns a class instance
  // into a plain object silently: refuse what XCom could not give back as it left.
  const CLONEABLE = new Set([Object.prototype, null, Array.prototype, Date.prototype, Map.prototype, Set.prototype,
    RegExp.prototype, ArrayBuffer.prototype, DataView.prototype, BigInt.prototype, String.prototype, Number.prototype, Boolean.prototype]);
  const TYPED = Object.getPrototypeOf(Uint8Array.prototype);
  // A value nested deeper than MAX_VALUE_DEPTH (rules/values.ts) is refused here too: the
  // thread could post one a few thousand levels deep that the main thread cannot read back.
  const maxDepth = data.maxDepth;
  const shorten = (path) => (path.length > 120 ? path.slice(0, 60) + '…' + path.slice(-50) : path);
  const unclonable = (value) => {
    const seen = new Set();
    const walk = (v, path, depth = 1) => {
      if (typeof v === 'function') return 'a function at ' + path;
      if (typeof v === 'symbol') return 'a symbol at ' + path;
      if (typeof v !== 'object' || v === null || seen.has(v)) return undefined;
      if (depth > maxDepth) return 'a value nested more than ' + maxDepth + ' levels deep (at ' + shorten(path) + ')';
      seen.add(v);
      const proto = Object.getPrototypeOf(v);
      if (!CLONEABLE.has(proto) && Object.getPrototypeOf(proto) !== TYPED) {
        return 'an instance of ' + (proto?.constructor?.name ?? 'a class') + ' at ' + path + ' (convert it to plain data first)';
      }
      if (v instanceof Map) {
        let i = 0;
        for (const [k, x] of v) {
          const bad = walk(k, path + '.keys[' + i + ']', depth + 1) ?? walk(x, path + '.get(' + JSON.stringify(typeof k === 'string' ? k : i) + ')', depth + 1);
          if (bad) return bad;
          i++;
        }
        return undefined;
      }
      if (v instanceof Set) {
        let i = 0;
        for (const x of v) {
          const bad = walk(x, path + '[' + i++ + ']', depth + 1);
          if (bad) return bad;
        }
        return undefined;
      }
      if (Array.isArray(v)) {
        for (let i = 0; i < v.length; i++) {
          const bad = walk(v[i], path + '[' + i + ']', depth + 1);
          if (bad) return bad;
        }
        return undefined;
      }
      if (proto !== Object.prototype && proto !== null) return undefined;
      for (const k of Object.keys(v)) {
        const bad = walk(v[k], /^[A-Za-z_$][\w$]*$/.test(k) ? path + '.' + k : path + '[' + JSON.stringify(k) + ']', depth + 1);
        if (bad) return bad;
      }
      return undefined;
    };
    return walk(value, 'value');
  };

  let nextCall = 0;
  const pending = new Map();
  const call = (id, op, a, b) =>
    new Promise((resolve, reject) => {
      const callId = ++nextCall;
      pending.set(callId, { resolve, reject });
      port.postMessage({ t: 'call', id, callId, op, args: [a, b] });
    });

  // A try's ctx: classes, so a try costs a few objects, not a dozen closures (call the
  // methods on their object, ctx.xcom.pull(...), as with the in-process ctx).
  class Xcom {
    constructor(id, taskId) { this.id = id; this.taskId = taskId; }
    pull(taskId, key) { return call(this.id, 'pull', taskId, key); }
    push(key, value) {
      const bad = unclonable(value);
      if (bad) return Promise.reject(new Error('XCom ' + key + ' of task ' + this.taskId + ' cannot be stored: ' + bad));
      return call(this.id, 'push', key, value);
    }
  }
  // Log fields too deep for the main thread to read are left out of the line, not the try.
  const tooDeep = (value) => {
    const seen = new Set();
    const stack = [[value, 1]];
    while (stack.length) {
      const [v, depth] = stack.pop();
      if (typeof v !== 'object' || v === null || seen.has(v)) continue;
      if (depth > maxDepth) return true;
      seen.add(v);
      const items = v instanceof Map ? [...v].flat() : v instanceof Set ? [...v] : ArrayBuffer.isView(v) ? [] : Object.values(v);
      for (const x of items) stack.push([x, depth + 1]);
    }
    return false;
  };
  const post = (level, msg, fields) => port.postMessage({ t: 'log', level, msg: String(msg),
    fields: fields !== null && typeof fields === 'object' && tooDeep(fields) ? { fields: 'not shown: nested more than ' + maxDepth + ' levels deep' } : fields });
  class Log {
    info(msg, fields) { post('info', msg, fields); }
    warn(msg, fields) { post('warn', msg, fields); }
    error(msg, fields) { post('error', msg, fields); }
  }
  const LOG = new Log();
  // The thread is terminated at the timeout, so its signal never fires; one for all tries
  // (an AbortController costs several µs, a real share of a trivial try).
  const NEVER = new AbortController().signal;
  class Variables {
    constructor(id) { this.id = id; }
    get(key, opts) { return call(this.id, 'var', key, opts === undefined ? undefined : { ...opts }); }
  }
  class Connections {
    constructor(id) { this.id = id; }
    get(connId) { return call(this.id, 'conn', connId); }
  }
  class Ctx {
    constructor(id, c) {
      this.dagId = c.dagId; this.runId = c.runId; this.taskId = c.taskId; this.tryNumber = c.tryNumber;
      this.logicalDate = c.logicalDate; this.dataIntervalStart = c.dataIntervalStart; this.dataIntervalEnd = c.dataIntervalEnd;
      this.ds = c.ds; this.params = c.params; this.conf = c.conf;
      this.signal = NEVER;
      this.mapIndex = typeof c.mapIndex === 'number' ? c.mapIndex : -1;
      this.xcom = new Xcom(id, c.taskId);
      this.log = LOG;
      this.variables = new Variables(id);
      this.connections = new Connections(id);
      this.triggeringAssetEvents = c.triggeringAssetEvents || {};
      this.outletUris = c.outlets || [];
    }
    // The extras of this try's outlet events, sent back with its result (see finish).
    outletEvents(asset) {
      const uri = typeof asset === 'string' ? asset : asset && asset.uri;
      if (!this.outletUris.includes(uri)) throw new Error('outletEvents: ' + uri + ' is not an outlet of task ' + this.taskId + ' (its outlets: ' + (this.outletUris.join(', ') || 'none') + ')');
      outlets = outlets || new Map();
      if (!outlets.has(uri)) outlets.set(uri, { extra: {} });
      return outlets.get(uri);
    }
    render(template) {
      Atomics.store(data.syncFlag, 0, 0);
      port.postMessage({ t: 'render', template: String(template) });
      Atomics.wait(data.syncFlag, 0, 0);
      const reply = receiveMessageOnPort(data.syncPort)?.message;
      if (!reply?.ok) throw new Error(reply?.error ?? 'render failed');
      return reply.value;
    }
    defer(opts) { throw { ...opts, [BRAND]: 'defer' }; }
    skip(reason) { throw { [BRAND]: 'skip', reason }; }
    fail(reason) { throw { [BRAND]: 'fail', reason: reason === undefined ? undefined : String(reason) }; }
  }

  // The outlet accessors of the try in progress (one try per thread at a time).
  let outlets;
  const outletExtras = () => {
    if (!outlets) return undefined;
    const out = {};
    for (const [uri, a] of outlets) out[uri] = a.extra;
    outlets = undefined;
    return out;
  };

  // The result of a try. Primitives need no check and no extra object.
  const finish = (id, what, value) => {
    current = undefined;
    const extras = outletExtras();
    const bad = typeof value === 'object' || typeof value === 'function' || typeof value === 'symbol' ? unclonable(value) : undefined;
    if (bad) return port.postMessage({ t: 'done', id, ok: false, error: { name: 'XcomValueError', message: what + ' cannot be stored: ' + bad } });
    const badExtra = extras ? unclonable(extras) : undefined;
    if (badExtra) return port.postMessage({ t: 'done', id, ok: false, error: { name: 'XcomValueError', message: 'the outlet events\' extra cannot be stored: ' + badExtra } });
    try {
      port.postMessage(extras ? { t: 'done', id, ok: true, value, outlets: extras } : { t: 'done', id, ok: true, value });
    } catch (e) {
      port.postMessage({ t: 'done', id, ok: false, error: { name: 'XcomValueError', message: what + ' cannot be stored: ' + e.message } });
    }
  };
  const failWith = (id, e) => {
    current = undefined;
    outlets = undefined;
    if (e && typeof e === 'object' && typeof e[BRAND] === 'string') {
      const bad = unclonable(e);
      if (!bad) return port.postMessage({ t: 'done', id, ok: false, control: e });
    }
    port.postMessage({ t: 'done', id, ok: false, error: errorOf(e) });
  };

  // Starts a try. A synchronous task finishes here, an async one when its promise settles:
  // no await of its own, so a trivial try costs no extra turns of the microtask queue.
  const start = (m) => {
    current = m.id;
    let value;
    let what;
    try {
      if (m.t === 'run') {
        const fn = dags.get(m.dagId)?.tasks.get(m.taskId)?.[m.method];
        if (typeof fn !== 'function') throw new Error('task ' + m.taskId + ' of dag ' + m.dagId + ' has no method ' + m.method + ' in this bundle');
        what = 'XCom return_value of task ' + m.ctx.taskId;
        value = fn(new Ctx(m.id, m.ctx), m.arg);
      } else {
        const s = sensors.get(m.type);
        if (!s) throw new Error('sensor type ' + m.type + ' is not in this bundle');
        what = 'the poke result of sensor type ' + m.type;
        value = Promise.resolve(s.poke(m.pc, m.env)).then(Boolean);
      }
    } catch (e) {
      return failWith(m.id, e);
    }
    if (value !== null && typeof value === 'object' && typeof value.then === 'function') {
      value.then((v) => finish(m.id, what, v), (e) => failWith(m.id, e));
    } else {
      finish(m.id, what, value);
    }
  };

  let isLoaded = false;
  port.on('message', (m) => {
    if (m.t === 'reply') {
      const p = pending.get(m.callId);
      pending.delete(m.callId);
      if (m.ok) p?.resolve(m.value);
      else p?.reject(Object.assign(new Error(m.error.message), { name: m.error.name }));
      return;
    }
    if (isLoaded) return start(m);
    current = m.id;
    loaded.then(() => start(m), (e) => failWith(m.id, e));
  });
  loaded.then(() => { isLoaded = true; }, () => {});
  loaded.then(() => port.postMessage({ t: 'ready' }), () => port.postMessage({ t: 'ready' }));
})();
`;
