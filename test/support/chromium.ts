import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';

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
