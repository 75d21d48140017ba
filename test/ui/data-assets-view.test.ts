/**
 * The assets views in real headless Chromium: the list of assets with who produces and who
 * is scheduled on each, the DAG/asset lineage graph, one asset's events with the runs they
 * triggered, and asset nodes (edges from schedule assets, to outlets) in a DAG's graph.
 * With AIRLESS_SCREENSHOTS=DIR the views are saved there.
 */
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clean, customers, dashboard, ingest, rawOrders, report } from '../../examples/assets/orders.js';
import { apiOverRuntime, TOKEN } from '../api/support.js';
import { launchChromium } from './chromium.js';

const SHOTS = process.env.AIRLESS_SCREENSHOTS;
let h: Awaited<ReturnType<typeof apiOverRuntime>>;
let browser: Browser;
let page: Page;

async function open(hash: string): Promise<void> {
  const want = await page.evaluate((x) => { document.getElementById('main')!.dataset.ready = ''; location.hash = x; return location.hash; }, hash);
  await page.waitForFunction((w) => document.getElementById('main')!.dataset.ready === w, want);
}

beforeAll(async () => {
  h = await apiOverRuntime([ingest, clean, report, dashboard], { config: { runRetentionMs: 0 } });
  await h.rt.trigger('ingest_orders');
  await h.rt.runUntil(async () => (await h.rt.ports.store.listActiveRuns()).length === 0 && h.rt.queue.size === 0);
  browser = await launchChromium();
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 760 } });
  page = await ctx.newPage();
  page.on('pageerror', (err) => { throw err; });
  await page.goto(`${h.api.url}/?token=${TOKEN}`);
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await h?.api.close();
});

describe('assets in the UI', () => {
  it('lists the assets with producers, scheduled DAGs and the lineage graph', async () => {
    await page.click('header a.nav');
    await page.waitForSelector('[data-testid=assets] tr[data-asset]');
    const rows = await page.$$eval('[data-testid=assets] tr[data-asset]', (trs) => trs.map((tr) => [(tr as HTMLElement).dataset.asset, tr.children[2]!.textContent, tr.children[3]!.textContent]));
    expect(rows).toEqual([
      [clean.spec.tasks[0]!.outlets![0], 'clean_orders.clean', 'dashboard_refreshorders_report'],
      [customers.uri, 'ingest_orders.customers', 'dashboard_refreshorders_report'],
      [rawOrders.uri, 'ingest_orders.orders', 'clean_orders'],
    ]);
    const nodes = await page.$$eval('[data-testid=lineage] g.node', (gs) => gs.map((g) => (g as SVGGElement).dataset.task).sort());
    expect(nodes).toEqual(['asset:s3://lake/clean/orders', 'asset:s3://lake/raw/customers', 'asset:s3://lake/raw/orders',
      'dag:clean_orders', 'dag:dashboard_refresh', 'dag:ingest_orders', 'dag:orders_report']);
    if (SHOTS) await page.screenshot({ path: path.join(SHOTS, 'assets.png') });
  });

  it('shows an asset\'s events, their source and the runs they triggered', async () => {
    await page.click(`[data-testid=lineage] g.node[data-task="asset:${rawOrders.uri}"]`);
    await page.waitForSelector('[data-testid=events] tr[data-event]');
    const cells = await page.$$eval('[data-testid=events] tr[data-event] td', (tds) => tds.map((td) => td.textContent));
    expect(cells[1]).toMatch(/^ingest_orders\.orders manual__/);
    expect(cells[2]).toBe('{"file":"raw/orders/2026-01-01.csv","rows":120}');
    expect(cells[3]).toBe('clean_orders');
    expect(await page.textContent('[data-testid=queued]')).toBe('—');
    if (SHOTS) await page.screenshot({ path: path.join(SHOTS, 'asset.png') });
  });

  it('draws assets in a DAG\'s graph: schedule assets before its first task, outlets after their task', async () => {
    await open('#/dags/clean_orders/graph');
    await page.waitForSelector('svg g.node.asset');
    const assets = await page.$$eval('svg g.node.asset', (gs) => gs.map((g) => (g as SVGGElement).dataset.task).sort());
    expect(assets).toEqual(['asset:s3://lake/clean/orders', 'asset:s3://lake/raw/orders']);
    expect(await page.$$eval('svg polyline', (p) => p.length)).toBe(2);
    await page.click('svg g.node.asset[data-task="asset:s3://lake/clean/orders"]');
    await page.waitForFunction(() => location.hash === '#/assets/s3%3A%2F%2Flake%2Fclean%2Forders');
  });
});
