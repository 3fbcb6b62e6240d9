import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { credentialsByEmail } from '../../src/identity/credentials.js';
import { createDb, type Knex } from '../../src/infra/db.js';
import { loadAccounts } from '../../src/projections/accounts/queries.js';
import { DESKTOP, launchChromium, shootWidths, type ChromiumSession } from '../support/chromium.js';
import { cli, eventually } from '../support/processes.js';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { startOwnService, type OwnService } from '../support/service.js';

// A seller's Settings in a real browser (chromium), as `npm start` serves it: sign up, add a
// webhook pointing at a receiver the test runs, press "Send test", see what the receiver
// answered, then find that delivery in Activity with its status. Screenshots of Settings at
// desktop and phone width go to docs/console/.

const ANSWER = 'thanks, received';

describe("a seller's Settings in a browser", function () {
  this.timeout(400_000);
  let own: OwnService;
  let db: Knex;
  let receiver: Receiver;
  let browser: ChromiumSession;
  let page: Page;

  before(async () => {
    receiver = await startReceiver((_n, response) => response.writeHead(202).end(ANSWER));
    own = await startOwnService('settings', { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' });
    db = createDb(own.env.DATABASE_URL!, { min: 0, max: 2 });
    browser = await launchChromium();
    page = browser.context.pages()[0] ?? (await browser.context.newPage());
    await page.setViewportSize(DESKTOP);
  });
  after(async () => {
    await browser?.close();
    await db?.destroy();
    await own?.stop();
    await receiver?.close();
  });

  it("adds a webhook, sends a test, shows the receiver's answer, and finds the delivery in Activity", async () => {
    const email = `settings.${Date.now()}@example.com`;
    await page.goto(`${own.base}/sign-up`);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill('ample meadow lantern');
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.waitForURL((u) => u.pathname === '/account');
    // the operator connects the simulator's seller to this seller's user
    const userId = (await credentialsByEmail(db, email))!.user_id;
    const account = (await cli(['accounts', 'connect', '--user', userId], own.env)).trim();
    await eventually(
      async () => ((await loadAccounts(db, userId)).some((a) => a.id === account) ? true : undefined),
      'the connected account',
      120_000,
    );

    await page.goto(`${own.base}/console`);
    await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Settings' }).click();
    await page.waitForURL((u) => u.pathname === '/console/settings');
    const add = page.locator('#webhook-add');
    await add.getByLabel('Name').fill('alerts');
    await add.getByLabel('URL').fill(receiver.url);
    await add.getByLabel('Type').selectOption('chat');
    await add.getByLabel('Headers').fill('Authorization: Bearer e2e-only');
    await add.getByRole('button', { name: 'Add webhook' }).click();
    await page.getByRole('heading', { name: 'Webhook added' }).waitFor();
    expect(await page.locator('.secret code').innerText()).to.match(/^whsec_/);
    await page.getByRole('link', { name: 'Back to Settings' }).click();
    await page.getByRole('heading', { name: 'alerts', exact: true }).waitFor();
    expect(await page.content()).to.not.contain('e2e-only');
    await shootWidths(page, 'settings');

    await page.getByRole('button', { name: 'Send test to alerts' }).click();
    await page.getByRole('heading', { name: 'Test sent to alerts' }).waitFor({ timeout: 40_000 });
    expect(await page.locator('dl').innerText()).to.contain('HTTP 202');
    expect(await page.locator('dl pre').innerText()).to.equal(ANSWER);
    expect(receiver.received).to.have.length(1);
    expect(receiver.received[0]!.headers.authorization).to.equal('Bearer e2e-only');
    const deliveryId = receiver.received[0]!.headers['x-service-delivery-id'] as string;

    await page.getByRole('link', { name: 'This delivery in Activity' }).click();
    await page.waitForURL((u) => u.pathname === '/console/activity' && u.searchParams.get('kind') === 'delivery');
    const item = page.locator(`#item-${deliveryId}`);
    // the deliveries' read model follows the log within moments
    await eventually(
      async () => {
        if ((await item.count()) > 0 && (await item.locator('.status').innerText()) === 'delivered') return true;
        await page.reload();
        return undefined;
      },
      'the test delivery in Activity, delivered',
      30_000,
    );
    expect(await item.innerText()).to.match(/Attempt 1 at .*: HTTP 202, \d+ ms, delivered/);
  });
});
