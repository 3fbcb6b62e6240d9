import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Page } from 'playwright-core';

// The console's screenshots (docs/console/), each at desktop and phone width.

const SHOTS = join(process.cwd(), 'docs', 'console');
export const DESKTOP = { width: 1280, height: 900 };
const PHONE = { width: 390, height: 844 };

export const screenshotsFolder = () => mkdir(SHOTS, { recursive: true });

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
