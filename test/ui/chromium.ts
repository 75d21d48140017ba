/** Debian's headless Chromium driven by playwright-core (no browser download). */
import { execFileSync } from 'node:child_process';
import { chromium, type Browser } from 'playwright-core';

export const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
  '--disable-component-update', '--disable-sync', '--no-first-run'];

export function chromiumPath(): string {
  try {
    return execFileSync('which', ['chromium'], { encoding: 'utf8' }).trim();
  } catch {
    throw new Error('chromium is not installed: apt-get install -y chromium (.ci/run installs it when missing)');
  }
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: chromiumPath(), args: CHROMIUM_ARGS, headless: true });
}
