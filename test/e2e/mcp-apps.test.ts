import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { recordAutomationRun } from '../../src/commands/automation-run/record.js';
import { newId } from '../../src/domain/shared/ids.js';
import { automationRunsProjection } from '../../src/projections/automation-runs/projection.js';
import { automationsProjection } from '../../src/projections/automations/projection.js';
import { streamsProjection } from '../../src/projections/streams/projection.js';
import { listingsProjection } from '../../src/projections/observed/listings.js';
import { ordersProjection } from '../../src/projections/observed/orders.js';
import { money } from '../../src/web/console/format.js';
import { listingsSync } from '../../src/workers/sync/listings.js';
import { ordersSync } from '../../src/workers/sync/orders.js';
import { hostApp } from '../support/app-host.js';
import { expectAccessible } from '../support/axe.js';
import { quietReport } from '../support/automation-run.js';
import { launchChromium, type ChromiumSession } from '../support/chromium.js';
import { eventually } from '../support/processes.js';
import { serveMcp, type McpServing } from '../support/mcp.js';
import { startHarness, type Harness } from '../support/observed.js';

// The MCP Apps (src/mcp/resources/apps.ts) in chromium, inside a host page the test serves: a
// seller synced from the simulator, each app's page as resources/read gives it, and its tool's
// answer handed to it as a host would. The sales app draws each marketplace's days from
// get_sales_summary calls the host forwards to the service; the activity app draws an automation's
// actions recorded by the runner's own command. Neither fetches anything itself.

const SELLER = 'Atzr|demo-seller';
const START = Date.parse('2026-05-20T20:00:00Z');
const SHOT = join(process.cwd(), 'docs', 'console', 'mcp-app-overview.png');

describe('the MCP Apps in a browser host', function () {
  this.timeout(300_000);
  let h: Harness;
  let serving: McpServing;
  let client: Client;
  let browser: ChromiumSession;
  let page: Page;
  let account: string;
  const user = newId();

  /** the page of the app a tool links to, as resources/read answers it */
  const appOf = async (tool: string) => {
    const { tools } = await client.listTools();
    const uri = (tools.find((t) => t.name === tool)!._meta as { ui: { resourceUri: string } }).ui.resourceUri;
    const { contents } = await client.readResource({ uri });
    return (contents[0] as { text: string }).text;
  };

  before(async () => {
    h = await startHarness(
      [listingsProjection, ordersProjection, automationsProjection, automationRunsProjection, streamsProjection],
      [],
      START,
    );
    account = await h.connect('seller', user);
    await h.run(listingsSync, account, SELLER);
    await h.run(ordersSync, account, SELLER);
    await h.projector.whenCaughtUp();
    serving = await serveMcp(h.db, () => new Date(h.clock.ms), user);
    client = await serving.clientFor(user);
    browser = await launchChromium();
    page = await browser.context.newPage();
    await page.setViewportSize({ width: 1280, height: 900 });
  });
  after(async () => {
    await browser?.close();
    await serving?.close();
    await h?.close();
  });

  it("draws each marketplace's sales per day from get_sales_summary's own answers, read through the host", async () => {
    const args = {};
    const answer = (await client.callTool({ name: 'get_sales_summary', arguments: args })) as CallToolResult;
    const rows = (answer.structuredContent!.rows as Array<{ revenue: number; currency: string }>).filter(
      (r) => r.revenue > 0,
    );
    expect(rows.length, 'the seller has confirmed sales').to.be.greaterThan(1);
    const html = await appOf('get_sales_summary');
    const requests: string[] = [];
    page.on('request', (r) => requests.push(r.url()));

    const host = await hostApp(page, html, client, { name: 'get_sales_summary', arguments: args }, answer);
    try {
      const done = host.frame.getByRole('status');
      await done.filter({ hasText: /^Each day read through get_sales_summary: \d+ calls\.$/ }).waitFor();
      const charts = host.frame.getByRole('img', { name: /^Confirmed sales per day/ });
      expect(await charts.count()).to.equal(rows.length);
      // each chart's days add up to the tool's total for the window, in the marketplace's money
      for (const [i, r] of rows.entries()) {
        expect(await charts.nth(i).locator('rect').count()).to.be.greaterThan(0);
        expect(await charts.nth(i).locator('desc').textContent()).to.contain(
          `${money(r.revenue, r.currency)} over the`,
        );
      }
      // every figure came through tools/call: one get_sales_summary a day, each answered
      const days = new Set(host.calls.map((c) => c.arguments.since));
      expect(days.size).to.be.within(30, 31);
      expect(host.calls).to.have.length(days.size);
      for (const c of host.calls) {
        expect(c.name).to.equal('get_sales_summary');
        expect(c.arguments.until).to.equal(c.arguments.since);
        expect(c.answer.isError).to.not.equal(true);
      }
      // and nothing around them: the only request the browser made is the host page's
      expect(requests).to.deep.equal(['http://mcp-app-host.test/']);
      await expectAccessible(host.frame, 'the sales per day app');
      await mkdir(join(process.cwd(), 'docs', 'console'), { recursive: true });
      // a viewport as tall as the app: a full-page shot leaves the frame's lower part unpainted
      const height = await host.frame.locator('html').evaluate((e) => Math.ceil(e.getBoundingClientRect().height));
      await page.setViewportSize({ width: 1280, height });
      await page.screenshot({ path: SHOT });
    } finally {
      await host.close();
    }
  });

  it("shows an automation's actions per day and the newest of them, and reads them again through the host", async () => {
    const created = await client.callTool({
      name: 'create_automation',
      arguments: { stream_type: 'ANY_OFFER_CHANGED', account },
    });
    const automation_id = (created.structuredContent as { automation_id: string }).automation_id;
    const listing = {
      type: 'Listing',
      id: newId(),
      asin: 'B0TEST0001',
      sku: 'DESK-1',
      marketplace_id: 'ATVPDKIKX0DER',
      title: 'Desk',
    };
    const ctx = { store: h.store, metadata: { actor: { kind: 'automation' as const, id: 'mcp-apps-test' } } };
    const run = (event_id: string, at: string, failed: boolean) =>
      recordAutomationRun(ctx, {
        run: {
          automation_id,
          automation_version: 1,
          event_id,
          listing_id: listing.id,
          account_id: account,
          stream_type: 'ANY_OFFER_CHANGED',
        },
        at: new Date(at),
        ...quietReport(),
        mutations: [
          failed
            ? {
                status: 'failed',
                error_message: 'payload.patches: must be a non-empty array',
                action: 'update',
                target: listing,
              }
            : { status: 'applied', receipt_id: newId(), value: 15.27, action: 'update', target: listing },
        ],
      });
    await run('e1', '2026-05-18T08:00:00.000Z', false);
    await run('e2', '2026-05-20T08:00:00.000Z', true);
    await h.projector.whenCaughtUp();
    const args = { automation_id };
    const answer = (await client.callTool({ name: 'list_automation_actions', arguments: args })) as CallToolResult;
    const requests: string[] = [];
    const own = await browser.context.newPage();
    own.on('request', (r) => requests.push(r.url()));
    const host = await hostApp(
      own,
      await appOf('list_automation_actions'),
      client,
      { name: 'list_automation_actions', arguments: args },
      answer,
    );
    try {
      const chart = host.frame.getByRole('img', { name: `Actions per day (UTC) of automation ${automation_id}` });
      await chart.waitFor();
      // three days, the first with one applied action, the last with one failed
      expect(await chart.locator('rect').evaluateAll((rs) => rs.map((r) => r.getAttribute('fill')))).to.deep.equal([
        '#1a5fb4',
        '#a51d2d',
      ]);
      expect(await host.frame.locator('.timeline > li h2').allTextContents()).to.deep.equal([
        `update on Listing ${listing.id}`,
        `update on Listing ${listing.id}`,
      ]);
      expect(await host.frame.getByText('payload.patches: must be a non-empty array').count()).to.equal(1);
      await expectAccessible(host.frame, 'the automation activity app');
      expect(host.calls).to.have.length(0);
      await host.frame.getByRole('button', { name: 'Refresh' }).click();
      await eventually(async () => (host.calls.length > 0 ? true : undefined), 'the call Refresh makes');
      await host.frame
        .getByRole('status')
        .filter({ hasText: /^2 of 2 actions of automation / })
        .waitFor();
      expect(host.calls.map((c) => [c.name, c.arguments])).to.deep.equal([['list_automation_actions', args]]);
      expect(requests).to.deep.equal(['http://mcp-app-host.test/']);
    } finally {
      await host.close();
      await own.close();
    }
  });
});
