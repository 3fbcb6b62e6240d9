import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { DEMO_ACCOUNT_ID } from '../../src/service.js';
import { DESKTOP, launchChromium, shootWidths, type ChromiumSession } from '../support/chromium.js';
import { cli, eventually } from '../support/processes.js';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { startOwnService, type OwnService } from '../support/service.js';

// The demo seller's console in a real browser (chromium), as `npm start` serves it: the Overview
// at `/` without sign-in draws the demo seller's synced sales as a chart; Activity pages through
// webhook deliveries the workers made. Screenshots at desktop and phone width go to docs/console/,
// each page and width checked with axe-core (no serious or critical violation) first.

const TEST_SENDS = 3;

describe("the demo seller's console in a browser", function () {
  this.timeout(400_000);
  let own: OwnService;
  let receiver: Receiver;
  let browser: ChromiumSession;
  let page: Page;

  before(async () => {
    receiver = await startReceiver();
    own = await startOwnService('console', { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' });
    // deliveries of the demo seller through the service's own worker: what Activity pages through
    const webhook = (...args: string[]) => cli(['webhook', ...args, '--account', DEMO_ACCOUNT_ID], own.env);
    await webhook('add', '--name', 'alerts', '--url', receiver.url, '--type', 'chat');
    for (let i = 0; i < TEST_SENDS; i++) await webhook('test', '--name', 'alerts');
    browser = await launchChromium();
    page = browser.context.pages()[0] ?? (await browser.context.newPage());
    await page.setViewportSize(DESKTOP);
  });
  after(async () => {
    await browser?.close();
    await own?.stop();
    await receiver?.close();
  });

  it("shows the demo seller's sales and ad spend as charts at / without sign-in", async () => {
    const sales = page.getByRole('img', { name: /^Confirmed sales per day/ });
    const spend = page.getByRole('img', { name: /^Ad spend per day/ });
    // the demo's history arrives over the first minutes: reload until both are drawn
    await eventually(
      async () => {
        await page.goto(`${own.base}/`);
        return (await sales.count()) > 0 && (await spend.count()) > 0 ? true : undefined;
      },
      "the demo seller's sales and ad spend",
      300_000,
    );
    expect(await page.getByRole('heading', { level: 1 }).innerText()).to.equal('Overview');
    // a chart with bars, and a description naming its busiest day in the marketplace's money
    expect(await sales.first().locator('rect').count()).to.be.greaterThan(0);
    expect(await sales.first().locator('desc').textContent()).to.match(/Busiest day: \d{4}-\d\d-\d\d, \D+[\d,.]+\./);
    // its figures as a table too
    await page
      .getByText(/as a table$/)
      .first()
      .click();
    expect(await page.getByRole('table').first().getByRole('row').count()).to.be.greaterThan(30);
    await page
      .getByText(/as a table$/)
      .first()
      .click();
    await shootWidths(page, 'overview');
  });

  it('pages through Activity, newest first, filtered to webhook deliveries', async () => {
    await page.goto(`${own.base}/`);
    await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Activity' }).click();
    await page.getByLabel('Kind').selectOption('delivery');
    await page.getByRole('button', { name: 'Show' }).click();
    await page.waitForURL((u) => u.pathname === '/activity' && u.searchParams.get('kind') === 'delivery');
    await shootWidths(page, 'activity');
    // two to a page: the three test sends take two pages
    await page.goto(`${own.base}/activity?kind=delivery&limit=2`);
    const seen: string[] = [];
    for (let pages = 1; ; pages++) {
      const items = page.locator('.timeline > li');
      const times = await items.locator('time.at').evaluateAll((ts) => ts.map((t) => t.getAttribute('datetime')!));
      expect(times, 'newest first').to.deep.equal([...times].sort().reverse());
      seen.push(...(await items.evaluateAll((lis) => lis.map((li) => li.id))));
      const older = page.getByRole('link', { name: 'Older' });
      if ((await older.count()) === 0) {
        expect(pages).to.equal(2);
        break;
      }
      await older.click();
      await page.waitForURL((u) => u.searchParams.has('cursor'));
    }
    expect(seen).to.have.length(TEST_SENDS);
    expect(new Set(seen).size).to.equal(TEST_SENDS);
  });
});
