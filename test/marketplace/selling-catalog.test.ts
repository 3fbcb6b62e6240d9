import { expect } from 'chai';
import { BENCH_SCALE, catalogFor, DEMO_SCALE, MARKETPLACES } from '../../src/marketplace/simulator/index.js';
import { createOrdersBook, DAY_MS } from '../../src/marketplace/simulator/selling/orders-book.js';

// The fictional seller's catalog and orders, generated from (seed, index) and (seed, day):
// the same seed gives the same data, any item or day is computed without the rest.

const JP = 'A1VC38T7YXB528';
const DAY = Math.floor(Date.parse('2026-03-01T00:00:00Z') / DAY_MS);

describe('simulator catalog and orders: deterministic, lazy, scalable', () => {
  it('the same seed gives the same catalog; another seed another one', () => {
    const a = catalogFor(42);
    const b = catalogFor(42);
    const c = catalogFor(43);
    expect(a.listingCount).to.equal(DEMO_SCALE.listings);
    const all = (x: typeof a) => Array.from({ length: x.listingCount }, (_, i) => x.listingAt(i));
    expect(all(a)).to.deep.equal(all(b));
    expect(all(a).map((l) => l.sku)).to.not.deep.equal(all(c).map((l) => l.sku));
  });

  it('every listing is found again by its key and its ASIN; SKUs span marketplaces and share ASINs', () => {
    const catalog = catalogFor(5);
    const keys = new Set<string>();
    const marketplacesOfSku = new Map<string, Set<string>>();
    const skusOfAsin = new Map<string, Set<string>>();
    for (let i = 0; i < catalog.listingCount; i++) {
      const l = catalog.listingAt(i);
      keys.add(`${l.marketplaceId}/${l.sku}`);
      expect(catalog.findListing(l.sku, l.marketplaceId)).to.deep.equal(l);
      expect(catalog.productByAsin(l.asin)!.title).to.equal(l.title);
      expect(catalog.productMarketplaces(l.asin)).to.include(l.marketplaceId);
      marketplacesOfSku.set(l.sku, (marketplacesOfSku.get(l.sku) ?? new Set()).add(l.marketplaceId));
      skusOfAsin.set(l.asin, (skusOfAsin.get(l.asin) ?? new Set()).add(l.sku));
    }
    expect(keys.size, 'one listing per SKU per marketplace').to.equal(catalog.listingCount);
    expect([...marketplacesOfSku.values()].some((m) => m.size > 1)).to.equal(true);
    expect([...skusOfAsin.values()].some((s) => s.size > 1)).to.equal(true);
    expect(catalog.findListing('ZZ-99999', 'ATVPDKIKX0DER')).to.equal(undefined);
    expect(catalog.productByAsin('B000000000')).to.equal(undefined);
  });

  it('the demo catalog has every condition family, status, channel and B2B offers; JPY prices are whole yen', () => {
    const catalog = catalogFor(42);
    const listings = Array.from({ length: catalog.listingCount }, (_, i) => catalog.listingAt(i));
    expect(new Set(listings.map((l) => l.conditionFamily))).to.deep.equal(
      new Set(['new', 'used', 'collectible', 'refurbished', 'club']),
    );
    expect(new Set(listings.map((l) => l.status))).to.deep.equal(new Set(['BUYABLE', 'DISCOVERABLE', 'DELETED', null]));
    expect(new Set(listings.map((l) => l.fulfillmentChannel))).to.deep.equal(new Set(['FBA', 'MFN']));
    expect(listings.some((l) => l.b2bPrice !== null)).to.equal(true);
    for (const l of listings) {
      expect(l.currency).to.equal(MARKETPLACES.find((m) => m.id === l.marketplaceId)!.currencyCode);
      if (l.fulfillmentChannel === 'FBA')
        expect([l.handlingTime, l.shippingGroup, l.restockDate]).to.deep.equal([null, null, null]);
    }
    const jp = listings.filter((l) => l.marketplaceId === JP);
    expect(jp.length).to.be.greaterThan(0);
    expect(jp.every((l) => l.currency === 'JPY' && l.price >= 100 && l.price % 10 === 0)).to.equal(true);
  });

  it('the bench catalog has 100,000 listings, any of which is computed alone', () => {
    const catalog = catalogFor(42, BENCH_SCALE);
    expect(catalog.listingCount).to.equal(100_000);
    expect(MARKETPLACES.reduce((n, m) => n + catalog.marketplaceListingCount(m.id), 0)).to.equal(100_000);
    const last = catalog.listingAt(99_999);
    expect(catalog.findListing(last.sku, last.marketplaceId)!.index).to.equal(99_999);
    expect(() => catalog.listingAt(100_000)).to.throw(RangeError);
    const us = catalog.marketplaceListingAt('ATVPDKIKX0DER', catalog.marketplaceListingCount('ATVPDKIKX0DER') - 1);
    expect(us.marketplaceId).to.equal('ATVPDKIKX0DER');
  });

  it('orders are generated per day: the same day is the same order book, and an order id leads back to its order', () => {
    const catalog = catalogFor(42);
    const a = createOrdersBook(catalog);
    const b = createOrdersBook(catalog);
    const orders = MARKETPLACES.flatMap((m) => a.ordersOn(DAY, m.id));
    expect(orders.length).to.be.greaterThan(0);
    expect(MARKETPLACES.flatMap((m) => b.ordersOn(DAY, m.id))).to.deep.equal(orders);
    expect(new Set(orders.map((o) => o.amazonOrderId)).size).to.equal(orders.length);
    for (const order of orders) {
      expect(order.amazonOrderId).to.match(/^\d{3}-\d{7}-\d{7}$/);
      expect(b.order(order.amazonOrderId)).to.deep.equal(order);
      expect(Math.floor(order.purchasedAt / DAY_MS)).to.equal(DAY);
      for (const line of order.lines)
        expect(line.itemPrice).to.equal(
          line.quantity *
            (order.isBusinessOrder && line.listing.b2bPrice !== null ? line.listing.b2bPrice : line.listing.price),
        );
    }
    expect(a.order('111-0000000-0000000')).to.equal(undefined);
  });

  it('order lines per day follow the scale: about a year of demo lines, and 1,000,000 a year at bench scale', () => {
    const linesOver = (scale: typeof DEMO_SCALE, days: number) => {
      const book = createOrdersBook(catalogFor(42, scale));
      let lines = 0;
      for (let day = DAY - days; day < DAY; day++)
        for (const m of MARKETPLACES) for (const o of book.ordersOn(day, m.id)) lines += o.lines.length;
      return lines;
    };
    const bench = linesOver(BENCH_SCALE, 28);
    expect(bench / 28).to.be.within((1_000_000 / 365) * 0.9, (1_000_000 / 365) * 1.15);
    const demo = linesOver(DEMO_SCALE, 365);
    expect(demo).to.be.within(DEMO_SCALE.orderLines * 0.85, DEMO_SCALE.orderLines * 1.2);
  });
});
