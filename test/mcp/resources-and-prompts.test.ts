import { randomUUID } from 'node:crypto';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { expect } from 'chai';
import { Redis } from 'ioredis';
import { STORE_LIMITS } from '../../src/domain/automation-store/limits.js';
import { VIEW_NAMES } from '../../src/projections/views/definition.js';
import { viewDefinitions } from '../../src/projections/views/registry.js';
import { projections } from '../../src/projections/registry.js';
import { createSandbox, type Sandbox } from '../../src/runtime/sandbox/index.js';
import { adsEntitiesSync } from '../../src/workers/sync/ads-entities.js';
import { adsTargetingMetricsSync } from '../../src/workers/sync/ads-metrics.js';
import type { SyncJobDefinition } from '../../src/workers/sync/job.js';
import { inventorySync } from '../../src/workers/sync/inventory.js';
import { listingsSync } from '../../src/workers/sync/listings.js';
import { ADS_TOKEN, SELLING_TOKEN } from '../support/marketplace.js';
import { call, serveMcp, type McpServing } from '../support/mcp.js';
import { startHarness, type Harness } from '../support/observed.js';

type Json = Record<string, any>;

// Spec 1.7 and 1.8 over MCP on the demo endpoint, serving the fictional seller as the demo does
// (its listings, stock, ads entities and 30 days of targeting metrics synced through the real
// clients): the resources, and each prompt's draft automation dry-run with run_automation on
// that data, its outbox holding the changes the prompt describes.

/** Tool names as the texts write them: a verb of ours, an underscore, more (or connection_status). */
const TOOL_NAME =
  /\b(?:connection_status|(?:get|list|run|create|update|duplicate|archive|describe|query|queue|patch|search|read|request|report|suggest)_[a-z_]+)\b/g;
const VIEW_NAME = /\bv_[a-z_]+\b/g;
/** The tools a text names: what TOOL_NAME finds, less the views' columns (report_date is no tool). */
const COLUMNS = new Set(viewDefinitions.flatMap((d) => d.columns.map((c) => c.name)));
const toolsIn = (text: string) => [...new Set(text.match(TOOL_NAME))].filter((n) => !COLUMNS.has(n));

describe('resources and prompts (spec 1.7, 1.8) on the demo', function () {
  this.timeout(300_000);
  let h: Harness;
  let mcp: McpServing;
  let sandbox: Sandbox;
  let redis: Redis;
  let demo: Client;
  const demoUser = randomUUID();

  const ok = async (tool: string, args: Json = {}): Promise<Json> => {
    const res = await call(demo, tool, args);
    expect(res.isError, `${tool}: ${JSON.stringify(res.structuredContent)}`).to.not.equal(true);
    return res.structuredContent;
  };
  /** what the prompt's message holds: its text and its draft (the last JavaScript block) */
  const prompt = async (name: string, args: Record<string, string> = {}) => {
    const { messages } = await demo.getPrompt({ name, arguments: args });
    expect(messages).to.have.length(1);
    const text = (messages[0]!.content as { text: string }).text;
    const code = [...text.matchAll(/```javascript\n([\s\S]*?)```/g)].at(-1)?.[1];
    expect(code, `${name} offers a draft`).to.be.a('string');
    return { text, code: code! };
  };
  const fixture = async (stream_type: string) =>
    structuredClone((await ok('describe_stream_type', { stream_type })).event.fixture) as Json;

  before(async () => {
    const always = ['accounts', 'observations', 'mutations'];
    h = await startHarness(
      projections.filter((p) => !always.includes(p.name)),
      [],
      Date.parse('2026-03-10T09:00:00Z'),
    );
    const account = await h.connect('seller', demoUser);
    const run = async (job: SyncJobDefinition) => {
      const deps = h.deps(SELLING_TOKEN);
      await job.run(
        { ...deps, credentials: () => ({ selling_refresh_token: SELLING_TOKEN, ads_refresh_token: ADS_TOKEN }) },
        account,
      );
    };
    for (const job of [listingsSync, inventorySync, adsEntitiesSync, adsTargetingMetricsSync({ historyDays: 30 })])
      await run(job);
    await h.projector.whenCaughtUp();
    sandbox = createSandbox({ runners: 1, storeLimits: STORE_LIMITS });
    redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
    mcp = await serveMcp(h.db, () => new Date(h.clock.ms), demoUser, {
      sandbox,
      dryRuns: { redis, prefix: `${process.env.REDIS_PREFIX}:prompts-${randomUUID()}` },
    });
    demo = await mcp.demoClient();
  });
  after(async () => {
    await mcp?.close();
    await sandbox?.close();
    await redis?.quit();
    await h?.close();
  });

  describe('resources', () => {
    it('lists the changelog, the data dictionary and the workflows, each readable', async () => {
      const { resources } = await demo.listResources();
      const ours = [
        'resource://service/changelog.md',
        'resource://service/data-dictionary.json',
        'resource://service/workflows.md',
      ];
      expect(resources.map((r) => r.uri)).to.include.members(ours);
      // the operation catalog's resource has its own tests (it needs an acquired catalog)
      for (const r of resources.filter((r) => ours.includes(r.uri))) {
        expect(r.description, r.uri).to.be.a('string').that.is.not.empty;
        const { contents } = await demo.readResource({ uri: r.uri });
        expect(contents[0], r.uri).to.include({ uri: r.uri, mimeType: r.mimeType });
        expect((contents[0] as { text: string }).text, r.uri).to.not.be.empty;
      }
    });

    it("the data dictionary describes every view as describe_data does for a caller of the view's kind", async () => {
      const { contents } = await demo.readResource({ uri: 'resource://service/data-dictionary.json' });
      const dictionary = JSON.parse((contents[0] as { text: string }).text) as Json;
      expect(dictionary.views.map((v: Json) => v.view).sort()).to.deep.equal([...VIEW_NAMES].sort());
      // the demo seller's describe_data: the vendor view hidden, joins to it with it
      const shown: string[] = (await ok('describe_data')).views.map((v: Json) => v.name);
      expect(shown).to.not.include('v_vendor_metrics');
      // the same, whatever order the views are read in
      const sorted = (joins: Json[]) => joins.map((j) => JSON.stringify(j)).sort();
      for (const view of dictionary.views) {
        if (!shown.includes(view.view)) {
          const hidden = (await call(demo, 'describe_data', { view: view.view })).structuredContent as Json;
          expect(hidden, view.view).to.include({ code: 'invalid', argument: 'view' });
          continue;
        }
        const described = await ok('describe_data', { view: view.view });
        const joins = view.joins.filter((j: Json) => shown.includes(j.view));
        expect({ ...view, joins: sorted(joins) }, view.view).to.deep.equal({
          ...described,
          joins: sorted(described.joins),
        });
      }
      const joins = dictionary.joins.filter((j: Json) => shown.includes(j.from) && shown.includes(j.to));
      expect(sorted(joins)).to.deep.equal(sorted((await ok('describe_data')).joins));
    });

    it('the workflows name only tools the service serves, and the whole flow: audit, dry run, activate, watch', async () => {
      const { contents } = await demo.readResource({ uri: 'resource://service/workflows.md' });
      const text = (contents[0] as { text: string }).text;
      // /mcp lists every served tool (the demo hides a few)
      const served = (await (await mcp.clientFor(demoUser)).listTools()).tools.map((t) => t.name);
      const named = toolsIn(text);
      expect(named.filter((n) => !served.includes(n))).to.deep.equal([]);
      expect(named).to.include.members([
        'connection_status',
        'query_data',
        'run_automation',
        'create_automation',
        'update_automation',
        'list_automation_actions',
        'get_mutation',
      ]);
    });
  });

  describe('prompts', () => {
    it('lists the three prompts with their arguments; refuses bad arguments naming them', async () => {
      const { prompts } = await demo.listPrompts();
      expect(prompts.map((p) => p.name)).to.deep.equal(['ad_waste_audit', 'margin_repricing', 'restock_protection']);
      for (const p of prompts) {
        expect(p.description, p.name).to.be.a('string').that.is.not.empty;
        expect(
          p.arguments?.map((a) => a.name),
          p.name,
        ).to.include('account');
        expect(
          p.arguments?.every((a) => !a.required),
          p.name,
        ).to.equal(true);
      }
      const bad = await demo
        .getPrompt({ name: 'ad_waste_audit', arguments: { min_spend: 'lots' } })
        .catch((e: Error) => e);
      expect(bad).to.be.instanceOf(Error);
      expect((bad as Error).message)
        .to.contain('min_spend')
        .and.contain("'lots'");
      const unknown = await demo.getPrompt({ name: 'no_such_prompt' }).catch((e: Error) => e);
      expect((unknown as Error).message).to.contain("unknown prompt 'no_such_prompt'");
    });

    it('each prompt audits with served read tools and real views before its draft, and names the account given', async () => {
      const served = (await (await mcp.clientFor(demoUser)).listTools()).tools;
      const reads = served.filter((t) => t.annotations?.readOnlyHint).map((t) => t.name);
      for (const name of ['ad_waste_audit', 'margin_repricing', 'restock_protection']) {
        const { text } = await prompt(name, { account: 'acc-1' });
        const audit = text.slice(0, text.indexOf('```'));
        const tools = toolsIn(audit);
        expect(
          tools.filter((t) => !reads.includes(t)),
          `${name} audits with read tools only`,
        ).to.deep.equal([]);
        expect(tools, name).to.include.members(['connection_status', 'query_data']);
        const views = [...new Set(text.match(VIEW_NAME))];
        expect(views, name).to.not.be.empty;
        expect(
          views.filter((v) => !(VIEW_NAMES as readonly string[]).includes(v)),
          name,
        ).to.deep.equal([]);
        expect(text, name).to.contain('account: "acc-1"');
        const named = toolsIn(text);
        expect(
          named.filter((t) => !served.some((s) => s.name === t)),
          name,
        ).to.deep.equal([]);
        expect(named, name).to.include.members(['run_automation', 'create_automation', 'update_automation']);
      }
    });

    it("ad_waste_audit: the draft pauses the campaign's targets that spent without sales and lowers over-ACOS bids", async () => {
      const targets = (await ok('list_ads_entities', { target_type: 'Target', limit: 100 })).rows as Json[];
      const spending = targets
        .filter((t) => !t.negative && t.state === 'enabled' && t.metrics30.cost > 0)
        .sort((a, b) => b.metrics30.cost - a.metrics30.cost);
      expect(spending, 'targets that spent in 30 days').to.not.be.empty;
      const campaigns = (await ok('list_ads_entities', { target_type: 'Campaign', limit: 100 })).rows as Json[];
      const campaign = campaigns.find((c) => c.state === 'enabled' && spending.some((t) => t.campaign_id === c.id));
      expect(campaign, 'an enabled campaign with spending targets').to.exist;
      const ofCampaign = (
        await ok('list_ads_entities', { target_type: 'Target', campaign_id: campaign!.id, limit: 100 })
      ).rows as Json[];
      // thresholds the audit would pick: half the median spend, and an ACOS limit half the targets pass
      const spent = ofCampaign.filter((t) => !t.negative && t.state === 'enabled' && t.metrics30.cost > 0);
      const median = (values: number[]) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
      const minSpend = Number((median(spent.map((t) => t.metrics30.cost)) / 2).toFixed(2));
      const acoses = spent.flatMap((t) => (t.metrics30.acos === null ? [] : [t.metrics30.acos]));
      const maxAcosPercent = acoses.length ? Math.max(1, Math.floor(median(acoses) * 100)) : 50;
      const maxAcos = maxAcosPercent / 100;
      const { code } = await prompt('ad_waste_audit', {
        min_spend: String(minSpend),
        max_acos: String(maxAcosPercent),
        bid_cut: '20',
      });
      const wasted = ofCampaign.filter(
        (t) =>
          !t.negative &&
          t.state === 'enabled' &&
          t.metrics30.cost >= minSpend &&
          (t.metrics30.sales === 0 || t.metrics30.acos > maxAcos),
      );
      expect(wasted, 'the audit finds waste in the campaign').to.not.be.empty;
      const event = await fixture('SP_TRAFFIC');
      event.campaign_id = String(campaign!.data.campaignId);
      event.marketplace_id = campaign!.marketplace_id;
      const run = await ok('run_automation', { code, stream_type: 'SP_TRAFFIC', sample_event: event });
      const changes = run.changes as Json[];
      expect(changes.map((c) => c.status)).to.deep.equal(changes.map(() => 'applied'));
      expect(changes.map((c) => c.target.id).sort()).to.deep.equal(wasted.map((t) => t.id).sort());
      for (const c of changes) {
        const t = wasted.find((w) => w.id === c.target.id)!;
        expect(c.target.type).to.equal('Target');
        // a pause sets no amount; a lowered bid is 80% of the bid
        if (t.metrics30.sales === 0) expect(c.value, t.text).to.equal(null);
        else expect(c.value, t.text).to.equal(Number((parseFloat(t.bid) * 0.8).toFixed(t.currency === 'JPY' ? 0 : 2)));
      }
    });

    /** A demo listing in US dollars with a price, and with an enabled ad when `advertised`. */
    const usListing = async (advertised: boolean) => {
      const listings = (await ok('list_listings', { marketplace_id: 'ATVPDKIKX0DER', limit: 100 })).listings as Json[];
      const ads = (await ok('list_ads_entities', { target_type: 'Ad', limit: 100 })).rows as Json[];
      const listing = listings.find(
        (l) =>
          l.price !== null &&
          l.currency === 'USD' &&
          (!advertised ||
            ads.some((a) => a.sku === l.sku && a.state === 'enabled' && a.marketplace_id === l.marketplace_id)),
      );
      expect(listing, 'a priced US listing').to.exist;
      return listing!;
    };

    it('margin_repricing: the draft prices just under the lowest competitor, never under the floor', async () => {
      const listing = await usListing(false);
      const price = listing.price / 100;
      const { code } = await prompt('margin_repricing', { undercut: '0.05', max_drop: '10' });
      const event = await fixture('ANY_OFFER_CHANGED');
      const n = event.Payload.AnyOfferChangedNotification;
      n.OfferChangeTrigger.MarketplaceId = listing.marketplace_id;
      n.OfferChangeTrigger.ASIN = listing.asin;
      const competitor = Number((price * 0.97).toFixed(2));
      n.Offers[1].ListingPrice.Amount = competitor;
      const run = await ok('run_automation', {
        code,
        stream_type: 'ANY_OFFER_CHANGED',
        sample_event: event,
        listing_id: listing.id,
      });
      const floor = listing.floor === null ? price * 0.9 : listing.floor / 100;
      let expected = Math.max(competitor - 0.05, floor);
      if (listing.ceiling !== null) expected = Math.min(expected, listing.ceiling / 100);
      expected = Number(expected.toFixed(2));
      expect(expected, 'the case changes the price').to.not.equal(price);
      expect(run.changes).to.have.length(1);
      expect(run.changes[0]).to.deep.include({ status: 'applied', action: 'update', value: expected });
      expect(run.changes[0].target).to.deep.equal({ type: 'Listing', id: listing.id });
    });

    it('restock_protection: under the minimum the draft raises the price and pauses the enabled ads', async () => {
      const listing = await usListing(true);
      const price = listing.price / 100;
      const { code } = await prompt('restock_protection', { min_units: '15', raise: '5' });
      const event = await fixture('FBA_INVENTORY_AVAILABILITY_CHANGES');
      Object.assign(event.Payload, { ASIN: listing.asin, SKU: listing.sku });
      const here = event.Payload.FulfillmentInventoryByMarketplace[0];
      here.MarketplaceId = listing.marketplace_id;
      here.FulfillmentInventory.Fulfillable = 14;
      const run = await ok('run_automation', {
        code,
        stream_type: 'FBA_INVENTORY_AVAILABILITY_CHANGES',
        sample_event: event,
        listing_id: listing.id,
      });
      let raised = price * 1.05;
      if (listing.ceiling !== null) raised = Math.min(raised, listing.ceiling / 100);
      raised = Number(raised.toFixed(2));
      const changes = run.changes as Json[];
      expect(changes.map((c) => c.status)).to.deep.equal(changes.map(() => 'applied'));
      const [first, ...ads] = changes;
      if (raised > price)
        expect(first).to.deep.include({ action: 'update', value: raised, target: { type: 'Listing', id: listing.id } });
      const enabled = ((await ok('list_ads_entities', { target_type: 'Ad', limit: 100 })).rows as Json[]).filter(
        (a) => a.sku === listing.sku && a.marketplace_id === listing.marketplace_id && a.state === 'enabled',
      );
      const byId = (a: Json, b: Json) => String(a.id).localeCompare(String(b.id));
      expect((raised > price ? ads : changes).map((c) => c.target).sort(byId)).to.deep.equal(
        enabled.map((a) => ({ type: 'Ad', id: a.id })).sort(byId),
      );
      // at the minimum it leaves the listing alone
      here.FulfillmentInventory.Fulfillable = 15;
      const enough = await ok('run_automation', {
        code,
        stream_type: 'FBA_INVENTORY_AVAILABILITY_CHANGES',
        sample_event: event,
        listing_id: listing.id,
      });
      expect(enough.changes).to.deep.equal([]);
    });
  });
});
