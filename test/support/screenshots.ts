import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { launchChromium, type ChromiumSession } from './chromium.js';

// The console's screenshots (docs/console/), each at desktop and phone width.

const SHOTS = join(process.cwd(), 'docs', 'console');
const DESKTOP = { width: 1280, height: 900 };
const PHONE = { width: 390, height: 844 };

/** A chromium page at desktop width, the screenshots' folder made. */
export async function browserForScreenshots(): Promise<{ browser: ChromiumSession; page: Page }> {
  await mkdir(SHOTS, { recursive: true });
  const browser = await launchChromium();
  const page = browser.context.pages()[0] ?? (await browser.context.newPage());
  await page.setViewportSize(DESKTOP);
  return { browser, page };
}

/** `<name>-desktop.png` and `<name>-phone.png` of the whole page; the page is left at desktop width. */
export async function shoot(page: Page, name: string): Promise<void> {
  for (const [width, size] of [
    ['desktop', DESKTOP],
    ['phone', PHONE],
  ] as const) {
    await page.setViewportSize(size);
    await page.screenshot({ path: join(SHOTS, `${name}-${width}.png`), fullPage: true });
  }
  await page.setViewportSize(DESKTOP);
}
