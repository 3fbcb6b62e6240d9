import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { pushPrice } from '../support/automation.js';
import { DESKTOP, launchChromium, shootWidths, type ChromiumSession } from '../support/chromium.js';
import { SELLER_PASSWORD, startConsoleSeller, type ConsoleSeller } from '../support/console-seller.js';
import { eventually } from '../support/processes.js';

// The Automations pages in a real browser (chromium) on the service as `npm start` runs it: a
// seller signs in, activates their repricing automation, dry-runs it and reads its logs, blocks
// one of their listings (confirming it), provokes a live run through the simulator and finds its
// action recorded `blocked` in Activity, then backtests the automation over today and sees the
// chart. Screenshots of the list and the automation's page at desktop and phone width (each
// checked for accessibility first) go to docs/console/.

const US = 'ATVPDKIKX0DER';

/** Undercuts the lowest competing price by a cent, and says so. */
const REPRICE = `function handle(event, context) {
  const lowest = event.Payload.AnyOfferChangedNotification.Summary.LowestPrices?.[0]?.ListingPrice?.Amount;
  console.log('lowest competing price: ' + lowest);
  if (lowest == null) return;
  const price = Math.max(1, Math.round((lowest - 0.01) * 100) / 100);
  ${pushPrice('price')}
}`;

type Row = Record<string, any>;

describe('the console Automations pages in a browser', function () {
  this.timeout(600_000);
  let s: ConsoleSeller;
  let browser: ChromiumSession;
  let page: Page;
  let automation: string;
  let listing: Row;
  /** what the page says, for a failure's message */
  const main = () => page.locator('main').innerText();

  before(async () => {
    s = await startConsoleSeller('autos-e2e', { STREAMS_SWEEP_MS: '1000', SIMULATOR_MARKET_PACE_MS: '0' });
    ({ automation_id: automation } = await s.tool('create_automation', {
      stream_type: 'ANY_OFFER_CHANGED',
      account: s.account,
      code: REPRICE.replace(/\n.*console\.log.*/, ''),
    }));
    // version 2 logs what it saw: the page shows the diff
    await s.tool('update_automation', {
      automation_id: automation,
      title: 'Undercut the lowest offer',
      code: REPRICE,
    });
    // a listing whose ASIN no other listing of the marketplace shares: the event reaches it alone
    // (and the canned sample of a dry run names one of the seller's listings)
    listing = await eventually(
      async () => {
        const rows = (await s.tool('list_listings', { marketplace_id: US, limit: 100 })).listings as Row[];
        return rows.find((l) => l.asin && l.status === 'BUYABLE' && rows.filter((o) => o.asin === l.asin).length === 1);
      },
      "the seller's listings",
      200_000,
    );
    browser = await launchChromium();
    page = browser.context.pages()[0] ?? (await browser.context.newPage());
    await page.setViewportSize(DESKTOP);
  });
  after(async () => {
    await browser?.close();
    await s?.stop();
  });

  it('signs in, activates the automation from its page and dry-runs it', async () => {
    await page.goto(`${s.own.base}/console/automations`);
    await page.getByLabel('Email').fill(s.email);
    await page.getByLabel('Password').fill(SELLER_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL((u) => u.pathname === '/console/automations');
    await page.getByRole('link', { name: 'Undercut the lowest offer' }).click();
    await page.waitForURL((u) => u.pathname === `/console/automations/${automation}`);
    await page.getByRole('button', { name: 'Activate' }).click();
    await page.waitForURL((u) => u.searchParams.get('done') === 'activated');
    expect(await page.locator('dl.facts .state').innerText()).to.equal('live');

    await page.getByLabel('The canned sample of its event type').check();
    await page.getByRole('button', { name: 'Dry-run' }).click();
    const result = page.locator('#dry-run-result');
    expect(await result.locator('pre.logs').count(), await main()).to.equal(1);
    expect(await result.locator('pre.logs').innerText()).to.match(/^log: lowest competing price: \d/);
    expect(await result.getByRole('table').innerText()).to.contain('applied');
    await page.goto(`${s.own.base}/console/automations/${automation}`);
    await shootWidths(page, 'automation');
    await page.goto(`${s.own.base}/console/automations`);
    await shootWidths(page, 'automations');
  });

  it("blocks a listing, and a live run's action on it is recorded blocked in Activity", async () => {
    await page.goto(`${s.own.base}/console/automations/${automation}`);
    await page.getByRole('link', { name: 'Listing blocks and campaign switches' }).click();
    await page.getByLabel('Title, SKU or ASIN').fill(listing.sku);
    await page.getByRole('button', { name: 'Find listings' }).click();
    await page.getByRole('button', { name: `Block ${listing.sku}` }).click();
    expect(await page.getByRole('heading', { level: 1 }).innerText()).to.equal('Confirm');
    await page.getByRole('button', { name: 'Block', exact: true }).click();
    await page.waitForURL((u) => u.searchParams.get('done') === 'flag');
    await page.getByLabel('Title, SKU or ASIN').fill(listing.sku);
    await page.getByRole('button', { name: 'Find listings' }).click();
    expect(await page.getByRole('button', { name: `Allow ${listing.sku}` }).count()).to.equal(1);
    await shootWidths(page, 'flags');

    await s.streamActive('ANY_OFFER_CHANGED');
    await s.raise('ANY_OFFER_CHANGED', { sku: listing.sku, marketplaceId: US });

    const item = page.locator('.timeline > li').filter({ hasText: `SKU ${listing.sku}` });
    await eventually(
      async () => {
        await page.goto(`${s.own.base}/console/activity?kind=action&automation=${automation}`);
        return (await item.count()) > 0 ? true : undefined;
      },
      "the live run's action in Activity",
      120_000,
    );
    expect(await item.first().locator('.status').innerText()).to.equal('blocked');
    expect(await item.first().innerText()).to.contain(`listing ${listing.id} is blocked`);
    // the event that caused it, with the action its run decided
    await item
      .first()
      .getByRole('link', { name: /^event / })
      .click();
    await page.waitForURL((u) => u.pathname.includes('/activity/events/'));
    expect(await page.locator('main').innerText()).to.contain(`listing ${listing.id} is blocked`);
    await shootWidths(page, 'event');
  });

  it('backtests the automation over today and sees the chart of its would-be changes', async () => {
    await page.goto(`${s.own.base}/console/automations/${automation}`);
    const today = new Date().toISOString().slice(0, 10);
    await page.getByLabel('From', { exact: true }).fill(today);
    await page.getByLabel('To (included)').fill(today);
    await page.getByRole('button', { name: 'Backtest' }).click();
    await page.waitForURL((u) => u.pathname.includes('/backtests/'));
    // the page reloads itself while the backtest runs (its Refresh header)
    await page
      .locator('strong.status')
      .filter({ hasText: /^(completed|failed|cancelled)$/ })
      .waitFor({ timeout: 120_000 });
    expect(await page.locator('strong.status').innerText(), await main()).to.equal('completed');
    const chart = page.getByRole('img', { name: /^Would-be changes per day/ });
    expect(await chart.count(), await main()).to.equal(1);
    expect(await chart.locator('rect').count()).to.be.greaterThan(0);
    expect(await chart.locator('desc').textContent()).to.match(/Busiest day: \d{4}-\d\d-\d\d, \d+\./);
  });
});
