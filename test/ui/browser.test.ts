/**
 * The UI in real headless Chromium over an embedded runtime with example DAGs: the DAG
 * list, the grid, the trigger form (the run turns green), clear, a try's log, pause,
 * the graph and the Gantt, a mapped task's row and instances. With AIRLESS_SCREENSHOTS=DIR each view is saved there
 * (docs/screenshots for the README).
 */
import path from 'node:path';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import branching from '../../examples/dags/branching.js';
import etl from '../../examples/dags/etl_daily.js';
import fanOutIn from '../../examples/dags/fan_out_in.js';
import hourly from '../../examples/dags/hourly_catchup.js';
import { dag, param } from '../../lib/sdk/index.js';
import { apiOverRuntime, TOKEN } from '../api/support.js';
import { attachUi } from '../../lib/cli/ui.js';
import { launchChromium } from './chromium.js';

const SHOTS = process.env.AIRLESS_SCREENSHOTS;
const mapped = dag('mapped_ui', { schedule: null }, ({ task }) => {
  const list = task('list_files', async (ctx) => {
    // As an operator logs its job's links (docs/jobs.md): the task page shows them as links.
    ctx.log.info('listed the inbox', { logs: 'https://eu-west-1.console.aws.amazon.com/cloudwatch/home?region=eu-west-1&x=<b>' });
    return ['a.csv', 'bb.csv', 'ccc.csv'];
  });
  task('size', async (ctx, file: string) => {
    ctx.log.info(`sizing ${file}`);
    return file.length;
  }).expand(list);
});
// XCom values JSON cannot write (issue 19, defect 1): the task page shows them.
const oddXcom = dag('odd_xcom', { schedule: null }, ({ task }) => {
  task('odd', () => {
    const v: Record<string, unknown> = { total: 12345678901234567890n, seen: new Set(['a']) };
    v.self = v;
    return v;
  });
});
// Params with schemas (issue 23 §2): the trigger form draws its fields from them.
const paramForm = dag('param_form', { schedule: null, displayName: 'Params form 📝', params: {
  rows: param(5, { type: 'integer', minimum: 1, maximum: 10, title: 'Rows to read', description: 'at most 10' }),
  region: param('eu', { enum: ['eu', 'us'] }),
  ticket: param<string>(undefined as unknown as string, { type: 'string', pattern: '^OPS-[0-9]+$' }),
  full: param(false, { type: 'boolean' }),
} }, ({ task }) => {
  task('t', () => 1);
});
let h: Awaited<ReturnType<typeof apiOverRuntime>>;
let ctx: BrowserContext;
let browser: Browser;
let page: Page;

async function shot(name: string): Promise<void> {
  if (!SHOTS) return;
  await page.evaluate(() => { document.getElementById('flash')!.className = 'flash'; });
  await page.screenshot({ path: path.join(SHOTS, `${name}.png`) });
}

/** Navigates within the page and waits until the view has rendered. */
async function open(hash: string): Promise<void> {
  // A flash stays up for 6 s: clear the last test's, so a wait for `.flash.ok` sees this one's.
  const want = await page.evaluate((x) => {
    const flash = document.getElementById('flash');
    if (flash) { flash.textContent = ''; flash.className = 'flash'; }
    document.getElementById('main')!.dataset.ready = '';
    location.hash = x;
    return location.hash;
  }, hash);
  await page.waitForFunction((w) => document.getElementById('main')!.dataset.ready === w, want);
}

beforeAll(async () => {
  h = await apiOverRuntime([etl, branching, fanOutIn, hourly, mapped, oddXcom, paramForm]);
  // Runs like `npm start`: a few days of etl_daily (one with conf full), one of each other DAG.
  for (let d = 1; d <= 5; d++) {
    const run = await h.rt.trigger('etl_daily', { logicalDate: Date.parse(`2026-01-0${d}T02:00:00Z`), conf: d === 3 ? { full: true } : {} });
    await h.rt.runToCompletion('etl_daily', run.runId);
  }
  for (const id of ['branching', 'fan_out_in', 'hourly_catchup', 'mapped_ui', 'odd_xcom']) {
    const run = await h.rt.trigger(id, { logicalDate: Date.parse('2026-01-01T00:00:00Z') });
    await h.rt.runToCompletion(id, run.runId);
  }
  browser = await launchChromium();
  ctx = await browser.newContext({ viewport: { width: 1280, height: 760 } });
  await ctx.addInitScript(() => { (window as unknown as { __airlessPollMs: number }).__airlessPollMs = 150; });
  page = await ctx.newPage();
  page.on('pageerror', (err) => { throw err; });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await h?.api.close();
});

describe('UI in Chromium', () => {
  it('signs in from /#token=, keeps the token in the tab (no cookie, gone from the address) and lists the DAGs with recent runs', async () => {
    await page.goto(`${h.api.url}/#token=${TOKEN}`);
    await page.waitForSelector('[data-testid=dags] tr[data-dag]');
    expect(page.url()).toBe(`${h.api.url}/#/`);
    expect(await ctx.cookies()).toEqual([]);
    expect(await page.evaluate(() => sessionStorage.getItem('airless.token'))).toBe(TOKEN);
    expect(await page.$$eval('[data-testid=dags] tr[data-dag]', (rows) => rows.map((r) => (r as HTMLElement).dataset.dag))).toEqual(['branching', 'etl_daily', 'fan_out_in', 'hourly_catchup', 'mapped_ui', 'odd_xcom', 'param_form']);
    expect(await page.$$eval('tr[data-dag=etl_daily] .dot', (d) => d.length)).toBe(5);
    // Recent runs from the spec's batch runs list; the header names the backend from a response header.
    expect(await page.$$eval('tr[data-dag=branching] .dot', (d) => d.length)).toBe(1);
    expect(await page.textContent('#backend')).toBe('local');
    expect(await page.textContent('tr[data-dag=param_form] a[title=param_form]')).toBe('Params form 📝');
    await shot('dags');
  });

  it('shows the grid of runs × tasks in state colours, with tries', async () => {
    await open('#/dags/etl_daily/grid');
    await page.waitForSelector('[data-testid=grid] .row');
    expect(await page.$$eval('.grid-head .run', (r) => r.length)).toBe(5);
    const extract = page.locator('.row.task', { has: page.locator('.name', { hasText: /^extract$/ }) });
    expect(await extract.locator('i').evaluateAll((cs) => cs.map((c) => [(c as HTMLElement).dataset.state, c.textContent]))).toEqual(Array(5).fill(['success', '2']));
    expect(await page.locator('.row.task', { has: page.locator('.name', { hasText: /^delta$/ }) }).locator('i[data-state=skipped]').count()).toBe(1);
    await shot('grid');
  });

  it("draws the trigger form's fields from the params' JSON Schemas and sends typed values", async () => {
    await open('#/dags/param_form/trigger');
    const rows = page.locator('[data-testid=param-rows]');
    expect([await rows.getAttribute('type'), await rows.getAttribute('min'), await rows.getAttribute('max'), await rows.inputValue()]).toEqual(['number', '1', '10', '5']);
    expect(await page.locator('label', { has: rows }).textContent()).toMatch(/^Rows to read .*at most 10$/);
    expect(await page.$$eval('[data-testid=param-region] option', (o) => o.map((x) => x.textContent))).toEqual(['eu', 'us']);
    expect(await page.locator('[data-testid=param-ticket]').getAttribute('pattern')).toBe('^OPS-[0-9]+$');
    expect(await page.locator('[data-testid=param-full]').getAttribute('type')).toBe('checkbox');
    await page.fill('[data-testid=param-rows]', '7');
    await page.selectOption('[data-testid=param-region]', '"us"');
    await page.fill('[data-testid=param-ticket]', 'OPS-12');
    await page.check('[data-testid=param-full]');
    await page.click('[data-testid=trigger-submit]');
    await page.waitForSelector('[data-testid=flash].ok');
    const [run] = await h.rt.ports.store.listRuns('param_form', { limit: 1 });
    expect(run.conf).toEqual({ rows: 7, region: 'us', ticket: 'OPS-12', full: true });
    // The form sends the page to the grid: wait for it, so the next view does not find this form.
    await page.waitForSelector('[data-testid=grid]');
  });

  it('triggers etl_daily from the form built from its params and watches it turn green', async () => {
    await open('#/dags/etl_daily/trigger');
    await page.fill('input[name="param:region"]', '"us"');
    await page.fill('input[name=logical_date]', '2026-01-09T02:00:00Z');
    await page.click('[data-testid=trigger-submit]');
    // The flash of the test before stays up for 6 s: wait for this trigger's own.
    await page.waitForFunction(() => /triggered manual__2026-01-09/.test(document.querySelector('[data-testid=flash]')!.textContent ?? ''));
    const [run] = await h.rt.ports.store.listRuns('etl_daily', { limit: 1 });
    expect(run.conf).toEqual({ region: 'us' });
    await page.waitForSelector('[data-testid=grid] .grid-head .run:last-child:not([data-state=success])');
    expect(await h.rt.runToCompletion('etl_daily', run.runId)).toBe('done');
    await page.waitForSelector('[data-testid=grid] .grid-head .run:last-child[data-state=success]');
    expect(await page.$$eval('.grid-head .run', (r) => r.length)).toBe(6);
  });

  it('opens a task instance: details, each try log, XCom and rendered fields', async () => {
    const [run] = await h.rt.ports.store.listRuns('etl_daily', { limit: 1 });
    await open(`#/dags/etl_daily/runs/${encodeURIComponent(run.runId)}/tasks/extract?try=1`);
    expect(await page.textContent('[data-testid=log]')).toMatch(/source not ready yet/);
    await open(`#/dags/etl_daily/runs/${encodeURIComponent(run.runId)}/tasks/extract`);
    expect(await page.textContent('[data-testid=log]')).toMatch(/state running -> success/);
    expect(await page.textContent('[data-testid=xcom]')).toMatch(/"rows":42/);
    expect(await page.$$eval('.tries .try', (t) => t.map((x) => x.textContent))).toEqual(['try 1', 'try 2']);
    await shot('task-instance');
  });

  it('shows an XCom value JSON cannot write (a BigInt, a Set, a cycle) on the task page', async () => {
    const [run] = await h.rt.ports.store.listRuns('odd_xcom', { limit: 1 });
    await open(`#/dags/odd_xcom/runs/${encodeURIComponent(run.runId)}/tasks/odd`);
    expect(await page.textContent('[data-testid=xcom]')).toContain('{"total":{"$bigint":"12345678901234567890"},"seen":{"$set":["a"]},"self":{"$ref":"$"}}');
  });

  it('shows a mapped task as one row marked [ ] and lists its instances, each with its own log and XCom', async () => {
    await open('#/dags/mapped_ui/grid');
    const size = page.locator('.row.task', { has: page.locator('.name', { hasText: /^size \[ \]$/ }) });
    await size.locator('i').first().hover();
    expect(await size.locator('i').first().getAttribute('title')).toMatch(/size · manual__.* · success · 3 mapped: 3 success$/);
    expect(await page.locator('.row.task .name', { hasText: /^list_files$/ }).count()).toBe(1);
    const [run] = await h.rt.ports.store.listRuns('mapped_ui', { limit: 1 });
    await open(`#/dags/mapped_ui/runs/${encodeURIComponent(run.runId)}/tasks/size`);
    expect(await page.$$eval('[data-testid=instances] tr[data-map-index]', (rows) => rows.map((r) => r.textContent))).toEqual([
      expect.stringMatching(/^0success1/), expect.stringMatching(/^1success1/), expect.stringMatching(/^2success1/),
    ]);
    await open(`#/dags/mapped_ui/runs/${encodeURIComponent(run.runId)}/tasks/size?map_index=1`);
    expect(await page.textContent('h2')).toMatch(/size \[1\]/);
    expect(await page.textContent('[data-testid=log]')).toMatch(/sizing bb\.csv/);
    expect(await page.textContent('[data-testid=xcom]')).toMatch(/return_value\s*6/);
    expect(await page.locator('[data-testid=instances]').count()).toBe(0);
    await open(`#/dags/mapped_ui/runs/${encodeURIComponent(run.runId)}/tasks/list_files`);
    expect(await page.$$eval('[data-testid=log] a', (a) => a.map((x) => [x.textContent, x.getAttribute('href'), x.getAttribute('rel')]))).toEqual([
      ['logs', 'https://eu-west-1.console.aws.amazon.com/cloudwatch/home?region=eu-west-1&x=<b>', 'noopener noreferrer'],
    ]);
  });

  it('clears a task with its downstream', async () => {
    const [run] = await h.rt.ports.store.listRuns('etl_daily', { limit: 1 });
    await open(`#/dags/etl_daily/runs/${encodeURIComponent(run.runId)}/tasks/load`);
    await page.click('[data-testid=clear]');
    await page.waitForFunction(() => /cleared 4 task instance/.test(document.querySelector('[data-testid=flash]')!.textContent ?? ''));
    expect((await h.rt.ports.store.getTask({ dagId: 'etl_daily', runId: run.runId, taskId: 'load' }))!.state).not.toBe('success');
    expect(await h.rt.runToCompletion('etl_daily', run.runId)).toBe('done');
    await page.waitForFunction(() => document.querySelector('[data-testid=ti-details] .badge')?.getAttribute('data-state') === 'success');
  });

  it('marks a failed task success and its downstream runs again', async () => {
    const [run] = await h.rt.ports.store.listRuns('fan_out_in', { limit: 1 });
    await open(`#/dags/fan_out_in/runs/${encodeURIComponent(run.runId)}/tasks/shard_c`);
    await page.click('[data-testid=mark-success]');
    await page.waitForFunction(() => /marked shard_c success/.test(document.querySelector('[data-testid=flash]')!.textContent ?? ''));
    expect(await h.rt.runToCompletion('fan_out_in', run.runId)).toBe('done');
    expect((await h.rt.ports.store.getTask({ dagId: 'fan_out_in', runId: run.runId, taskId: 'publish' }))!.state).toBe('success');
    await page.click('[data-testid=mark-failed]');
    await page.waitForFunction(() => /marked shard_c failed/.test(document.querySelector('[data-testid=flash]')!.textContent ?? ''));
    expect(await h.rt.runToCompletion('fan_out_in', run.runId)).toBe('done');
    expect((await h.rt.ports.store.getTask({ dagId: 'fan_out_in', runId: run.runId, taskId: 'publish' }))!.state).toBe('upstream_failed');
  });

  it('toggles pause from the DAG list', async () => {
    await open('#/');
    await page.click('[data-testid=pause-branching]');
    await page.waitForSelector('[data-testid=flash].ok');
    expect((await h.rt.ports.store.getDag('branching'))!.paused).toBe(true);
    await page.click('[data-testid=pause-branching]');
    await page.waitForFunction(() => /unpaused/.test(document.querySelector('[data-testid=flash]')!.textContent ?? ''));
    expect((await h.rt.ports.store.getDag('branching'))!.paused).toBe(false);
  });

  it('sends a signal from the form', async () => {
    await open('#/dags/etl_daily/signal');
    await page.fill('input[name=key]', 'approve-2026-01-01');
    await page.fill('input[name=payload]', '{"by":"ui"}');
    await page.click('form.signal button');
    await page.waitForFunction(() => /signal approve-2026-01-01 sent/.test(document.querySelector('[data-testid=flash]')!.textContent ?? ''));
    expect(await page.textContent('[data-testid=flash]')).toMatch(/0 task\(s\) resumed/);
    expect(await h.rt.ports.store.getSignal('approve-2026-01-01', h.clock.now())).toMatchObject({ payload: { by: 'ui' } });
  });

  it('draws the graph with the latest run states and the Gantt of a run', async () => {
    await open('#/dags/fan_out_in/graph');
    await page.waitForSelector('[data-testid=graph] g.node');
    const states = await page.$$eval('g.node', (ns) => Object.fromEntries(ns.map((n) => [(n as SVGElement).dataset.task, (n as SVGElement).dataset.state])));
    expect(states).toMatchObject({ start: 'success', shard_c: 'failed', publish: 'upstream_failed' });
    await shot('graph');
    // Edge labels (Airflow's Label) are drawn on their edges.
    await open('#/dags/branching/graph');
    await page.waitForSelector('[data-testid=graph] text.elabel');
    const labels = await page.$$eval('text.elabel', (ts) => Object.fromEntries(ts.map((t) => [(t as SVGElement).dataset.edge, t.textContent])));
    expect(labels).toEqual({ 'choose>weekday': 'Mon-Fri', 'choose>weekend': 'Sat, Sun' });
    // The DAG's doc, on its grid, as text (markup in it is not HTML).
    await open('#/dags/branching/grid');
    expect(await page.textContent('[data-testid=dag-doc] div')).toBe('Loads fully on weekdays, lightly at weekends.\n<b>not bold</b>');
    expect(await page.locator('[data-testid=dag-doc] b').count()).toBe(0);
    await open('#/dags/etl_daily/graph');
    expect(await page.getAttribute('g.node[data-task=full]', 'data-state')).toBe('skipped');
    const day3 = 'manual__2026-01-03T02:00:00.000Z';
    await page.selectOption('[data-testid=graph-run]', day3);
    await page.waitForFunction((w) => document.getElementById('main')!.dataset.ready === w, `#/dags/etl_daily/graph?run=${encodeURIComponent(day3)}`);
    expect(await page.getAttribute('g.node[data-task=full]', 'data-state')).toBe('success');
    const [run] = await h.rt.ports.store.listRuns('etl_daily', { limit: 1 });
    await open(`#/dags/etl_daily/runs/${encodeURIComponent(run.runId)}/gantt`);
    await page.waitForSelector('[data-testid=gantt] .bar');
    expect(await page.locator('[data-testid=gantt] .bar').count()).toBe(6);
    await shot('gantt');
  });

  it('keeps each UI signed in on its own port, and lets no page on another port see either token', async () => {
    const heard: string[] = [];
    const other = createServer((req, res) => { heard.push(`${req.headers.cookie ?? ''} ${req.headers.authorization ?? ''}`); res.end('<!doctype html><title>another local service</title>'); });
    await new Promise<void>((r) => other.listen(0, '127.0.0.1', r));
    const second = await attachUi(h.rt, { port: '0', token: 'second-ui-token-42' }, { env: {}, out: () => {} });
    try {
      const page2 = await ctx.newPage();
      await page2.goto(`${second.url}/#token=second-ui-token-42`);
      await page2.waitForSelector('[data-testid=dags] tr[data-dag]');
      // The first UI is still signed in after the second signed in (a shared cookie name logged it out).
      await page.evaluate(() => { location.hash = '#/'; });
      await page.reload();
      await page.waitForSelector('[data-testid=dags] tr[data-dag]');
      expect(await page.evaluate(() => sessionStorage.getItem('airless.token'))).toBe(TOKEN);
      const third = await ctx.newPage();
      await third.goto(`http://127.0.0.1:${(other.address() as AddressInfo).port}/`);
      expect(await third.evaluate(() => [sessionStorage.getItem('airless.token'), localStorage.length, document.cookie])).toEqual([null, 0, '']);
      await third.evaluate((u) => fetch(`${u}/api/v2/dags`, { mode: 'no-cors', credentials: 'include' }).catch(() => undefined), h.api.url);
      expect(heard.join('\n')).not.toMatch(new RegExp(`${TOKEN}|second-ui-token-42`));
      await Promise.all([page2.close(), third.close()]);
    } finally {
      await second.close();
      await new Promise<void>((r) => other.close(() => r()));
    }
  });
});
