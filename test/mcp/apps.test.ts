import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { EXTENSION_ID, RESOURCE_MIME_TYPE } from '@modelcontextprotocol/ext-apps/server';
import { expect } from 'chai';
import { newId } from '../../src/domain/shared/ids.js';
import { ACTIVITY_APP_URI, SALES_APP_URI } from '../../src/mcp/resources/apps.js';
import { automationActivityApp, salesPerDayApp } from '../../src/mcp/resources/app-scripts.js';
import { automationRunsProjection } from '../../src/projections/automation-runs/projection.js';
import { listingsProjection } from '../../src/projections/observed/listings.js';
import { ordersProjection } from '../../src/projections/observed/orders.js';
import { listingsSync } from '../../src/workers/sync/listings.js';
import { ordersSync } from '../../src/workers/sync/orders.js';
import { serveMcp, type McpServing } from '../support/mcp.js';
import { startHarness, type Harness } from '../support/observed.js';

// The MCP Apps over MCP HTTP (an extension beyond the interface spec): the ui:// pages are listed
// and read as self-contained HTML of the MCP App type, the two tools link them in their listing's
// `_meta`, and a tool's answer is the same whether the client shows apps or not.

const SELLER = 'Atzr|demo-seller';
const START = Date.parse('2026-05-20T20:00:00Z');
const LINKS = { get_sales_summary: SALES_APP_URI, list_automation_actions: ACTIVITY_APP_URI };

describe('MCP Apps over MCP HTTP', function () {
  this.timeout(120_000);
  let h: Harness;
  let serving: McpServing;
  let plain: Client;
  let showsApps: Client;
  const user = newId();

  before(async () => {
    h = await startHarness([listingsProjection, ordersProjection, automationRunsProjection], [], START);
    const account = await h.connect('seller', user);
    await h.run(listingsSync, account, SELLER);
    await h.run(ordersSync, account, SELLER);
    await h.projector.whenCaughtUp();
    serving = await serveMcp(h.db, () => new Date(h.clock.ms), user);
    plain = await serving.clientFor(user);
    showsApps = await serving.clientFor(user, { extensions: { [EXTENSION_ID]: { mimeTypes: [RESOURCE_MIME_TYPE] } } });
  });
  after(async () => {
    await serving?.close();
    await h?.close();
  });

  it('lists each app as a ui:// resource and reads it as self-contained MCP App HTML', async () => {
    const { resources } = await plain.listResources();
    for (const uri of Object.values(LINKS)) {
      expect(resources.find((r) => r.uri === uri)).to.include({ mimeType: RESOURCE_MIME_TYPE });
      const { contents } = await plain.readResource({ uri });
      expect(contents).to.have.length(1);
      expect(contents[0]).to.include({ uri, mimeType: 'text/html;profile=mcp-app' });
      const text = (contents[0] as { text: string }).text;
      expect(text).to.match(/^<!doctype html>/);
      // one inline script, closed once: nothing inside it ends the element early
      expect(text.match(/<script\b/g)).to.deep.equal(['<script']);
      expect(text.match(/<\/script>/g)).to.have.length(1);
      // nothing loaded from anywhere: no src or href, no stylesheet import or url()
      const markup = text.replace(/<script type="module">[\s\S]*<\/script>/, '');
      expect(markup).to.not.match(/\b(?:src|href)=|@import|url\(/);
      expect(text).to.contain('</html>');
    }
  });

  it("keeps to the tools: the apps' own code fetches nothing and calls the tool it is linked from", () => {
    for (const [tool, app] of [
      ['get_sales_summary', salesPerDayApp],
      ['list_automation_actions', automationActivityApp],
    ] as const) {
      const code = app.toString();
      expect(code).to.not.match(/\b(?:fetch|XMLHttpRequest|WebSocket|EventSource|sendBeacon)\b/);
      expect(code).to.contain(`name: '${tool}'`);
    }
  });

  it("links the two tools to their apps in the listing's _meta, and no other tool", async () => {
    const { tools } = await showsApps.listTools();
    for (const t of tools) {
      const uri = LINKS[t.name as keyof typeof LINKS];
      if (uri) expect(t._meta, t.name).to.deep.equal({ ui: { resourceUri: uri }, 'ui/resourceUri': uri });
      else expect(t._meta, t.name).to.equal(undefined);
    }
  });

  it('answers the linked tools the same to clients with and without apps, as JSON text and structured content', async () => {
    for (const [name, args] of [
      ['get_sales_summary', { compare_to_previous: true }],
      ['list_automation_actions', {}],
    ] as const) {
      const without = await plain.callTool({ name, arguments: args });
      const withApps = await showsApps.callTool({ name, arguments: args });
      expect(withApps, name).to.deep.equal(without);
      expect(Object.keys(without).sort(), name).to.deep.equal(['content', 'structuredContent']);
      expect(without.content, name).to.deep.equal([{ type: 'text', text: JSON.stringify(without.structuredContent) }]);
    }
    const sales = await plain.callTool({ name: 'get_sales_summary', arguments: {} });
    expect((sales.structuredContent as { rows: unknown[] }).rows, 'the seller has sales').to.not.be.empty;
  });
});
