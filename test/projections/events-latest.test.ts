import { expect } from 'chai';
import { recordMarketplaceEvent } from '../../src/commands/event/record.js';
import { newId } from '../../src/domain/shared/ids.js';
import { EVENTS_TABLE, eventsProjection } from '../../src/projections/events/projection.js';
import { latestNaming, latestNamingByScan } from '../../src/projections/events/queries.js';
import { READ_MODEL_SCHEMA } from '../../src/projections/projection.js';
import { startProjecting } from '../support/projections.js';

// A listing context's latest message of each type naming the listing (latestNaming): by its SKU,
// else by its ASIN when the message names no SKU; within its marketplace unless the message names
// none; the latest by occurred_at, then received_at, whatever order they were recorded in.

describe('events read model: the latest message of each type naming a listing', function () {
  this.timeout(30_000);
  let world: Awaited<ReturnType<typeof startProjecting>>;
  const account = newId();
  const US = 'ATVPDKIKX0DER';
  const DE = 'A1PA6795UKMFR9';
  const listing: { sku: string; asin: string | null; marketplace_id: string } = {
    sku: 'SKU-1',
    asin: 'B0LATEST01',
    marketplace_id: US,
  };

  const record = async (
    stream_type: string,
    occurred_at: string,
    payload: Record<string, unknown>,
    received_at = occurred_at,
  ) => {
    await recordMarketplaceEvent(world.store, {
      account_id: account,
      message_id: newId(),
      stream_type,
      source: 'selling',
      occurred_at,
      received_at,
      payload,
    });
  };
  const offer = (tag: string, trigger: Record<string, unknown>) => ({
    tag,
    Payload: { AnyOfferChangedNotification: { OfferChangeTrigger: trigger } },
  });
  const quantity = (tag: string, item: Record<string, unknown>) => ({ tag, Payload: item });

  before(async () => {
    world = await startProjecting([eventsProjection]);
    const t = (minute: number) => `2026-11-20T10:${String(minute).padStart(2, '0')}:00.000Z`;
    // offers: by ASIN (no SKU in an offer trigger); the latest in the US by occurred_at is 'offer-us-late',
    // recorded before an older one; a later one in Germany is another marketplace's
    await record('ANY_OFFER_CHANGED', t(30), offer('offer-us-late', { ASIN: listing.asin, MarketplaceId: US }));
    await record('ANY_OFFER_CHANGED', t(10), offer('offer-us-early', { ASIN: listing.asin, MarketplaceId: US }));
    await record('ANY_OFFER_CHANGED', t(50), offer('offer-de', { ASIN: listing.asin, MarketplaceId: DE }));
    await record('ANY_OFFER_CHANGED', t(55), offer('offer-other-asin', { ASIN: 'B0OTHER001', MarketplaceId: US }));
    // quantities: by SKU; one without a marketplace names it everywhere; same occurred_at, later received wins;
    // an ASIN-only message of the listing's ASIN doesn't outrank a later SKU one
    await record(
      'LISTINGS_ITEM_MFN_QUANTITY_CHANGE',
      t(20),
      quantity('qty-early', { SKU: listing.sku, MarketplaceId: US }),
    );
    await record('LISTINGS_ITEM_MFN_QUANTITY_CHANGE', t(40), quantity('qty-first', { SKU: listing.sku }), t(41));
    await record('LISTINGS_ITEM_MFN_QUANTITY_CHANGE', t(40), quantity('qty-second', { SKU: listing.sku }), t(42));
    await record('LISTINGS_ITEM_MFN_QUANTITY_CHANGE', t(35), quantity('qty-asin', { ASIN: listing.asin }));
    await record('LISTINGS_ITEM_MFN_QUANTITY_CHANGE', t(59), quantity('qty-other-sku', { SKU: 'SKU-2' }));
    // statuses: a later message naming only the ASIN outranks an older one naming the SKU
    await record('LISTINGS_ITEM_STATUS_CHANGE', t(10), quantity('status-sku', { SKU: listing.sku }));
    await record('LISTINGS_ITEM_STATUS_CHANGE', t(45), quantity('status-asin', { ASIN: listing.asin }));
    // the marketplace's answer to a push of the listing, later than every message: a synthetic row
    // naming its SKU, which no message type's latest may be
    const receipt_id = newId();
    await world.store.appendToStream(`mutation-${receipt_id}`, [
      {
        type: 'MutationAdmitted',
        data: {
          receipt_id,
          account_id: account,
          target: { type: 'Listing', id: newId() },
          provider: { sku: listing.sku, marketplaceId: US },
          action: 'update',
          payload: {},
          idempotency: null,
          created_at: t(58),
          blocked: null,
        },
      },
      {
        type: 'MutationSubmitted',
        data: {
          receipt_id,
          http_status: 200,
          response: { status: 'ACCEPTED' },
          attempt: 1,
          request_id: 'req-synthetic',
          error: null,
          recorded_at: t(58),
          submission_id: 'sub-1',
          accepted: true,
          created: null,
        },
      },
    ]);
    await world.projector.whenCaughtUp();
  });
  after(async () => world?.close());

  const tags = async (l: typeof listing, types: string[]) =>
    Object.fromEntries([...(await latestNaming(world.db, account, types, l))].map(([type, p]) => [type, p.tag]));

  it('answers the latest of each type by occurred_at then received_at, by SKU else ASIN, in the marketplace', async () => {
    const types = [
      'ANY_OFFER_CHANGED',
      'LISTINGS_ITEM_MFN_QUANTITY_CHANGE',
      'LISTINGS_ITEM_STATUS_CHANGE',
      'B2B_ANY_OFFER_CHANGED',
    ];
    expect(await tags(listing, types)).to.deep.equal({
      ANY_OFFER_CHANGED: 'offer-us-late',
      LISTINGS_ITEM_MFN_QUANTITY_CHANGE: 'qty-second',
      LISTINGS_ITEM_STATUS_CHANGE: 'status-asin',
    });
    expect(await tags({ ...listing, marketplace_id: DE }, types)).to.deep.equal({
      ANY_OFFER_CHANGED: 'offer-de',
      LISTINGS_ITEM_MFN_QUANTITY_CHANGE: 'qty-second',
      LISTINGS_ITEM_STATUS_CHANGE: 'status-asin',
    });
  });

  it("the answer to a push of the listing, later than every message, is no type's latest", async () => {
    const synthetic = await world.db
      .withSchema(READ_MODEL_SCHEMA)
      .table(EVENTS_TABLE)
      .where({ account_id: account, synthetic: true });
    expect(synthetic.map((r: { payload: { kind: string } }) => r.payload.kind)).to.deep.equal(['listing_push_answer']);
    const types = ['LISTINGS_ITEM_MFN_QUANTITY_CHANGE', 'LISTINGS_ITEM_STATUS_CHANGE'];
    for (const answer of [latestNaming, latestNamingByScan])
      expect(
        Object.fromEntries([...(await answer(world.db, account, types, listing))].map(([type, p]) => [type, p.tag])),
      ).to.deep.equal({ LISTINGS_ITEM_MFN_QUANTITY_CHANGE: 'qty-second', LISTINGS_ITEM_STATUS_CHANGE: 'status-asin' });
  });

  it('the scan that answers while an upgrade rebuilds version 1 gives the same answers', async () => {
    const types = ['ANY_OFFER_CHANGED', 'LISTINGS_ITEM_MFN_QUANTITY_CHANGE', 'LISTINGS_ITEM_STATUS_CHANGE'];
    for (const l of [listing, { ...listing, marketplace_id: DE }, { ...listing, asin: null }])
      expect(await latestNamingByScan(world.db, account, types, l)).to.deep.equal(
        await latestNaming(world.db, account, types, l),
      );
  });

  it('a listing without an ASIN is named by SKU only; another account sees nothing', async () => {
    const types = ['ANY_OFFER_CHANGED', 'LISTINGS_ITEM_MFN_QUANTITY_CHANGE', 'LISTINGS_ITEM_STATUS_CHANGE'];
    expect(await tags({ ...listing, asin: null }, types)).to.deep.equal({
      LISTINGS_ITEM_MFN_QUANTITY_CHANGE: 'qty-second',
      LISTINGS_ITEM_STATUS_CHANGE: 'status-sku',
    });
    expect([...(await latestNaming(world.db, newId(), ['ANY_OFFER_CHANGED'], listing))]).to.deep.equal([]);
  });
});
