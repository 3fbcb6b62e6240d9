import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { expectAccessible } from './axe.js';

// Debian's chromium driven by playwright-core, headless, on a profile made for the test and
// removed after it. The machine has no network: everything that would reach out (updates,
// sync, QUIC probes) is off.

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

const ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export interface ChromiumSession {
  context: BrowserContext;
  close(): Promise<void>;
}

/** A headless chromium with a fresh user-data-dir; each navigation waits at most `timeoutMs`. */
export async function launchChromium(timeoutMs = 20_000): Promise<ChromiumSession> {
  const profile = await mkdtemp(join(tmpdir(), 'chromium-profile-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ARGS,
  });
  context.setDefaultTimeout(timeoutMs);
  return {
    context,
    async close() {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}

/** Where the console's screenshots go (linked from docs/console/README.md). */
export const CONSOLE_SHOTS = join(process.cwd(), 'docs', 'console');
export const DESKTOP = { width: 1280, height: 900 };
export const PHONE = { width: 390, height: 844 };

/**
 * Full-page screenshots of the page at desktop and phone width (`<name>-desktop.png`,
 * `<name>-phone.png`), each width first checked with axe-core (no serious or critical violation);
 * desktop width after.
 */
export async function shootWidths(page: Page, name: string, dir = CONSOLE_SHOTS): Promise<void> {
  await mkdir(dir, { recursive: true });
  for (const [width, size] of [
    ['desktop', DESKTOP],
    ['phone', PHONE],
  ] as const) {
    await page.setViewportSize(size);
    await expectAccessible(page, `${name} at ${width} width`);
    await page.screenshot({ path: join(dir, `${name}-${width}.png`), fullPage: true });
  }
  await page.setViewportSize(DESKTOP);
}
