import { randomUUID } from 'node:crypto';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { expect } from 'chai';
import { SELECTABLE_STREAM_TYPES } from '../../src/domain/stream/types.js';
import { createDb, type Knex } from '../../src/infra/db.js';
import { eventFixture } from '../../src/runtime/contracts/index.js';
import { call, serveMcp, type McpServing } from '../support/mcp.js';
import { prepareReadModels, project } from '../support/seed.js';

// describe_stream_type over HTTP through the MCP client: the contract of every selectable type,
// the account it is described for, and each refusal with its code and detail.

type Row = Record<string, any>;
const CODES = SELECTABLE_STREAM_TYPES.map((t) => t.code);

describe('describe_stream_type over HTTP', function () {
  this.timeout(60_000);
  let db: Knex;
  let mcp: McpServing;
  const [seller, vendorOnly, adsOnly, nobody, demo] = [
    randomUUID(),
    randomUUID(),
    randomUUID(),
    randomUUID(),
    randomUUID(),
  ];
  const [sellerAccount, vendorAccount, adsAccount, demoAccount, foreignAccount] = [
    randomUUID(),
    randomUUID(),
    randomUUID(),
    randomUUID(),
    randomUUID(),
  ];
  const clients = new Map<string, Client>();
  const as = async (user: string) => {
    if (!clients.has(user)) clients.set(user, user === demo ? await mcp.demoClient() : await mcp.clientFor(user));
    return clients.get(user)!;
  };
  const describeType = async (user: string, args: Row) => call(await as(user), 'describe_stream_type', args);
  const ok = async (user: string, args: Row) => {
    const result = await describeType(user, args);
    expect(result.isError, JSON.stringify(result.structuredContent).slice(0, 300)).to.not.equal(true);
    return result.structuredContent as Row;
  };
  const refused = async (user: string, args: Row) => {
    const result = await describeType(user, args);
    expect(result.isError, JSON.stringify(result.structuredContent).slice(0, 300)).to.equal(true);
    return result.structuredContent as { code: string; detail: string } & Row;
  };

  const registered = (account_id: string, user_id: string, name: string, entity_type: 'seller' | 'vendor') => ({
    type: 'AccountRegistered' as const,
    data: { account_id, user_id, name, entity_type },
  });
  const selling = (account_id: string) => ({
    type: 'SellingConnected' as const,
    data: { account_id, connection_id: randomUUID(), provider_id: 'A2EXAMPLESELLER' },
  });
  const ads = (account_id: string) => ({
    type: 'AdvertisingConnected' as const,
    data: { account_id, connection_id: randomUUID(), provider_id: 'ENTITY1' },
  });

  before(async () => {
    db = createDb(process.env.DATABASE_URL!);
    await prepareReadModels(db);
    await project(db, [
      registered(sellerAccount, seller, 'Copperleaf', 'seller'),
      selling(sellerAccount),
      ads(sellerAccount),
      registered(vendorAccount, vendorOnly, 'Vendor', 'vendor'),
      ads(vendorAccount),
      registered(adsAccount, adsOnly, 'Ads only', 'seller'),
      ads(adsAccount),
      registered(demoAccount, demo, 'Demo seller', 'seller'),
      selling(demoAccount),
      ads(demoAccount),
      registered(foreignAccount, randomUUID(), 'Elsewhere', 'seller'),
      selling(foreignAccount),
    ]);
    mcp = await serveMcp(db, () => new Date('2026-05-20T14:00:00Z'), demo);
  });
  after(async () => {
    await mcp?.close();
    await db?.destroy();
  });

  it('is listed on /mcp and /demo/mcp, read-only, with stream_type and account', async () => {
    for (const user of [seller, demo]) {
      const tool = (await (await as(user)).listTools()).tools.find((t) => t.name === 'describe_stream_type')!;
      expect(tool.annotations).to.include({ readOnlyHint: true });
      expect(Object.keys(tool.inputSchema.properties!)).to.have.members(['stream_type', 'account']);
      expect(tool.inputSchema.required).to.deep.equal(['stream_type']);
    }
  });

  it('answers each of the 24 types with its scope, fixture, event and context fields and setters', async () => {
    for (const code of CODES) {
      const body = await ok(seller, { stream_type: code });
      expect(body, code).to.include({ stream_type: code, account_id: sellerAccount, account_name: 'Copperleaf' });
      expect(body.event.fixture, code).to.deep.equal(eventFixture(code));
      expect(body.event.fields.length, code).to.be.greaterThan(3);
      for (const f of [...body.event.fields, ...body.context.fields])
        expect(f, `${code} ${f.path}`).to.include.keys('path', 'type', 'nullable', 'optional');
      const top = body.context.fields.map((f: Row) => f.path);
      expect(top, code).to.include.members(['mutations', 'webhooks', 'store']);
      expect(body.queueing.limits.requests_per_run, code).to.equal(50);
      expect(body.template, code).to.match(/function handle\(event, context\)/);
      expect(body.setters, code).to.be.an('array');
    }
  });

  it('documents money as major units in context and as sent in event', async () => {
    const offers = await ok(seller, { stream_type: 'ANY_OFFER_CHANGED' });
    const price = offers.context.fields.find((f: Row) => f.path === 'listing.price');
    expect(price).to.include({ type: 'number', nullable: true });
    expect(price.unit).to.contain('major units');
    const amount = offers.event.fields.find(
      (f: Row) => f.path === 'Payload.AnyOfferChangedNotification.Summary.BuyBoxPrices[].ListingPrice.Amount',
    );
    expect(amount.unit).to.contain('as the marketplace sends it');
    expect(offers.money.context).to.contain('major units');
    const traffic = await ok(seller, { stream_type: 'SP_TRAFFIC' });
    expect(traffic.event.fields.find((f: Row) => f.path === 'cost').unit).to.contain('as the marketplace sends it');
    expect(traffic.context.fields.find((f: Row) => f.path === 'metrics.cost')).to.include({ nullable: true });
    expect(traffic.setters.find((s: Row) => s.target_type === 'Campaign').found_at).to.deep.equal(['context.campaign']);
  });

  it('listing setters say what a listing accepts; ads setters list writable payload keys', async () => {
    const body = await ok(seller, { stream_type: 'LISTINGS_ITEM_MFN_QUANTITY_CHANGE' });
    const listing = body.setters.find((s: Row) => s.target_type === 'Listing');
    expect(listing.actions[0]).to.include({ action: 'update' });
    expect(listing.actions[0].writable).to.deep.equal(['productType', 'patches']);
    expect(listing.attributes.find((a: Row) => a.field === 'handlingTime')).to.include({
      attribute: 'fulfillment_availability',
      key: 'lead_time_to_ship_max_days',
    });
    const target = body.setters.find((s: Row) => s.target_type === 'Target');
    expect(target.actions.find((a: Row) => a.action === 'update').writable).to.deep.equal(['state', 'bid']);
  });

  it('defaults to the first account that can run the type, and takes the one named', async () => {
    expect((await ok(adsOnly, { stream_type: 'BUDGET_USAGE' })).account_id).to.equal(adsAccount);
    expect((await ok(vendorOnly, { stream_type: 'CAMPAIGN_CHANGE' })).account_id).to.equal(vendorAccount);
    expect((await ok(vendorOnly, { stream_type: 'ADS_REPORT_COMPLETED' })).account_id).to.equal(vendorAccount);
    expect((await ok(seller, { stream_type: 'ORDER_CHANGE', account: sellerAccount })).account_id).to.equal(
      sellerAccount,
    );
  });

  it('answers on the demo endpoint for the demo seller', async () => {
    const body = await ok(demo, { stream_type: 'PRICING_HEALTH' });
    expect(body).to.include({ account_id: demoAccount, scope: 'Listing' });
    expect(body.event.fixture.notificationType).to.equal('PRICING_HEALTH');
  });

  it('unknown_stream_type for an unknown code, listing the valid ones', async () => {
    const err = await refused(seller, { stream_type: 'ANY_OFFER_CHANGE' });
    expect(err.code).to.equal('unknown_stream_type');
    expect(err.detail)
      .to.contain("'ANY_OFFER_CHANGE'")
      .and.to.contain('ANY_OFFER_CHANGED')
      .and.to.contain('TARGET_CHANGE');
    expect(err.stream_types).to.have.length(24);
  });

  it('unknown_stream_type for the two internal types, saying they are handled internally', async () => {
    for (const code of ['REPORT_PROCESSING_FINISHED', 'DATA_KIOSK_QUERY_PROCESSING_FINISHED']) {
      const err = await refused(seller, { stream_type: code });
      expect(err.code, code).to.equal('unknown_stream_type');
      expect(err.detail, code).to.contain('handled internally');
    }
  });

  it('stream_type_not_for_entity for a seller type on a vendor-only user or a named vendor account', async () => {
    const err = await refused(vendorOnly, { stream_type: 'ORDER_CHANGE' });
    expect(err.code).to.equal('stream_type_not_for_entity');
    expect(err.detail).to.contain('ORDER_CHANGE').and.to.contain('vendor');
    const named = await refused(vendorOnly, { stream_type: 'ANY_OFFER_CHANGED', account: vendorAccount });
    expect(named.code).to.equal('stream_type_not_for_entity');
    expect(named.detail).to.contain(vendorAccount);
  });

  it('owner_not_connected without the connection the type needs', async () => {
    const selling = await refused(adsOnly, { stream_type: 'LISTINGS_ITEM_STATUS_CHANGE' });
    expect(selling.code).to.equal('owner_not_connected');
    expect(selling.detail).to.contain('selling connection');
    const named = await refused(adsOnly, { stream_type: 'SELLING_REPORT_COMPLETED', account: adsAccount });
    expect(named.code).to.equal('owner_not_connected');
    expect(named.detail).to.contain(adsAccount);
    const none = await refused(nobody, { stream_type: 'SP_CONVERSION' });
    expect(none.code).to.equal('owner_not_connected');
    expect(none.detail).to.contain('advertising connection');
  });

  it("account_not_found for another user's account, listing the caller's", async () => {
    const err = await refused(seller, { stream_type: 'ORDER_CHANGE', account: foreignAccount });
    expect(err.code).to.equal('account_not_found');
    const listed = err.detail.split('existing accounts:')[1]!;
    expect(listed).to.contain(sellerAccount).and.not.to.contain(foreignAccount);
    expect(err.accounts).to.deep.equal([sellerAccount]);
  });

  it('a missing stream_type or an unknown argument is refused with its code', async () => {
    expect((await refused(seller, {})).code).to.equal('invalid');
    expect((await refused(seller, { stream_type: 'ORDER_CHANGE', listing: 'x' })).code).to.equal('unknown_argument');
  });
});
