import ivm from 'isolated-vm';
import { RUN_LIMITS } from '../../src/runtime/contracts/limits.js';
import { eventFixture } from '../../src/runtime/contracts/index.js';
import type { RunInput, Sandbox } from '../../src/runtime/sandbox/index.js';
import { mib, peakRssOf } from '../support.js';

// The handlers the automation benchmark runs: a trivial one, and a repricing one as a seller
// would write it, on an ANY_OFFER_CHANGED event and a Listing context the size the demo data
// gives (a listing with its campaigns, ad groups, targets and the account's profiles).

export const TRIVIAL = 'function handle(event, context) {}';

export const REPRICING = `
async function handle(event, context) {
  const listing = context.listing;
  const n = event.Payload.AnyOfferChangedNotification;
  const competitors = n.Offers.filter((o) => o.SellerId !== n.SellerId && o.IsFulfilledByAmazon === false || o.IsBuyBoxWinner);
  const landed = (o) => o.ListingPrice.Amount + (o.Shipping ? o.Shipping.Amount : 0);
  const lowest = competitors.length ? Math.min(...competitors.map(landed)) : n.Summary.LowestPrices[0].LandedPrice.Amount;
  const last = context.store.get('lastPrice');
  let target = Math.round((lowest - 0.01) * 100) / 100;
  if (listing.floor !== null && target < listing.floor) target = listing.floor;
  if (listing.ceiling !== null && target > listing.ceiling) target = listing.ceiling;
  console.log('lowest', lowest, 'ours', listing.price, 'target', target, 'last', last);
  if (target === listing.price || listing.blocked || listing.buyable === false) return;
  context.mutations.push({
    target: listing,
    action: 'update',
    payload: {
      productType: 'PRODUCT',
      patches: [{
        op: 'merge',
        path: '/attributes/purchasable_offer',
        value: [{ marketplace_id: listing.marketplace.id, currency: listing.currencyCode, audience: 'ALL',
          our_price: [{ schedule: [{ value_with_tax: target }] }] }],
      }],
    },
  });
  for (const c of listing.campaigns) if (c.state === 'ENABLED' && target < listing.floor * 1.05) context.mutations.push({ target: c, action: 'update', payload: { state: 'PAUSED' } });
  context.store.set('lastPrice', target);
}`;

const range = <T>(n: number, f: (i: number) => T): T[] => Array.from({ length: n }, (_, i) => f(i));

function listingContext(): Record<string, unknown> {
  const campaigns = range(3, (c) => ({
    type: 'Campaign',
    id: `cmp_${c}`,
    name: `SP auto ${c}`,
    state: 'ENABLED',
    dailyBudget: 25 + c,
    automation: true,
    adGroups: range(2, (g) => ({
      type: 'AdGroup',
      id: `adg_${c}_${g}`,
      name: `group ${g}`,
      state: 'ENABLED',
      defaultBid: 0.75,
    })),
  }));
  return {
    listing: {
      type: 'Listing',
      id: 'lst_demo_1',
      asin: 'B0EXAMPLE01',
      sku: 'DEMO-SKU-1',
      title: 'Stainless steel water bottle, 750 ml, vacuum insulated',
      currencyCode: 'USD',
      marketplace: { id: 'ATVPDKIKX0DER', timeZone: 'America/Los_Angeles' },
      price: 47.5,
      quantity: null,
      floor: 39.99,
      ceiling: 59.99,
      b2bPrice: null,
      b2bSales30d: 0,
      condition: 'new',
      conditionType: 'new_new',
      fulfillmentChannel: 'Amazon',
      handlingTime: null,
      restockDate: null,
      shippingGroup: null,
      shippingCost: 0,
      statuses: ['BUYABLE', 'DISCOVERABLE'],
      buyable: true,
      discoverable: true,
      deleted: false,
      blocked: false,
      productType: 'BOTTLE',
      data: { fba: { inventory: { fulfillableQuantity: 140, inboundShippedQuantity: 24 } } },
      fbaReport: { afnFulfillableQuantity: '140', afnReservedQuantity: '6' },
      fcReport: null,
      deals: [],
      campaigns,
      adGroups: campaigns.flatMap((c) => c.adGroups),
      ads: range(6, (i) => ({ type: 'Ad', id: `ad_${i}`, state: 'ENABLED', sku: 'DEMO-SKU-1' })),
      targets: range(12, (i) => ({
        type: 'Target',
        id: `tgt_${i}`,
        state: 'ENABLED',
        bid: 0.5 + i / 100,
        keyword: `water bottle ${i}`,
        matchType: 'PHRASE',
      })),
      negativeTargets: [],
      keywords: [],
      mutations: [],
    },
    advertisingProfiles: [{ type: 'AdvertisingProfile', id: 'prf_1', countryCode: 'US', currencyCode: 'USD' }],
  };
}

export function input(code: string): RunInput {
  return {
    code,
    event: eventFixture('ANY_OFFER_CHANGED'),
    context: listingContext(),
    webhooks: ['alerts'],
    store: { lastPrice: 47.5 },
  };
}

/** The sandbox runner processes' peak resident memory, each (they are processes of their own). */
export function printRunnersPeakRss(sandbox: Sandbox): void {
  const peaks = sandbox.runners().map((r) => mib(peakRssOf(r.pid)));
  console.log(`  peak RSS of the sandbox runner processes: ${peaks.join(', ')}`);
}

/** The bare isolated-vm cycle: a new isolate and context, one line, dispose (the floor of a run). */
export async function bareCycle(): Promise<void> {
  const isolate = new ivm.Isolate({ memoryLimit: RUN_LIMITS.memoryMb });
  const context = await isolate.createContext();
  await context.eval('1 + 1');
  isolate.dispose();
}
