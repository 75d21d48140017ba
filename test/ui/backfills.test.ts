/**
 * The Backfills tab in headless Chromium: the preview shows the dry run's dates and cost,
 * Create starts a backfill whose progress the list shows, Pause and Unpause act on it,
 * and the list follows it to completion as the engine runs it. A bad range shows the
 * API's message.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dag } from '../../lib/sdk/index.js';
import { apiOverRuntime, TOKEN } from '../api/support.js';
import { launchChromium } from './chromium.js';

const NOW = Date.parse('2026-03-01T00:00:00Z');
let h: Awaited<ReturnType<typeof apiOverRuntime>>;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  const d = dag('bf_ui', { schedule: '@daily', maxActiveRuns: 1 }, ({ task }) => { task('a', () => 1); });
  h = await apiOverRuntime([d], { start: NOW });
  browser = await launchChromium();
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 760 } });
  await ctx.addInitScript(() => { (window as unknown as { __airlessPollMs: number }).__airlessPollMs = 150; });
  page = await ctx.newPage();
  page.on('pageerror', (err) => { throw err; });
  await page.goto(`${h.api.url}/?token=${TOKEN}#/dags/bf_ui/backfills`);
  await page.waitForSelector('[data-testid=backfill-form]');
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await h?.api.close();
});

describe('Backfills tab', () => {
  it('previews the cost, creates a backfill, pauses and unpauses it, and shows its progress to the end', async () => {
    await page.fill('input[name=from_date]', '2026-01-01T00:00:00Z');
    await page.fill('input[name=to_date]', '2026-01-02T00:00:00Z');
    await page.fill('input[name=from_date]', '2026-01-03T00:00:00Z');
    await page.click('[data-testid=backfill-preview]');
    await page.waitForSelector('[data-testid=flash].error');
    expect(await page.textContent('[data-testid=flash]')).toMatch(/from \(2026-01-03T00:00:00.000Z\) is after to/);

    await page.fill('input[name=from_date]', '2026-01-01T00:00:00Z');
    await page.fill('input[name=to_date]', '2026-01-03T00:00:00Z');
    await page.click('[data-testid=backfill-preview]');
    await page.waitForFunction(() => document.querySelector('[data-testid=backfill-estimate]')!.textContent!.includes('run(s)'));
    expect(await page.textContent('[data-testid=backfill-estimate]')).toMatch(/^3 run\(s\): 3 tasks, \d+ orchestration requests, about \$[\d.e-]+ at list prices \(no recent tries/);
    expect(await h.rt.ports.store.listBackfills('bf_ui')).toEqual([]);

    await page.fill('input[name=max_active_runs]', '1');
    await page.click('[data-testid=backfill-create]');
    await page.waitForSelector('[data-testid=bf-state-1]');
    expect(await page.textContent('[data-testid=bf-progress-1]')).toBe('1/3');
    await page.click('button[data-act=pause]');
    await page.waitForFunction(() => document.querySelector('[data-testid=bf-state-1]')?.textContent === 'paused');
    expect((await h.rt.ports.store.getBackfill(1))!.paused).toBe(true);
    await page.click('button[data-act=unpause]');
    await page.waitForFunction(() => document.querySelector('[data-testid=bf-state-1]')?.textContent === 'running');

    await h.rt.runUntil(async () => (await h.rt.ports.store.getBackfill(1))?.completedAt !== undefined);
    await page.waitForFunction(() => document.querySelector('[data-testid=bf-state-1]')?.textContent === 'completed');
    expect(await page.textContent('[data-testid=bf-progress-1]')).toBe('3/3');
    expect(await page.$$('button[data-act]')).toHaveLength(0);
  }, 60_000);
});
