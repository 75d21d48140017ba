/**
 * UI benchmark (issue 14): the grid of 100 runs × 1,000 tasks served in one API response
 * and rendered, scrollable, in headless Chromium; the graph of a 1,000-task DAG laid out.
 * The store is filled directly (no task runs), so only the UI path is measured.
 *
 * npx tsx bench/ui.ts [--runs 100] [--tasks 1000] [--screenshots DIR]
 */
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { SystemClock } from '../lib/adapters/clock.js';
import { MemoryStore } from '../lib/adapters/memory/store.js';
import { startApiServer } from '../lib/api/server.js';
import { MemoryTaskLogs } from '../lib/api/task-logs.js';
import type { DagSpec, TaskInstance, TaskSpec } from '../lib/engine/index.js';
import { DEFAULT_CONFIG, type Ports } from '../lib/engine/index.js';
import type { TaskState } from '../lib/engine/index.js';
import { placeGraph } from '../lib/ui/graph.js';
import { structureData } from '../lib/api/routes-ui.js';
import { launchChromium } from '../test/ui/chromium.js';

export interface UiBenchResult {
  runs: number;
  tasks: number;
  /** GET /ui/grid: server + transfer, measured in Node. */
  gridServeMs: number;
  gridBytes: number;
  /** From opening the grid view to the first paint of its rows, in Chromium (fetch included). */
  gridRenderMs: number;
  /** Median and worst frame while scrolling the grid to the bottom in 20 steps. */
  gridScrollStepP50Ms: number;
  gridScrollStepMaxMs: number;
  /** Script time of one scroll repaint (building and inserting the rows in view), median and worst. */
  gridPaintP50Ms: number;
  gridPaintMaxMs: number;
  /** dagre layout of the DAG in Node. */
  graphLayoutNodeMs: number;
  /** From opening the graph view to the drawn SVG, in Chromium (fetch and layout included). */
  graphRenderMs: number;
}

/** A 1,000-task DAG in 20 groups of 50: chains of five inside a group, groups in sequence. */
export function bigDag(tasks: number): DagSpec {
  const per = 50;
  const id = (i: number) => `g${String(Math.floor(i / per)).padStart(2, '0')}.t${String(i % per).padStart(3, '0')}`;
  const specs: TaskSpec[] = Array.from({ length: tasks }, (_, i) => ({
    taskId: id(i), kind: 'task', upstream: [], downstream: [], triggerRule: 'all_success',
    retries: 0, retryDelayMs: 0, retryExponentialBackoff: false,
  }));
  const link = (a: number, b: number) => { specs[a].downstream.push(specs[b].taskId); specs[b].upstream.push(specs[a].taskId); };
  for (let i = 1; i < tasks; i++) {
    const j = i % per;
    if (j === 0) link(i - 1, i);
    else if (j % 5 === 0) link(i - j, i);
    else link(i - 1, i);
  }
  return {
    dagId: 'big', file: 'big.ts', schedule: null, timezone: 'UTC', catchup: false, maxActiveRuns: 16, maxActiveTasks: 1024,
    maxParallelism: tasks, params: {}, tags: ['bench'], pausedOnCreation: false, tasks: specs,
  };
}

async function fill(store: MemoryStore, spec: DagSpec, runs: number): Promise<void> {
  await store.putDag({ dagId: spec.dagId, bundleVersion: 'bench', spec, paused: false, updatedAt: Date.now() });
  const t0 = Date.parse('2026-01-01T00:00:00Z');
  const states: TaskState[] = ['success', 'success', 'success', 'success', 'failed', 'skipped', 'upstream_failed', 'up_for_retry', 'running', 'queued'];
  for (let r = 0; r < runs; r++) {
    const runId = `scheduled__${new Date(t0 + r * 86_400_000).toISOString()}`;
    const last = r === runs - 1;
    await store.createRun({
      dagId: spec.dagId, runId, state: last ? 'running' : r % 7 === 3 ? 'failed' : 'success', runType: 'scheduled',
      logicalDate: t0 + r * 86_400_000, dataIntervalStart: t0, dataIntervalEnd: t0, conf: {}, bundleVersion: 'bench', queuedAt: t0 + r * 86_400_000,
    });
    for (let i = 0; i < spec.tasks.length; i++) {
      const s = last ? states[(i * 7 + r) % states.length] : (r % 7 === 3 && i % 97 === 0 ? 'failed' : (i * 13 + r) % 41 === 0 ? 'skipped' : 'success');
      const ti: TaskInstance = { dagId: spec.dagId, runId, taskId: spec.tasks[i].taskId, state: s, tryNumber: (i + r) % 23 === 0 ? 2 : 1, upstream: {} };
      await store.putTask(ti);
    }
  }
}

export async function uiBench(opts: { runs?: number; tasks?: number; screenshots?: string } = {}): Promise<UiBenchResult> {
  const runs = opts.runs ?? 100;
  const tasks = opts.tasks ?? 1000;
  const store = new MemoryStore();
  const spec = bigDag(tasks);
  await fill(store, spec, runs);
  const clock = new SystemClock();
  const ports = { store, clock, config: DEFAULT_CONFIG, metrics: { count() {}, timing() {} }, log: { info() {}, warn() {}, error() {} } } as unknown as Ports;
  const api = await startApiServer({ backend: { ports, logs: new MemoryTaskLogs(() => clock.now()), name: 'bench' }, port: 0 });
  const browser = await launchChromium();
  try {
    const auth = { authorization: `Bearer ${api.token}` };
    await (await fetch(`${api.url}/ui/grid/big?limit=${runs}`, { headers: auth })).text(); // warm the route
    const t0 = performance.now();
    const body = await (await fetch(`${api.url}/ui/grid/big?limit=${runs}`, { headers: auth })).text();
    const gridServeMs = performance.now() - t0;

    const l0 = performance.now();
    placeGraph(structureData(spec));
    const graphLayoutNodeMs = performance.now() - l0;

    const page = await (await browser.newContext({ viewport: { width: 1400, height: 900 } })).newPage();
    await page.goto(`${api.url}/?token=${api.token}`);
    await page.waitForSelector('[data-testid=dags] tr[data-dag]');
    const timeView = (hash: string, selector: string) => page.evaluate(async ([h, sel]) => {
      const start = performance.now();
      location.hash = h;
      while (!document.querySelector(sel) || document.getElementById('main')!.dataset.ready !== location.hash) await new Promise((r) => requestAnimationFrame(r));
      return performance.now() - start;
    }, [hash, selector] as const);
    const gridRenderMs = await timeView(`#/dags/big/grid?limit=${runs}`, '[data-testid=grid] .row');
    const frames = await page.evaluate(async () => {
      const s = document.querySelector<HTMLElement>('.grid-scroll')!;
      const out: number[] = [];
      const paints: number[] = [];
      for (let i = 1; i <= 20; i++) {
        const t = performance.now();
        s.scrollTop = (s.scrollHeight * i) / 20;
        await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
        out.push(performance.now() - t);
        paints.push(Number(document.querySelector<HTMLElement>('.grid-body')!.dataset.paintMs));
      }
      s.scrollTop = 0;
      return { out: out.sort((a, b) => a - b), paints: paints.sort((a, b) => a - b) };
    });
    const gridPaintP50Ms = frames.paints[10];
    const gridPaintMaxMs = frames.paints[19];
    const gridScrollStepP50Ms = frames.out[10];
    const gridScrollStepMaxMs = frames.out[19];
    if (opts.screenshots) {
      await page.evaluate(() => { document.querySelector<HTMLElement>('.grid-scroll')!.scrollTop = 0; });
      await page.locator('.row.group .name', { hasText: 'g00' }).click();
      await page.waitForTimeout(100);
      await page.screenshot({ path: path.join(opts.screenshots, 'grid-large.png') });
    }
    const graphRenderMs = await timeView('#/dags/big/graph', '[data-testid=graph] g.node');
    return {
      runs, tasks, gridServeMs: Math.round(gridServeMs), gridBytes: body.length, gridRenderMs: Math.round(gridRenderMs),
      gridScrollStepP50Ms: Math.round(gridScrollStepP50Ms), gridScrollStepMaxMs: Math.round(gridScrollStepMaxMs),
      gridPaintP50Ms: Math.round(gridPaintP50Ms * 10) / 10, gridPaintMaxMs: Math.round(gridPaintMaxMs * 10) / 10, graphLayoutNodeMs: Math.round(graphLayoutNodeMs), graphRenderMs: Math.round(graphRenderMs),
    };
  } finally {
    await browser.close();
    await api.close();
  }
}

export function formatUiBench(r: UiBenchResult): string {
  return [
    `UI: grid of ${r.runs} runs x ${r.tasks} tasks`,
    `  served in ${r.gridServeMs} ms (${(r.gridBytes / 1024).toFixed(0)} KiB, one response)`,
    `  rendered in Chromium in ${r.gridRenderMs} ms (fetch included; target < 1000 ms); scroll frames p50 ${r.gridScrollStepP50Ms} ms, worst ${r.gridScrollStepMaxMs} ms; repaint script p50 ${r.gridPaintP50Ms} ms, worst ${r.gridPaintMaxMs} ms`,
    `  graph of ${r.tasks} tasks: layout ${r.graphLayoutNodeMs} ms in Node (linear layering past 300 nodes, dagre below); view drawn in Chromium in ${r.graphRenderMs} ms (target < 1000 ms)`,
  ].join('\n');
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { values } = parseArgs({ options: { runs: { type: 'string' }, tasks: { type: 'string' }, screenshots: { type: 'string' }, json: { type: 'boolean' } } });
  const r = await uiBench({ runs: values.runs ? Number(values.runs) : undefined, tasks: values.tasks ? Number(values.tasks) : undefined, screenshots: values.screenshots });
  console.log(formatUiBench(r));
  if (values.json) console.log(JSON.stringify(r));
}
