import { expect } from 'chai';
import { createSellingClient, MarketplaceError, type ListingItem } from '../../src/marketplace/clients/index.js';
import type { Simulator } from '../../src/marketplace/simulator/app.js';
import type { SimListing } from '../../src/marketplace/simulator/index.js';
import { DAY_MS, orderAsOf } from '../../src/marketplace/simulator/selling/orders-book.js';
import { clientsFor, QUICK_RETRY, rejectionOf, startSimulator } from '../support/marketplace.js';

// The selling simulator's listings, catalog items, orders and FBA inventory, read and
// written through the real clients, in the wire shapes of the published models.

const US = 'ATVPDKIKX0DER';
const JP = 'A1VC38T7YXB528';
const NOW = Date.parse('2026-03-10T09:00:00Z');

async function all<T>(pages: AsyncIterable<T[]>): Promise<{ pages: T[][]; rows: T[] }> {
  const read: T[][] = [];
  for await (const page of pages) read.push(page);
  return { pages: read, rows: read.flat() };
}

describe('selling simulator: listings, catalog items, orders, FBA inventory through the real clients', () => {
  let simulator: Simulator;
  let clients: ReturnType<typeof clientsFor>;
  let sellerId: string;
  const clock = { ms: NOW };
  const listings = (marketplaceId: string) => [...simulator.catalog.listingsIn(marketplaceId)];
  const summary = (item: ListingItem) => item.summaries![0]!;

  before(async () => {
    ({ simulator } = await startSimulator({ seed: 42, now: () => clock.ms }));
    clients = clientsFor(simulator);
    sellerId = simulator.seller.merchantId;
  });
  after(() => simulator.close());

  describe('Listings Items 2021-08-01', () => {
    it('searchListingsItems pages through every listing of a marketplace once, at most 20 a page', async () => {
      const { pages, rows } = await all(clients.selling.listings.searchListingsItems(sellerId, US, { pageSize: 4 }));
      expect(pages.every((p) => p.length <= 4)).to.equal(true);
      expect(rows.map((i) => i.sku)).to.deep.equal(listings(US).map((l) => l.sku));
      expect(
        rows.every((i) => summary(i).marketplaceId === US && i.attributes === undefined),
        'summaries only by default',
      ).to.equal(true);
      const error = await rejectionOf(
        all(clients.selling.listings.searchListingsItems(sellerId, US, { pageSize: 21 })),
      );
      expect(error).to.be.instanceOf(MarketplaceError).with.property('status', 400);
    });

    it('statuses: BUYABLE (with DISCOVERABLE), DISCOVERABLE, DELETED, and none while not yet reported', async () => {
      const everywhere = (
        await Promise.all(
          MARKET(simulator).map(
            async (m) => (await all(clients.selling.listings.searchListingsItems(sellerId, m))).rows,
          ),
        )
      ).flat();
      const statusOf = (status: SimListing['status']) => {
        const l = MARKET(simulator)
          .flatMap(listings)
          .find((x) => x.status === status)!;
        return summary(everywhere.find((i) => i.sku === l.sku && summary(i).marketplaceId === l.marketplaceId)!).status;
      };
      expect(statusOf('BUYABLE')).to.deep.equal(['BUYABLE', 'DISCOVERABLE']);
      expect(statusOf('DISCOVERABLE')).to.deep.equal(['DISCOVERABLE']);
      expect(statusOf('DELETED')).to.deep.equal(['DELETED']);
      expect(statusOf(null)).to.equal(undefined);
    });

    it('getListingsItem: offers in marketplace currency strings, B2B offers, merchant-fulfilled attributes; 404 for an unknown SKU', async () => {
      const all5 = MARKET(simulator).flatMap(listings);
      const mfn =
        all5.find((l) => l.fulfillmentChannel === 'MFN' && l.handlingTime !== null && l.b2bPrice !== null) ??
        all5.find((l) => l.fulfillmentChannel === 'MFN' && l.handlingTime !== null)!;
      const item = await clients.selling.listings.getListingsItem(sellerId, mfn.sku, mfn.marketplaceId, [
        'summaries',
        'attributes',
        'offers',
        'fulfillmentAvailability',
      ]);
      const availability = item.attributes!.fulfillment_availability![0] as Record<string, unknown>;
      expect(availability).to.include({
        fulfillment_channel_code: 'DEFAULT',
        lead_time_to_ship_max_days: mfn.handlingTime,
      });
      expect(item.attributes!.merchant_shipping_group).to.deep.equal([
        { value: mfn.shippingGroup, marketplace_id: mfn.marketplaceId },
      ]);
      expect(item.fulfillmentAvailability![0]!.fulfillmentChannelCode).to.equal('DEFAULT');
      expect(item.offers![0]).to.deep.include({
        offerType: 'B2C',
        price: {
          currencyCode: mfn.currency,
          amount: (mfn.price / (mfn.currency === 'JPY' ? 1 : 100)).toFixed(mfn.currency === 'JPY' ? 0 : 2),
        },
      });

      const b2b = all5.find((l) => l.b2bPrice !== null)!;
      const b2bItem = await clients.selling.listings.getListingsItem(sellerId, b2b.sku, b2b.marketplaceId, [
        'attributes',
        'offers',
      ]);
      expect(b2bItem.offers!.map((o) => o.offerType)).to.deep.equal(['B2C', 'B2B']);
      expect(b2bItem.attributes!.purchasable_offer!.map((o) => (o as { audience: string }).audience)).to.deep.equal([
        'ALL',
        'B2B',
      ]);

      const jp = listings(JP)[0]!;
      const jpItem = await clients.selling.listings.getListingsItem(sellerId, jp.sku, JP, ['offers']);
      expect(jpItem.offers![0]!.price).to.deep.equal({ currencyCode: 'JPY', amount: String(jp.price) });

      const fba = all5.find((l) => l.fulfillmentChannel === 'FBA')!;
      const fbaItem = await clients.selling.listings.getListingsItem(sellerId, fba.sku, fba.marketplaceId, [
        'summaries',
        'attributes',
      ]);
      expect(fbaItem.attributes!.merchant_shipping_group).to.equal(undefined);
      expect(summary(fbaItem).fnSku).to.be.a('string');

      const missing = await rejectionOf(clients.selling.listings.getListingsItem(sellerId, 'NO-SUCH-SKU', US));
      expect(missing).to.be.instanceOf(MarketplaceError).with.property('status', 404);
    });

    it('patchListingsItem applies accepted patches, previews without applying, refuses what the listing cannot take; every submission is logged', async () => {
      const mfn = MARKET(simulator)
        .flatMap(listings)
        .find((l) => l.fulfillmentChannel === 'MFN' && l.status !== 'DELETED')!;
      const offer = (price: number) => ({
        marketplace_id: mfn.marketplaceId,
        currency: mfn.currency,
        audience: 'ALL',
        our_price: [{ schedule: [{ value_with_tax: price }] }],
      });
      const patch = (price: number, mode?: 'VALIDATION_PREVIEW') =>
        clients.selling.listings.patchListingsItem(
          sellerId,
          mfn.sku,
          mfn.marketplaceId,
          {
            productType: 'PRODUCT',
            patches: [
              { op: 'replace', path: '/attributes/purchasable_offer', value: [offer(price)] },
              {
                op: 'replace',
                path: '/attributes/fulfillment_availability',
                value: [
                  { fulfillment_channel_code: 'DEFAULT', lead_time_to_ship_max_days: 7, restock_date: '2026-04-01' },
                ],
              },
            ],
          },
          { mode },
        );
      const preview = await patch(11, 'VALIDATION_PREVIEW');
      expect(preview.status).to.equal('VALID');
      expect(simulator.selling.listings.find(mfn.sku, mfn.marketplaceId)!.price).to.equal(mfn.price);

      const accepted = await patch(mfn.currency === 'JPY' ? 1111 : 11.5);
      expect(accepted).to.deep.include({ sku: mfn.sku, status: 'ACCEPTED', issues: [] });
      expect(accepted.submissionId).to.match(/^[0-9a-f]{32}$/);
      const item = await clients.selling.listings.getListingsItem(sellerId, mfn.sku, mfn.marketplaceId, [
        'offers',
        'attributes',
      ]);
      expect(item.offers![0]!.price.amount).to.equal(mfn.currency === 'JPY' ? '1111' : '11.50');
      expect(item.attributes!.fulfillment_availability![0]).to.include({
        lead_time_to_ship_max_days: 7,
        restock_date: '2026-04-01',
      });

      const fba = MARKET(simulator)
        .flatMap(listings)
        .find((l) => l.fulfillmentChannel === 'FBA' && l.status !== 'DELETED')!;
      const refused = await clients.selling.listings.patchListingsItem(sellerId, fba.sku, fba.marketplaceId, {
        productType: fba.productType,
        patches: [
          { op: 'replace', path: '/attributes/merchant_shipping_group', value: [{ value: 'legacy-template-id-9' }] },
        ],
      });
      expect(refused.status).to.equal('INVALID');
      expect(refused.issues![0]).to.include({ severity: 'ERROR', code: 'FULFILLMENT_CHANNEL' });

      const log = (await (await fetch(`${simulator.endpoints().sellingApiUrl}/_sim/listings/submissions`)).json()) as {
        submissions: Array<{ submissionId: string; status: string; mode: string }>;
      };
      expect(log.submissions.map((s) => [s.status, s.mode])).to.deep.equal([
        ['VALID', 'VALIDATION_PREVIEW'],
        ['ACCEPTED', 'APPLY'],
        ['INVALID', 'APPLY'],
      ]);
      expect(log.submissions[1]!.submissionId).to.equal(accepted.submissionId);
    });

    it("a vendor's token is refused on the seller routes", async () => {
      const vendor = createSellingClient({
        endpoint: simulator.endpoints().sellingApiUrl,
        lwa: clients.lwa,
        refreshToken: 'Atzr|demo-vendor',
        retry: QUICK_RETRY,
      });
      const error = await rejectionOf(all(vendor.listings.searchListingsItems(sellerId, US)));
      expect(error).to.be.instanceOf(MarketplaceError).with.property('status', 403);
      expect(await rejectionOf(vendor.orders.getOrderItems('111-0000000-0000000'))).to.have.property('status', 403);
    });
  });

  describe('Orders v0', () => {
    const day = Math.floor(NOW / DAY_MS) - 2;
    const date = new Date(day * DAY_MS).toISOString().slice(0, 10);

    it('getOrders pages a day of orders (MaxResultsPerPage), amounts as decimal strings; items of each order', async () => {
      const expected = simulator.selling.orders.ordersOn(day, US);
      expect(expected.length).to.be.greaterThan(1);
      const { pages, rows } = await all(
        clients.selling.orders.getOrders({
          marketplaceIds: [US],
          createdAfter: `${date}T00:00:00Z`,
          createdBefore: `${date}T23:59:59Z`,
          maxResultsPerPage: 1,
        }),
      );
      expect(pages.length).to.equal(expected.length);
      expect(rows.map((o) => o.AmazonOrderId)).to.deep.equal(expected.map((o) => o.amazonOrderId));
      for (const [i, order] of rows.entries()) {
        const sim = expected[i]!;
        const state = orderAsOf(sim, clock.ms);
        expect(order).to.deep.include({
          OrderStatus: state.status,
          MarketplaceId: US,
          IsBusinessOrder: sim.isBusinessOrder,
          PurchaseDate: new Date(sim.purchasedAt).toISOString().replace('.000Z', 'Z'),
        });
        const items = await clients.selling.orders.getOrderItems(order.AmazonOrderId);
        expect(items.map((it) => [it.SellerSKU, it.QuantityOrdered, it.ItemPrice])).to.deep.equal(
          sim.lines.map((l) => [
            l.listing.sku,
            l.quantity,
            { CurrencyCode: 'USD', Amount: (l.itemPrice / 100).toFixed(2) },
          ]),
        );
        if (state.status !== 'Canceled') expect(order.OrderTotal!.Amount).to.match(/^\d+\.\d{2}$/);
      }
      const jp = await all(
        clients.selling.orders.getOrders({
          marketplaceIds: [JP],
          createdAfter: `${date}T00:00:00Z`,
          createdBefore: `${date}T23:59:59Z`,
        }),
      );
      const totals = jp.rows.flatMap((o) => (o.OrderTotal ? [o.OrderTotal] : []));
      expect(totals.length).to.be.greaterThan(0);
      for (const total of totals)
        expect([total.CurrencyCode, /^\d+$/.test(total.Amount)], 'whole yen').to.deep.equal(['JPY', true]);
    });

    it('a pending order has no items yet; orders of the future do not exist; LastUpdatedAfter finds changed orders', async () => {
      const order = simulator.selling.orders.ordersOn(day, US)[0]!;
      clock.ms = order.purchasedAt + 60_000;
      try {
        expect(orderAsOf(order, clock.ms).status).to.equal('Pending');
        expect(await clients.selling.orders.getOrderItems(order.amazonOrderId)).to.deep.equal([]);
        const later = simulator.selling.orders.ordersOn(day, US).at(-1)!;
        expect(await rejectionOf(clients.selling.orders.getOrderItems(later.amazonOrderId))).to.have.property(
          'status',
          404,
        );
        const { rows } = await all(
          clients.selling.orders.getOrders({
            marketplaceIds: [US],
            lastUpdatedAfter: new Date(clock.ms - 3_600_000).toISOString(),
          }),
        );
        expect(rows.map((o) => o.AmazonOrderId)).to.include(order.amazonOrderId);
        expect(rows.every((o) => Date.parse(o.LastUpdateDate) >= clock.ms - 3_600_000)).to.equal(true);
      } finally {
        clock.ms = NOW;
      }
    });
  });

  describe('Catalog Items 2022-04-01 and FBA inventory', () => {
    it('searchCatalogItems by ASIN returns the products the marketplace knows, with EAN identifiers', async () => {
      const asins = [...new Set(listings(US).map((l) => l.asin))];
      const { rows } = await all(
        clients.selling.catalog.searchCatalogItems({
          marketplaceId: US,
          identifiers: [...asins, 'B000000000'],
          identifiersType: 'ASIN',
          includedData: ['summaries', 'identifiers'],
        }),
      );
      expect(rows.map((i) => i.asin)).to.deep.equal(asins);
      const product = simulator.catalog.productByAsin(asins[0]!)!;
      expect(rows[0]!.identifiers).to.deep.equal([
        { marketplaceId: US, identifiers: [{ identifierType: 'EAN', identifier: product.ean }] },
      ]);
      expect(rows[0]!.summaries![0]).to.include({ itemName: product.title, brand: product.brand });
      const notHere = listings(JP).find((l) => !simulator.catalog.productMarketplaces(l.asin).includes(US))!;
      expect(await rejectionOf(clients.selling.catalog.getCatalogItem(notHere.asin, US))).to.have.property(
        'status',
        404,
      );
    });

    it('getInventorySummaries pages every FBA listing of the marketplace, with details', async () => {
      const { rows } = await all(clients.selling.inventory.inventorySummaries(US));
      expect(rows.map((s) => s.sellerSku)).to.deep.equal(
        listings(US)
          .filter((l) => l.fulfillmentChannel === 'FBA')
          .map((l) => l.sku),
      );
      for (const s of rows) expect(s.inventoryDetails!.fulfillableQuantity).to.be.a('number');
    });
  });
});

const MARKET = (simulator: Simulator) => simulator.seller.participations.map((p) => p.marketplace.id);
