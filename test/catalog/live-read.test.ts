import { randomUUID } from 'node:crypto';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { expect } from 'chai';
import { Redis } from 'ioredis';
import { acquireCatalog } from '../../src/catalog/acquire.js';
import type { LiveReadAccess } from '../../src/catalog/live-read/execute.js';
import { newId } from '../../src/domain/shared/ids.js';
import { loadAccounts } from '../../src/projections/accounts/queries.js';
import { adsProjection } from '../../src/projections/observed/ads.js';
import { fbaInventoryProjection } from '../../src/projections/observed/inventory.js';
import { listingsProjection } from '../../src/projections/observed/listings.js';
import { listingsSync } from '../../src/workers/sync/listings.js';
import { injectFault, liveReadAccess, requestsTo, resetSimulator, SELLING_TOKEN } from '../support/marketplace.js';
import { call, serveMcp, type McpServing } from '../support/mcp.js';
import { startHarness, type Harness } from '../support/observed.js';

// read_amazon_operation over MCP against the simulator: reviewed reads paged with sealed
// cursors, what admission refuses (revision, review, target, scope, parameters, cursor), the
// shared provider budget across servers, the deadline, the page size limit, and the provider's
// failures through the simulator's fault injection.

type Row = Record<string, any>;
const CAMPAIGNS = 'ads_api:sponsored-products:3.0:ListSponsoredProductsCampaigns';
const AD_GROUPS = 'ads_api:sponsored-products:3.0:ListSponsoredProductsAdGroups';
const BUDGET_RULES = 'ads_api:sponsored-products:3.0:GetSPBudgetRulesForAdvertiser';
const LISTING = 'sp_api:listings-items:2021-08-01:getListingsItem';
const INVENTORY = 'sp_api:fba-inventory:v1:getInventorySummaries';
const CATALOG_ITEM = 'sp_api:catalog-items:2022-04-01:getCatalogItem';
const RESTRICTIONS = 'sp_api:listings-restrictions:2021-08-01:getListingsRestrictions';
const PARTICIPATIONS = 'sp_api:sellers:v1:getMarketplaceParticipations';

describe('read_amazon_operation', function () {
  this.timeout(120_000);
  let h: Harness;
  let redis: Redis;
  let mcp: McpServing;
  let ada: Client;
  let bob: Client;
  let revision: string;
  let account: string;
  let bobAccount: string;
  const prefix = `${process.env.REDIS_PREFIX}:live-read-${randomUUID()}`;
  const clock = { ms: Date.parse('2026-03-10T09:00:00Z') };
  const profiles: { id: string; provider: string; marketplace: string }[] = [];
  let listing: Row;
  let base: string;
  const users = { ada: newId(), bob: newId() };

  const access = (overrides: Partial<LiveReadAccess> = {}): LiveReadAccess =>
    liveReadAccess(h.simulator, { redis, prefix }, overrides);
  const read = (args: Row, client: Client = ada) => call(client, 'read_amazon_operation', args);
  const pageOf = async (args: Row, client: Client = ada) => {
    const result = await read(args, client);
    expect(result.isError, JSON.stringify(result.structuredContent)).to.equal(undefined);
    return result.structuredContent;
  };
  const errorOf = async (args: Row, client: Client = ada) => {
    const result = await read(args, client);
    expect(result.isError, JSON.stringify(result.structuredContent)).to.equal(true);
    return result.structuredContent as { code: string; detail: string; [k: string]: unknown };
  };
  const profileTarget = (i = 0) => ({ type: 'AdvertisingProfile', id: profiles[i]!.id });
  const campaigns = (parameters: Row = { maxResults: 2 }) => ({
    operation: CAMPAIGNS,
    catalog_revision: revision,
    target: profileTarget(),
    parameters,
  });
  const listingRead = (parameters?: Row) => ({
    operation: LISTING,
    catalog_revision: revision,
    target: { type: 'Listing', id: listing.id },
    ...(parameters ? { parameters } : {}),
  });

  before(async () => {
    h = await startHarness([listingsProjection, fbaInventoryProjection, adsProjection], [], clock.ms);
    base = h.simulator.endpoints().sellingApiUrl;
    ({
      catalog: { revision },
    } = await acquireCatalog(h.db));
    account = await h.connect('seller', users.ada);
    bobAccount = await h.connect('seller', users.bob);
    await h.run(listingsSync, account, SELLING_TOKEN);
    for (const p of (await loadAccounts(h.db, users.ada))[0]!.ads!.profiles)
      profiles.push({ id: p.id, provider: p.provider_profile_id, marketplace: p.marketplace_id });
    redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
    mcp = await serveMcp(h.db, () => new Date(clock.ms), newId(), { liveReads: access() });
    ada = await mcp.clientFor(users.ada);
    bob = await mcp.clientFor(users.bob);
    const listed = await call(ada, 'list_listings', { limit: 100 });
    if (listed.isError) throw new Error(JSON.stringify(listed.structuredContent));
    // a listing whose ASIN the catalog knows in its marketplace
    listing = (listed.structuredContent.listings as Row[]).find((l) => l.asin)!;
  });
  beforeEach(() => resetSimulator(base));
  after(async () => {
    await mcp?.close();
    await redis?.quit();
    await h?.close();
  });

  it("reads a profile's campaigns page by page: the sealed cursor carries the provider token and the first page's parameters", async () => {
    const first = await pageOf(campaigns({ maxResults: 2, stateFilter: { include: ['ENABLED', 'PAUSED'] } }));
    expect(first).to.include({ operation: CAMPAIGNS, catalog_revision: revision, status: 200 });
    expect(first.scope).to.deep.equal({
      account_id: account,
      seller_id: null,
      marketplace_id: profiles[0]!.marketplace,
      profile_id: profiles[0]!.provider,
    });
    expect(first.result.campaigns).to.have.length(2);
    expect(first.next_cursor).to.be.a('string');
    // the provider's own token never shows
    expect(first.next_cursor).to.not.include(first.result.nextToken);

    const second = await pageOf({ ...campaigns(), parameters: undefined, cursor: first.next_cursor });
    expect(second.result.campaigns).to.have.length(2);
    const ids = (p: Row) => (p.result.campaigns as Row[]).map((c) => c.campaignId);
    expect(ids(second)).to.not.include.members(ids(first));
    // the continuation went with the provider's token, the same filter, and the profile's scope
    const sent = (await requestsTo(h.simulator.endpoints().adsApiUrl, 'POST', '/sp/campaigns/list')).slice(-2);
    expect(sent.map((r) => (r.body as Row).nextToken)).to.deep.equal([undefined, first.result.nextToken]);
    for (const r of sent) {
      expect((r.body as Row).stateFilter).to.deep.equal({ include: ['ENABLED', 'PAUSED'] });
      expect(r.headers['amazon-advertising-api-scope']).to.equal(profiles[0]!.provider);
    }
    for (const c of [...first.result.campaigns, ...second.result.campaigns] as Row[])
      expect(c.state).to.be.oneOf(['ENABLED', 'PAUSED']);
  });

  it('reads selling-API targets: a listing, its catalog item and restrictions, the marketplace inventory, the seller', async () => {
    const item = await pageOf(listingRead({ includedData: ['summaries', 'offers'] }));
    expect(item.result.sku).to.equal(listing.sku);
    expect(item.scope).to.include({ account_id: account, marketplace_id: listing.marketplace_id });
    expect(item.scope.seller_id).to.be.a('string');
    const [sent] = (
      await requestsTo(
        base,
        'GET',
        `/listings/2021-08-01/items/${item.scope.seller_id}/${encodeURIComponent(listing.sku)}`,
      )
    ).slice(-1);
    expect(sent!.query).to.include({ marketplaceIds: listing.marketplace_id, includedData: 'summaries,offers' });

    const resource = { type: 'AmazonResource', id: `${account}:${listing.marketplace_id}:${listing.asin}` };
    const catalogItem = await pageOf({ operation: CATALOG_ITEM, catalog_revision: revision, target: resource });
    expect(catalogItem.result.asin).to.equal(listing.asin);
    const restrictions = await pageOf({
      operation: RESTRICTIONS,
      catalog_revision: revision,
      target: resource,
      parameters: { conditionType: 'used_like_new' },
    });
    expect(restrictions.result.restrictions[0]).to.include({ marketplaceId: listing.marketplace_id });

    const inventory = { type: 'Inventory', id: `${account}:${listing.marketplace_id}` };
    const stock = await pageOf({
      operation: INVENTORY,
      catalog_revision: revision,
      target: inventory,
      parameters: { details: true },
    });
    expect(stock.result.payload.granularity).to.deep.equal({
      granularityType: 'Marketplace',
      granularityId: listing.marketplace_id,
    });

    const seller = await pageOf({
      operation: PARTICIPATIONS,
      catalog_revision: revision,
      target: { type: 'SellingPartner', id: account },
    });
    expect(seller.result.payload).to.be.an('array').that.is.not.empty;
    expect(seller.next_cursor).to.equal(null);
  });

  it("reads the advertiser's budget rules in its first profile's scope, or another of its profiles, never a foreign one", async () => {
    const advertiser = { type: 'Advertiser', id: account };
    const first = await pageOf({
      operation: BUDGET_RULES,
      catalog_revision: revision,
      target: advertiser,
      parameters: { pageSize: 2 },
    });
    expect(first.result.budgetRulesForAdvertiserResponse).to.have.length(2);
    expect(first.result.budgetRulesForAdvertiserResponse[0].ruleId).to.match(new RegExp(`^${profiles[0]!.provider}-`));
    const rest = await pageOf({
      operation: BUDGET_RULES,
      catalog_revision: revision,
      target: advertiser,
      cursor: first.next_cursor,
    });
    expect(rest.result.budgetRulesForAdvertiserResponse).to.have.length(1);
    expect(rest.next_cursor).to.equal(null);
    const other = await pageOf({
      operation: BUDGET_RULES,
      catalog_revision: revision,
      target: advertiser,
      parameters: { pageSize: 1, 'Amazon-Advertising-API-Scope': profiles[1]!.provider },
    });
    expect(other.result.budgetRulesForAdvertiserResponse[0].ruleId).to.match(new RegExp(`^${profiles[1]!.provider}-`));
    const foreign = await errorOf({
      operation: BUDGET_RULES,
      catalog_revision: revision,
      target: advertiser,
      parameters: { pageSize: 1, 'Amazon-Advertising-API-Scope': '999999' },
    });
    expect(foreign.code).to.equal('scope_mismatch');
  });

  it('schema_changed for a revision that is not the current one, naming the current one', async () => {
    const err = await errorOf({ ...campaigns(), catalog_revision: 'a'.repeat(64) });
    expect(err).to.include({ code: 'schema_changed', current_revision: revision });
  });

  it('operation_unavailable with its reason: not a reviewed live read (adapter_missing), restricted, a write, a report', async () => {
    const reasons: Record<string, string> = {
      'sp_api:orders:v0:getOrders': 'adapter_missing',
      'sp_api:orders:v0:getOrderBuyerInfo': 'restricted_data_disabled',
      'ads_api:sponsored-products:3.0:UpdateSponsoredProductsCampaigns': 'queued_write',
      'sp_api:reports:2021-06-30:createReport': 'report_operation',
    };
    for (const [operation, reason] of Object.entries(reasons)) {
      const err = await errorOf({
        operation,
        catalog_revision: revision,
        target: { type: 'SellingPartner', id: account },
      });
      expect(err, operation).to.include({ code: 'operation_unavailable', reason });
    }
    expect((await errorOf({ ...campaigns(), operation: 'sp_api:nothing:v1:nothing' })).code).to.equal('invalid');
  });

  it("target_not_found for another user's target or one that does not exist; scope_mismatch for a parameter the target fixes otherwise", async () => {
    for (const target of [
      { type: 'SellingPartner', id: bobAccount },
      { type: 'Listing', id: randomUUID() },
      { type: 'AdvertisingProfile', id: randomUUID() },
      { type: 'Inventory', id: `${account}:XXXXXXXXXXXXXX` },
      { type: 'AmazonResource', id: `${account}:${listing.marketplace_id}:B000000000` },
    ]) {
      const operation = {
        SellingPartner: PARTICIPATIONS,
        Listing: LISTING,
        AdvertisingProfile: CAMPAIGNS,
        Inventory: INVENTORY,
        AmazonResource: CATALOG_ITEM,
      }[target.type]!;
      const err = await errorOf({ operation, catalog_revision: revision, target });
      expect(err.code, JSON.stringify(target)).to.equal('target_not_found');
    }
    // bob's own read of his own seller answers
    await pageOf(
      { operation: PARTICIPATIONS, catalog_revision: revision, target: { type: 'SellingPartner', id: bobAccount } },
      bob,
    );

    const other = listing.marketplace_id === 'ATVPDKIKX0DER' ? 'A2EUQ1WTGCTBG2' : 'ATVPDKIKX0DER';
    const mismatch = await errorOf(listingRead({ marketplaceIds: [other] }));
    expect(mismatch).to.include({ code: 'scope_mismatch', argument: 'parameters.marketplaceIds' });
    // repeating what the target fixes is allowed
    await pageOf(listingRead({ marketplaceIds: [listing.marketplace_id] }));
  });

  it('invalid_parameters: an unknown one, a value its native schema refuses, a header the service sets, the page token, a required one left out', async () => {
    const cases: Row[] = [
      { parameters: { colour: 'red' }, argument: 'parameters.colour' },
      { parameters: { maxResults: 'ten' }, argument: 'parameters.maxResults' },
      { parameters: { nextToken: 'abc' }, argument: 'parameters.nextToken' },
    ];
    for (const c of cases) {
      const err = await errorOf(campaigns(c.parameters));
      expect(err, JSON.stringify(c)).to.include({ code: 'invalid_parameters', argument: c.argument });
    }
    const enumRefused = await errorOf(listingRead({ includedData: ['everything'] }));
    expect(enumRefused.code).to.equal('invalid_parameters');
    const header = await errorOf({
      operation: BUDGET_RULES,
      catalog_revision: revision,
      target: { type: 'Advertiser', id: account },
      parameters: { pageSize: 1, 'Amazon-Advertising-API-ClientId': 'someone-else' },
    });
    expect(header).to.include({ code: 'invalid_parameters', argument: 'parameters.Amazon-Advertising-API-ClientId' });
    // a path parameter the target fixes may be repeated, never changed
    expect((await errorOf(listingRead({ sku: 'SOMETHING-ELSE' }))).code).to.equal('scope_mismatch');
    const required = await errorOf({
      operation: BUDGET_RULES,
      catalog_revision: revision,
      target: { type: 'Advertiser', id: account },
    });
    expect(required.code).to.equal('invalid_parameters');
    expect(required.detail).to.include('pageSize');
  });

  it('invalid_cursor for a forged or altered cursor, one rebound to another operation or target, another user, or an expired one', async () => {
    const { next_cursor: cursor } = await pageOf(campaigns());
    const continuation = { ...campaigns(), parameters: undefined, cursor };
    const flipped = cursor.slice(0, 20) + (cursor[20] === 'A' ? 'B' : 'A') + cursor.slice(21);
    for (const args of [
      { ...continuation, cursor: 'bm90IGEgY3Vyc29y' },
      { ...continuation, cursor: flipped },
      { ...continuation, operation: AD_GROUPS },
      { ...continuation, target: profileTarget(1) },
    ]) {
      const err = await errorOf(args);
      expect(err.code, JSON.stringify(args).slice(0, 200)).to.equal('invalid_cursor');
    }
    // another user who owns the same seller through his own account: his target ids differ, and even
    // presented for ada's target the cursor is hers alone (ada's target is not his: target_not_found first)
    expect((await errorOf(continuation, bob)).code).to.equal('target_not_found');
    // a continuation takes no parameters
    expect((await errorOf({ ...continuation, parameters: { maxResults: 2 } })).code).to.equal('invalid');

    clock.ms += 15 * 60_000 + 1;
    try {
      const err = await errorOf(continuation);
      expect(err.code).to.equal('invalid_cursor');
      expect(err.detail).to.include('expired');
    } finally {
      clock.ms -= 15 * 60_000 + 1;
    }
    // still good within its 15 minutes
    await pageOf(continuation);
  });

  it('response_too_large for a page over 64 KiB (its cursor and envelope included), with nothing of it', async () => {
    const route = 'GET /listings/2021-08-01/items/*/*';
    // the listing as the provider might send it, its summaries padded to a page size
    const answer = (bytes: number) =>
      JSON.stringify({
        sku: listing.sku,
        summaries: [{ marketplaceId: listing.marketplace_id, itemName: 'x'.repeat(bytes) }],
      });
    await injectFault(base, { route, kind: 'answer', body: answer(66_000) });
    const err = await errorOf(listingRead());
    expect(err.code).to.equal('response_too_large');
    expect(err.bytes).to.be.above(64 * 1024);
    expect(JSON.stringify(err)).to.not.include('xxxxxxxx');
    // just under the limit, the whole page answers
    await injectFault(base, { route, kind: 'answer', body: answer(64 * 1024 - 1_000) });
    const page = await pageOf(listingRead());
    expect(JSON.stringify(page).length).to.be.within(64 * 1024 - 1_000, 64 * 1024);
  });

  it("the provider's failures: amazon_error without its message, amazon_unavailable, invalid_response (unparsable, or about another listing)", async () => {
    const ads = h.simulator.endpoints().adsApiUrl;
    await injectFault(ads, { route: 'POST /sp/campaigns/list', kind: 'reject', status: 400 });
    const refused = await errorOf(campaigns());
    expect(refused).to.include({ code: 'amazon_error', status: 400 });
    expect(refused.detail).to.not.match(/Request has missing|invalid parameters and cannot be parsed/i);

    await injectFault(ads, { route: 'POST /sp/campaigns/list', kind: '5xx', status: 503, times: 3 });
    expect((await errorOf(campaigns())).code).to.equal('amazon_unavailable');

    const path = `/listings/2021-08-01/items/*/*`;
    await injectFault(base, { route: `GET ${path}`, kind: 'answer', body: '{"sku": "broken' });
    expect((await errorOf(listingRead())).code).to.equal('invalid_response');
    await injectFault(base, {
      route: `GET ${path}`,
      kind: 'answer',
      body: JSON.stringify({ sku: 'SOMEONE-ELSES', summaries: [] }),
    });
    const foreign = await errorOf(listingRead());
    expect(foreign.code).to.equal('invalid_response');
    expect(foreign.detail).to.include('SOMEONE-ELSES');
  });

  it('deadline_exceeded when the provider does not answer within the deadline (quota waits included)', async () => {
    const quick = await serveMcp(h.db, () => new Date(clock.ms), newId(), { liveReads: access({ deadlineMs: 1_500 }) });
    try {
      const client = await quick.clientFor(users.ada);
      await injectFault(base, { route: 'GET /listings/2021-08-01/items/*/*', kind: 'timeout', times: 5 });
      const started = Date.now();
      const err = await errorOf(listingRead(), client);
      expect(err.code).to.equal('deadline_exceeded');
      expect(Date.now() - started).to.be.within(1_400, 5_000);
    } finally {
      await quick.close();
    }
  });

  it("rate_limited once the seller's shared budget has no slot in time, across users and api processes, with retry_after_seconds", async () => {
    // two servers on one Redis prefix of their own (a budget no other test drew on), as two api
    // processes; ada and bob read the same seller through their own accounts
    const budget = { redis, prefix: `${prefix}:shared` };
    const here = await serveMcp(h.db, () => new Date(clock.ms), newId(), { liveReads: access({ budget }) });
    const other = await serveMcp(h.db, () => new Date(clock.ms), newId(), { liveReads: access({ budget }) });
    try {
      const adaHere = await here.clientFor(users.ada);
      const bobThere = await other.clientFor(users.bob);
      // getMarketplaceParticipations: bursts of 15, then one a minute, for this seller
      const reads = (client: Client, id: string) =>
        read({ operation: PARTICIPATIONS, catalog_revision: revision, target: { type: 'SellingPartner', id } }, client);
      const answers = [];
      for (let i = 0; i < 8; i++) answers.push(await reads(adaHere, account), await reads(bobThere, bobAccount));
      const codes = answers.map((a) => (a.isError ? a.structuredContent.code : 'ok'));
      expect(codes.filter((c) => c === 'ok')).to.have.length(15);
      const limited = answers.at(-1)!;
      expect(limited.structuredContent).to.include({ code: 'rate_limited' });
      // the 16th slot comes one interval (62.5 s) after the burst
      expect(limited.structuredContent.retry_after_seconds).to.be.within(55, 63);
      // nothing was sent for the refused read
      const sent = await requestsTo(base, 'GET', '/sellers/v1/marketplaceParticipations');
      expect(sent).to.have.length(15);
    } finally {
      await here.close();
      await other.close();
    }
  });

  it('is not served on the demo endpoint', async () => {
    const demo = await mcp.demoClient();
    const { tools } = await demo.listTools();
    expect(tools.map((t) => t.name)).to.not.include('read_amazon_operation');
    const { tools: all } = await ada.listTools();
    expect(all.map((t) => t.name)).to.include('read_amazon_operation');
  });
});
