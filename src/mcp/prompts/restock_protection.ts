import { listingPriceUpdate } from '../../runtime/contracts/templates.js';
import { accountArg, codeBlock, definePrompt, draftSteps } from './prompt.js';

// Spec 1.8: protecting items about to run out. Audit stock and how fast it sells, and the ads
// that keep spending on it; the draft runs on FBA_INVENTORY_AVAILABILITY_CHANGES and, when
// fulfillable units fall under MIN_UNITS, raises the price by RAISE (never above the ceiling)
// and pauses the listing's enabled ads.

export const RESTOCK_STREAM_TYPE = 'FBA_INVENTORY_AVAILABILITY_CHANGES';

export const restockDraft = (minUnits: number, raisePercent: number): string[] => [
  '// Restock protection: when the fulfillable stock of a listing falls under MIN_UNITS, slow',
  '// sales down until it is restocked: raise the price by RAISE (never above the ceiling) and',
  '// pause the enabled ads that advertise it.',
  `const MIN_UNITS = ${minUnits};`,
  `const RAISE = ${raisePercent / 100};`,
  '',
  'function handle(event, context) {',
  '  const listing = context.listing;',
  '  if (!listing || listing.blocked) return;',
  '  const here = event.Payload.FulfillmentInventoryByMarketplace.find(',
  '    (m) => m.MarketplaceId === listing.marketplace.id,',
  '  );',
  '  if (!here) return;',
  '  const units = here.FulfillmentInventory.Fulfillable;',
  '  if (units >= MIN_UNITS) return;',
  "  console.log(listing.sku + ': ' + units + ' units left (under ' + MIN_UNITS + ')');",
  '  if (listing.price !== null) {',
  "    const digits = listing.currencyCode === 'JPY' ? 0 : 2;",
  '    let price = listing.price * (1 + RAISE);',
  '    if (listing.ceiling !== null) price = Math.min(price, listing.ceiling);',
  '    price = Number(price.toFixed(digits));',
  '    if (price > listing.price)',
  ...listingPriceUpdate('listing', 'price', '      '),
  '  }',
  '  for (const ad of listing.ads) {',
  "    if (ad.state === 'ENABLED') context.mutations.push({ target: ad, action: 'update', payload: { state: 'PAUSED' } });",
  '  }',
  '}',
];

export const restockProtection = definePrompt({
  name: 'restock_protection',
  title: 'Restock protection',
  description:
    'Finds listings whose stock will run out before it is restocked and the ads still spending on them, then offers a draft automation that raises the price and pauses the ads when stock runs low, for the user to activate.',
  numbers: [
    {
      name: 'min_units',
      description: 'fulfillable units under which a listing is protected',
      default: 20,
      min: 1,
      max: 1_000_000,
    },
    {
      name: 'raise',
      description: 'how much to raise the price of a low-stock listing, in percent (never above its ceiling)',
      default: 5,
      min: 0,
      max: 100,
    },
  ],
  text: ({ account, values }) => {
    const acc = accountArg(account);
    return `Protect my listings that are about to run out of stock${account ? ` on account ${account}` : ''}: under ${values.min_units} fulfillable units, or fewer days of cover than a restock takes. Read first, change nothing until I agree.

Audit with these read tools, in order:
1. connection_status: the account and its marketplaces.
2. list_listings {limit: 100${acc}}: stock under data.fba.inventory (fulfillable, inbound), price and ceiling per listing and marketplace.
3. query_data (view v_sales_lines) for the units sold per day over 30 days:
   select sku, marketplace_id, sum(quantity) as units_30d, round(sum(quantity) / 30.0, 2) as units_per_day from v_sales_lines where sold_at >= now() - interval '30 days' group by sku, marketplace_id order by units_30d desc limit 100
   Days of cover = fulfillable units / units per day.
4. list_events {stream_type: "${RESTOCK_STREAM_TYPE}", limit: 20${acc}}: recent stock changes.
5. list_ads_entities {target_type: "Ad"${acc}} and list_campaigns {order_by: "cost"${acc}}: the ads still spending on low-stock items.

Report the listings at risk (units, units per day, days of cover, the ads on them). Then offer this draft automation, which runs on ${RESTOCK_STREAM_TYPE}:

${codeBlock(restockDraft(values.min_units, values.raise))}

${draftSteps(RESTOCK_STREAM_TYPE, ', listing_id: a low-stock listing of the audit; sample_event: the describe_stream_type fixture with its Fulfillable set under MIN_UNITS')}`;
  },
});
