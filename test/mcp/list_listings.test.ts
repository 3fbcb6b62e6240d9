import { expect } from 'chai';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { executeMutationCommand } from '../../src/commands/mutation/execute.js';
import { newId } from '../../src/domain/shared/ids.js';
import type { InventorySummary } from '../../src/marketplace/clients/index.js';
import type { SimListing } from '../../src/marketplace/simulator/index.js';
import { listingItem } from '../../src/marketplace/simulator/selling/listings.js';
import { fbaInventoryProjection } from '../../src/projections/observed/inventory.js';
import { currentListingsSql, listingsProjection } from '../../src/projections/observed/listings.js';
import { inventorySync } from '../../src/workers/sync/inventory.js';
import { listingsSync } from '../../src/workers/sync/listings.js';
import { syncScope } from '../../src/workers/sync/scope.js';
import { clientsFor } from '../support/marketplace.js';
import { call, serveMcp, type McpServing } from '../support/mcp.js';
import { startHarness, type Harness } from '../support/observed.js';
import { listingId } from '../../src/domain/observation/ids.js';

// list_listings over MCP on listings and FBA inventory synced from the simulator; every
// expected value comes from the simulator's own catalog and answers.

const SELLER = 'Atzr|demo-seller';
const JP = 'A1VC38T7YXB528';
const US = 'ATVPDKIKX0DER';
const INCLUDED = new Set(['summaries', 'attributes', 'offers', 'fulfillmentAvailability', 'issues'] as const);

type Row = Record<string, any>;

describe('list_listings', function () {
  this.timeout(120_000);
  let h: Harness;
  let mcp: McpServing;
  let user: string;
  let accounts: string[];
  let client: Client;
  let names: Map<string, string>;
  const inventory = new Map<string, InventorySummary>();
  const live = (l: SimListing) => h.simulator.selling.listings.live(l);
  const marketplaces = () => h.simulator.seller.participations.map((p) => p.marketplace.id);
  const simListings = () => marketplaces().flatMap((m) => [...h.simulator.catalog.listingsIn(m)].map(live));
  const keyOf = (account: string, l: { marketplaceId: string; sku: string }) =>
    `${account}/${l.marketplaceId}/${l.sku}`;
  const newestFirst = (a: { account: string; l: SimListing }, b: { account: string; l: SimListing }) =>
    b.l.createdAt.localeCompare(a.l.createdAt) ||
    a.account.localeCompare(b.account) ||
    a.l.marketplaceId.localeCompare(b.l.marketplaceId) ||
    a.l.sku.localeCompare(b.l.sku);
  /** every (account, listing) pair the caller has, newest first, as list_listings orders them */
  const expected = (keep: (l: SimListing) => boolean = () => true, of: string[] = accounts) =>
    of
      .flatMap((account) =>
        simListings()
          .filter(keep)
          .map((l) => ({ account, l })),
      )
      .sort(newestFirst);
  const keys = (rows: Row[]) => rows.map((r) => `${r.account_id}/${r.marketplace_id}/${r.sku}`);
  const list = async (args: Record<string, unknown> = {}, c: Client = client) => {
    const result = await call(c, 'list_listings', args);
    expect(result.isError, JSON.stringify(result.structuredContent)).to.equal(undefined);
    return result.structuredContent as { listings: Row[]; total: number };
  };
  const errorOf = async (args: Record<string, unknown>, c: Client = client) => {
    const result = await call(c, 'list_listings', args);
    expect(result.isError).to.equal(true);
    return result.structuredContent as { code: string; detail: string };
  };

  before(async () => {
    h = await startHarness([listingsProjection, fbaInventoryProjection], [], Date.parse('2026-03-10T09:00:00Z'));
    user = newId();
    accounts = [await h.connect('seller', user), await h.connect('seller', user)];
    for (const account of accounts) {
      await h.run(listingsSync, account, SELLER);
      await h.run(inventorySync, account, SELLER);
    }
    const { selling } = clientsFor(h.simulator);
    for (const m of marketplaces())
      for await (const page of selling.inventory.inventorySummaries(m))
        for (const s of page) inventory.set(`${m}/${s.sellerSku}`, s);
    mcp = await serveMcp(h.db, () => new Date(h.clock.ms));
    client = await mcp.clientFor(user);
    const status = await call(client, 'connection_status');
    names = new Map((status.structuredContent.accounts as Row[]).map((a) => [a.id, a.name]));
  });
  after(async () => {
    await mcp?.close();
    await h?.close();
  });

  it('every field of every row is the simulator listing, in minor units of its currency, for both accounts', async () => {
    const { listings, total } = await list({ limit: 100 });
    const all = expected();
    expect(all.length).to.be.within(2, 100);
    expect(total).to.equal(all.length);
    expect(keys(listings)).to.deep.equal(all.map(({ account, l }) => keyOf(account, l)));
    for (const [i, { account, l }] of all.entries()) {
      const fba = l.fulfillmentChannel === 'FBA';
      expect(listings[i], keyOf(account, l)).to.deep.equal({
        id: listingId(account, l.marketplaceId, l.sku),
        type: 'Listing',
        account_id: account,
        account_name: names.get(account),
        asin: l.asin,
        sku: l.sku,
        marketplace_id: l.marketplaceId,
        title: l.title,
        currency: l.currency,
        price: l.price,
        floor: l.floor,
        ceiling: l.ceiling,
        b2b_price: l.b2bPrice,
        handling_time: l.handlingTime,
        restock_date: l.restockDate,
        shipping_group: l.shippingGroup,
        conditionType: l.conditionType,
        condition: l.conditionFamily,
        status: l.status,
        active: l.status === 'BUYABLE' || l.status === 'DISCOVERABLE',
        product_type: l.productType,
        fulfillment_channel: l.fulfillmentChannel,
        created_at: l.createdAt,
        data: {
          fba: fba ? { inventory: JSON.parse(JSON.stringify(inventory.get(`${l.marketplaceId}/${l.sku}`))) } : null,
          listings_item: JSON.parse(JSON.stringify(listingItem(l, INCLUDED))),
          notifications: null,
        },
        mutations: [],
      });
    }
    // the cases the spec singles out are all in there
    const rowOf = (pick: (l: SimListing) => boolean) =>
      listings.find((r) => pick(simListings().find((l) => l.sku === r.sku && l.marketplaceId === r.marketplace_id)!))!;
    const yen = rowOf((l) => l.marketplaceId === JP);
    expect(yen.currency).to.equal('JPY');
    expect(yen.price).to.equal(simListings().find((l) => l.sku === yen.sku && l.marketplaceId === JP)!.price);
    expect(Number.isInteger(yen.price) && yen.price % 10 === 0, 'whole yen').to.equal(true);
    expect(rowOf((l) => l.b2bPrice !== null).b2b_price).to.be.a('number');
    const fbaRow = rowOf((l) => l.fulfillmentChannel === 'FBA');
    expect(fbaRow.data.fba.inventory.sellerSku).to.equal(fbaRow.sku);
    expect(fbaRow.data.fba.inventory.inventoryDetails).to.be.an('object');
    const mfn = rowOf((l) => l.fulfillmentChannel === 'MFN' && l.handlingTime !== null);
    expect(mfn.handling_time).to.be.a('number');
    expect(mfn.shipping_group).to.match(/^legacy-template-id-/);
    const unreported = rowOf((l) => l.status === null);
    expect(unreported).to.include({ status: null, active: false });
    expect(
      listings.some((r) => r.status === 'DELETED' && r.active === false),
      'deleted listings stay listed until they are gone',
    ).to.equal(true);
    expect(new Set(listings.map((r) => r.floor === null)).size, 'bounds per listing, some set and some not').to.equal(
      2,
    );
  });

  it('mutations: every queued request plus the latest submitted one, oldest first, with payload, acceptance and raw response', async () => {
    const [row, other] = (await list({ limit: 2 })).listings as [Row, Row];
    const ctx = { store: h.store, metadata: { actor: { kind: 'worker' as const, id: 'test' } } };
    const payload = (price: number) => ({
      productType: 'PRODUCT',
      patches: [
        {
          op: 'merge',
          path: '/attributes/purchasable_offer',
          value: [
            {
              marketplace_id: row.marketplace_id,
              currency: row.currency,
              audience: 'ALL',
              our_price: [{ schedule: [{ value_with_tax: price }] }],
            },
          ],
        },
      ],
    });
    const admit = async (price: number, at: string) => {
      const receipt_id = newId();
      await executeMutationCommand(ctx, {
        type: 'AdmitMutation',
        receipt_id,
        account_id: row.account_id,
        target: { type: 'Listing', id: row.id },
        provider: { sku: row.sku, marketplaceId: row.marketplace_id },
        action: 'update',
        payload: payload(price),
        idempotency: null,
        created_at: at,
        blocked: null,
      });
      return receipt_id;
    };
    const submit = async (receipt_id: string, accepted: boolean, at: string) => {
      await executeMutationCommand(ctx, { type: 'StartDispatch', receipt_id, started_at: at });
      const response = {
        sku: row.sku,
        status: accepted ? 'ACCEPTED' : 'INVALID',
        submissionId: `sub-${receipt_id}`,
        issues: accepted ? [] : [{ code: '90220', message: 'bad price', severity: 'ERROR' }],
      };
      await executeMutationCommand(ctx, {
        type: 'RecordSubmission',
        receipt_id,
        submission_id: response.submissionId,
        accepted,
        created: null,
        http_status: 200,
        response,
        request_id: `req-${receipt_id}`,
        error: null,
        recorded_at: at,
      });
      return response;
    };
    const first = await admit(10.5, '2026-03-10T09:00:01.000Z');
    await submit(first, true, '2026-03-10T09:00:02.000Z');
    const second = await admit(11.5, '2026-03-10T09:00:03.000Z');
    const answer = await submit(second, false, '2026-03-10T09:00:04.000Z');
    const third = await admit(12.5, '2026-03-10T09:00:05.000Z');
    await h.projector.whenCaughtUp();

    const [again] = (await list({ sku: row.sku, marketplace_id: row.marketplace_id, account: row.account_id }))
      .listings as [Row];
    expect(
      again.mutations.map((m: Row) => m.id),
      'the latest submitted one, then the queued one',
    ).to.deep.equal([second, third]);
    expect(again.mutations[0]).to.deep.include({
      status: 'submitted',
      accepted: false,
      http_status: 200,
      response: answer,
      payload: payload(11.5),
    });
    expect(again.mutations[1]).to.deep.include({
      status: 'queued',
      accepted: null,
      response: null,
      payload: payload(12.5),
    });
    const [untouched] = (
      await list({ sku: other.sku, marketplace_id: other.marketplace_id, account: other.account_id })
    ).listings as [Row];
    expect(untouched.mutations).to.deep.equal([]);
  });

  it('total counts every match; limit cuts the page; order_by created_at is newest first', async () => {
    const all = expected();
    const { listings, total } = await list({ limit: 5, order_by: 'created_at' });
    expect(total).to.equal(all.length);
    expect(keys(listings)).to.deep.equal(all.slice(0, 5).map(({ account, l }) => keyOf(account, l)));
    const byDefault = await list();
    expect(byDefault.listings).to.have.length(Math.min(20, all.length));
    expect(keys(byDefault.listings)).to.deep.equal(all.slice(0, 20).map(({ account, l }) => keyOf(account, l)));
  });

  it('keyword: title substring and SKU substring (any case), exact ASIN; an ASIN substring is no ASIN match', async () => {
    const sample = simListings().find((l) => l.marketplaceId === US)!;
    const word = sample.title.split(' ')[1]!.toLowerCase();
    const check = async (keyword: string, keep: (l: SimListing) => boolean) => {
      const want = expected(keep);
      expect(want.length, keyword).to.be.greaterThan(0);
      const { listings, total } = await list({ keyword, limit: 100 });
      expect(total, keyword).to.equal(want.length);
      expect(keys(listings), keyword).to.deep.equal(want.map(({ account, l }) => keyOf(account, l)));
    };
    await check(word, (l) => l.title.toLowerCase().includes(word));
    const skuPart = sample.sku.slice(1, 6).toLowerCase();
    await check(skuPart, (l) => l.sku.toLowerCase().includes(skuPart) || l.title.toLowerCase().includes(skuPart));
    await check(sample.asin, (l) => l.asin === sample.asin);
    await check(sample.asin.toLowerCase(), (l) => l.asin === sample.asin);
    const asinPart = sample.asin.slice(0, 7);
    const byText = (l: SimListing) =>
      l.title.toLowerCase().includes(asinPart.toLowerCase()) || l.sku.toLowerCase().includes(asinPart.toLowerCase());
    expect(simListings().some(byText)).to.equal(false);
    expect(await list({ keyword: asinPart })).to.deep.equal({ listings: [], total: 0 });
    // LIKE wildcards are literal
    expect((await list({ keyword: '%' })).total).to.equal(0);
  });

  it('filters: asin, sku, marketplace_id and account (exact)', async () => {
    const sample = simListings().find((l) => simListings().filter((o) => o.sku === l.sku).length > 1)!;
    const cases: Array<[Record<string, unknown>, (l: SimListing) => boolean, string[]?]> = [
      [{ asin: sample.asin }, (l) => l.asin === sample.asin],
      [{ sku: sample.sku }, (l) => l.sku === sample.sku],
      [{ sku: sample.sku.toLowerCase() }, () => false],
      [{ marketplace_id: JP }, (l) => l.marketplaceId === JP],
      [
        { sku: sample.sku, marketplace_id: sample.marketplaceId },
        (l) => l.sku === sample.sku && l.marketplaceId === sample.marketplaceId,
      ],
      [{ account: accounts[1] }, () => true, [accounts[1]!]],
      [{ account: accounts[0], marketplace_id: US }, (l) => l.marketplaceId === US, [accounts[0]!]],
    ];
    for (const [args, keep, of] of cases) {
      const want = expected(keep, of);
      const { listings, total } = await list({ ...args, limit: 100 });
      expect(total, JSON.stringify(args)).to.equal(want.length);
      expect(keys(listings), JSON.stringify(args)).to.deep.equal(want.map(({ account, l }) => keyOf(account, l)));
    }
    expect(expected((l) => l.sku === sample.sku).length, 'a SKU in two marketplaces, two accounts').to.be.greaterThan(
      2,
    );
  });

  it('since/until: an instant is exact (until exclusive), a bare date the whole UTC day (until inclusive)', async () => {
    const sample = simListings()[3]!;
    const at = Date.parse(sample.createdAt);
    const day = sample.createdAt.slice(0, 10);
    const iso = (ms: number) => new Date(ms).toISOString();
    const dayStart = Date.parse(`${day}T00:00:00Z`);
    const cases: Array<[Record<string, unknown>, (ms: number) => boolean]> = [
      [{ since: sample.createdAt }, (ms) => ms >= at],
      [{ since: iso(at + 1000) }, (ms) => ms > at],
      [{ until: sample.createdAt }, (ms) => ms < at],
      [{ until: iso(at + 1000) }, (ms) => ms <= at],
      [{ since: day }, (ms) => ms >= dayStart],
      [{ until: day }, (ms) => ms < dayStart + 86_400_000],
      [{ since: day, until: day }, (ms) => ms >= dayStart && ms < dayStart + 86_400_000],
      [{ since: sample.createdAt.replace('Z', '+02:00') }, (ms) => ms >= at - 7_200_000],
    ];
    for (const [args, keep] of cases) {
      const want = expected((l) => keep(Date.parse(l.createdAt)));
      const { listings, total } = await list({ ...args, limit: 100 });
      expect(total, JSON.stringify(args)).to.equal(want.length);
      expect(keys(listings), JSON.stringify(args)).to.deep.equal(want.map(({ account, l }) => keyOf(account, l)));
    }
    expect(keys((await list({ since: day, until: day, limit: 100 })).listings)).to.include(keyOf(accounts[0]!, sample));
    // created_at has whole seconds: [t, t + 1s) is exactly the listings created at t
    expect((await list({ since: sample.createdAt, until: iso(at + 1000) })).total).to.equal(
      expected((l) => l.createdAt === sample.createdAt).length,
    );
  });

  it('rejects bad arguments with the spec codes', async () => {
    for (const limit of [0, 101, 2.5]) expect((await errorOf({ limit })).code, String(limit)).to.equal('invalid');
    expect(await errorOf({ order_by: 'title' })).to.include({ code: 'invalid' });
    expect(await errorOf({ marketplace_id: 'XX' })).to.include({ code: 'invalid' });
    expect((await errorOf({ since: '2026-02-30' })).code).to.equal('invalid_window');
    expect((await errorOf({ since: '2026-03-02', until: '2026-03-01' })).code).to.equal('invalid_window');
    expect((await errorOf({ status: 'BUYABLE' })).code).to.equal('unknown_argument');
    expect((await errorOf({ account: newId() })).code).to.equal('account_not_found');
  });

  it('vendor accounts: hidden for a vendor-only user (not_connected when called); a named vendor account is not_connected', async () => {
    const vendorUser = newId();
    await h.connect('vendor', vendorUser);
    const vendor = await mcp.clientFor(vendorUser);
    expect((await vendor.listTools()).tools.map((t) => t.name)).to.not.include('list_listings');
    expect((await client.listTools()).tools.map((t) => t.name)).to.include('list_listings');
    expect((await errorOf({}, vendor)).code).to.equal('not_connected');

    const mixedUser = newId();
    const seller = await h.connect('seller', mixedUser);
    const vendorAccount = await h.connect('vendor', mixedUser);
    const mixed = await mcp.clientFor(mixedUser);
    expect((await mixed.listTools()).tools.map((t) => t.name)).to.include('list_listings');
    expect(await list({}, mixed)).to.deep.equal({ listings: [], total: 0 }); // connected, listings not synced yet
    await h.run(listingsSync, seller, SELLER);
    const { listings, total } = await list({ limit: 100 }, mixed);
    expect(total).to.equal(simListings().length);
    expect(listings.every((r) => r.account_id === seller)).to.equal(true);
    const refused = await errorOf({ account: vendorAccount }, mixed);
    expect(refused.code).to.equal('not_connected');
    expect(refused.detail).to.include(vendorAccount);
  });

  it('a SKU the marketplace returned on two pages of a read is one row, from the later page; a shorter read drops the later page', async () => {
    const owner = newId();
    const account = await h.connect('seller', owner);
    const mine = await mcp.clientFor(owner);
    const [a, b] = [...h.simulator.catalog.listingsIn(US)].map(live);
    const item = (l: ReturnType<typeof live>, title: string) => {
      const raw = JSON.parse(JSON.stringify(listingItem(l, INCLUDED)));
      raw.summaries[0].itemName = title;
      return raw;
    };
    const read = async (pages: unknown[][]) => {
      async function* each() {
        yield* pages;
      }
      await syncScope(
        h.deps(SELLER).ctx,
        { account_id: account, dataset: 'listings', scope: US },
        each(),
        () => new Date(h.clock.ms),
      );
      await h.projector.whenCaughtUp();
    };
    const titles = async () => {
      const { listings, total } = await list({ limit: 100 }, mine);
      const viaViews: { rows: { sku: string; title: string }[] } = await h.db.raw(
        `select sku, title from (${currentListingsSql}) l where account_id = ? order by sku`,
        [account],
      );
      expect(
        Object.fromEntries(viaViews.rows.map((r) => [r.sku, r.title])),
        'the views pick the same rows',
      ).to.deep.equal(Object.fromEntries(listings.map((r) => [r.sku, r.title])));
      return { total, titles: Object.fromEntries(listings.map((r) => [r.sku, r.title])) };
    };
    await read([[item(a!, 'A'), item(b!, 'B on page 0')], [item(b!, 'B on page 1')]]);
    expect(await titles()).to.deep.equal({ total: 2, titles: { [a!.sku]: 'A', [b!.sku]: 'B on page 1' } });
    expect((await list({ keyword: 'page 0' }, mine)).total, 'filters apply to the current row only').to.equal(0);
    await read([[item(a!, 'A'), item(b!, 'B on page 0')]]);
    expect(await titles()).to.deep.equal({ total: 2, titles: { [a!.sku]: 'A', [b!.sku]: 'B on page 0' } });
    await read([[item(a!, 'A')]]);
    expect(await titles()).to.deep.equal({ total: 1, titles: { [a!.sku]: 'A' } });
  });
});
