import { expect } from 'chai';
import type { Page } from 'playwright-core';
import type { MarketplaceEndpoints } from '../../src/marketplace/simulator/index.js';
import { setPriceOnExternalChange } from '../support/automation.js';
import { DESKTOP, launchChromium, shootWidths, type ChromiumSession } from '../support/chromium.js';
import { SELLER_PASSWORD, startConsoleSeller, type ConsoleSeller } from '../support/console-seller.js';
import { clientsFor, consumerPrices } from '../support/marketplace.js';
import { eventually, waitForLog } from '../support/processes.js';

// Reverting from the console in a real browser (chromium), on the service as `npm start` runs it:
// a live automation reprices a listing in the simulator; the seller selects its receipts in
// Activity, reads the dry run (what each revert would queue), confirms, and the simulator shows
// the prior price again. A form posted without its CSRF token reverts nothing.

const US = 'ATVPDKIKX0DER';
const SET = 7.77;
type Row = Record<string, any>;

const SET_PRICE = setPriceOnExternalChange(SET);

describe('reverting from the console in a browser', function () {
  this.timeout(600_000);
  let s: ConsoleSeller;
  let browser: ChromiumSession;
  let page: Page;
  let price: (sku: string) => Promise<number>;

  before(async () => {
    s = await startConsoleSeller('revert-ui', { STREAMS_SWEEP_MS: '1000', SIMULATOR_MARKET_PACE_MS: '0' });
    const line = await waitForLog(s.own.service, (r) => r.msg === 'marketplace simulator listening');
    const { selling } = clientsFor(line.endpoints as MarketplaceEndpoints);
    const sellerId = await eventually(
      async () =>
        ((await s.tool('connection_status', {})).accounts as Row[]).find((a) => a.id === s.account)?.selling
          ?.provider_id as string | undefined,
      'the selling connection',
      200_000,
    );
    price = consumerPrices(selling, sellerId, US);
    browser = await launchChromium();
    page = browser.context.pages()[0] ?? (await browser.context.newPage());
    await page.setViewportSize(DESKTOP);
  });
  after(async () => {
    await browser?.close();
    await s?.stop();
  });

  it("selects a live automation's price changes in Activity, reads the dry run, reverts them: the simulator shows the prior prices", async () => {
    const listed = await eventually(
      async () => {
        const all = ((await s.tool('list_listings', { marketplace_id: US, limit: 100 })).listings as Row[]).filter(
          (l) => l.asin && l.status === 'BUYABLE',
        );
        return all.length > 0 ? all : undefined;
      },
      "the account's listings",
      400_000,
    );
    const target = listed[0]!;
    // an event reaches every listing of its ASIN
    const reached = listed.filter((l) => l.asin === target.asin);
    const prior = new Map<string, number>();
    for (const l of reached) prior.set(l.sku, await price(l.sku));
    expect([...prior.values()]).to.not.include(SET);

    const { automation_id } = await s.tool('create_automation', {
      stream_type: 'ANY_OFFER_CHANGED',
      account: s.account,
      code: SET_PRICE,
    });
    await s.tool('update_automation', { automation_id, activate: true });
    await s.streamActive('ANY_OFFER_CHANGED');
    await s.raise('ANY_OFFER_CHANGED', { sku: target.sku, marketplaceId: US });
    const receipts = await eventually(
      async () => {
        const actions = ((await s.tool('list_automation_actions', { automation_id })).actions as Row[]).filter(
          (a) => a.kind === 'mutation' && a.receipt_id,
        );
        if (actions.length < reached.length) return undefined;
        const ids = actions.map((a) => a.receipt_id as string);
        const shown = await Promise.all(ids.map((id) => s.tool('get_mutation', { id })));
        return shown.every((r) => r.status === 'submitted') ? ids : undefined;
      },
      'the price changes to be submitted',
      120_000,
    );
    for (const l of reached) expect(await price(l.sku)).to.equal(SET);

    // a confirm form posted without its CSRF token reverts nothing
    const forged = await s.browser.post('/console/activity/revert/confirm', {
      _csrf: '',
      receipt_ids: receipts[0]!,
    });
    expect(forged.status).to.equal(403);
    // nothing selected, or not a receipt id: refused, saying what
    await s.browser.get('/console/activity?kind=receipt');
    const none = await s.browser.post('/console/activity/revert', {});
    expect(none.status).to.equal(400);
    expect(none.text).to.contain('Select at least one receipt to revert.');
    const bad = await s.browser.post('/console/activity/revert', { receipt_ids: 'not-a-receipt' });
    expect(bad.status).to.equal(400);
    expect(bad.text).to.contain('invalid: receipt_ids[0]: &#39;not-a-receipt&#39; is not a receipt id (a uuid)');

    await page.goto(`${s.own.base}/console/activity?kind=receipt`);
    await page.getByLabel('Email').fill(s.email);
    await page.getByLabel('Password').fill(SELLER_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL((u) => u.pathname === '/console/activity');
    for (const id of receipts) await page.getByLabel(`Select receipt ${id} to revert`).check();
    await page.getByRole('button', { name: /Revert the selected changes/ }).click();
    await page.waitForURL((u) => u.pathname === '/console/activity/revert');
    expect(await page.locator('.reverts .status', { hasText: 'would_queue' }).count()).to.equal(receipts.length);
    await shootWidths(page, 'revert');
    await page.getByRole('button', { name: 'Revert', exact: true }).click();
    await page.waitForURL((u) => u.pathname === '/console/activity/revert/confirm');
    expect((await page.getByRole('status').textContent())!.replace(/\s+/g, ' ')).to.contain(
      `${receipts.length} revert${receipts.length === 1 ? '' : 's'} queued`,
    );
    // each revert is a receipt of its own, linked from the answer
    const revertLink = page.getByRole('link', { name: /^receipt / }).first();
    await revertLink.click();
    await page.waitForURL((u) => u.pathname.startsWith('/console/activity/receipts/'));
    expect(await page.getByText(/The revert of/).count()).to.equal(1);

    const reverted = ((await s.tool('list_mutations', { account: s.account, limit: 100 })).mutations as Row[])
      .filter((m) => m.caused_by?.reverts)
      .map((m) => m.caused_by.reverts as string);
    expect(reverted.sort(), 'one revert per selected receipt, none from the forged form').to.deep.equal(
      [...receipts].sort(),
    );
    await eventually(
      async () => {
        for (const l of reached) if ((await price(l.sku)) !== prior.get(l.sku)) return undefined;
        return true;
      },
      'the prior prices back in the simulator',
      120_000,
    );
    // the revert's receipt, its history through to the marketplace's answer
    await eventually(
      async () => {
        await page.reload();
        return (await page.getByText('None yet.').count()) === 0 ? true : undefined;
      },
      "the marketplace's answer on the revert's receipt page",
      60_000,
    );
    await shootWidths(page, 'receipt');
  });
});
