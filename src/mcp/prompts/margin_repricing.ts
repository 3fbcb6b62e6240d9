import { listingPriceUpdate } from '../../runtime/contracts/templates.js';
import { accountArg, codeBlock, definePrompt, draftSteps } from './prompt.js';

// Spec 1.8: prices that follow the competition without giving the margin away. Audit prices,
// floors and ceilings, sales and fees (v_seller_economics); the draft runs on ANY_OFFER_CHANGED
// and moves the price to just under the lowest competing landed price, never below the floor
// (or, with no floor, more than MAX_DROP below the current price) nor above the ceiling.

export const MARGIN_STREAM_TYPE = 'ANY_OFFER_CHANGED';

export const marginDraft = (undercut: number, maxDropPercent: number): string[] => [
  '// Margin-aware repricing: when the offers on a listing change, price just under the lowest',
  '// competing new offer (landed: price + shipping), never below the listing floor (without a',
  '// floor, never more than MAX_DROP below the current price) and never above its ceiling.',
  `const UNDERCUT = ${undercut}; // major units`,
  `const MAX_DROP = ${maxDropPercent / 100};`,
  '',
  'function handle(event, context) {',
  '  const listing = context.listing;',
  '  if (!listing || listing.price === null || listing.blocked) return;',
  '  const n = event.Payload.AnyOfferChangedNotification;',
  '  const landed = (o) => o.ListingPrice.Amount + (o.Shipping ? o.Shipping.Amount : 0);',
  "  const others = n.Offers.filter((o) => o.SellerId !== n.SellerId && o.SubCondition === 'new');",
  '  if (others.length === 0) return;',
  '  const lowest = Math.min(...others.map(landed));',
  "  const digits = listing.currencyCode === 'JPY' ? 0 : 2;",
  '  const floor = listing.floor !== null ? listing.floor : listing.price * (1 - MAX_DROP);',
  '  let price = Math.max(lowest - UNDERCUT, floor);',
  '  if (listing.ceiling !== null) price = Math.min(price, listing.ceiling);',
  '  price = Number(price.toFixed(digits));',
  '  if (price === listing.price) return;',
  "  console.log(listing.sku + ': ' + listing.price + ' -> ' + price + ' (lowest competitor ' + lowest + ')');",
  ...listingPriceUpdate('listing', 'price', '  '),
  '}',
];

export const marginRepricing = definePrompt({
  name: 'margin_repricing',
  title: 'Margin repricing',
  description:
    'Reviews prices, floors, ceilings, sales and fees per listing, then offers a draft automation that reprices against the lowest competing offer without going below the floor, for the user to activate.',
  numbers: [
    {
      name: 'undercut',
      description: 'how far under the lowest competing landed price to go, in major units',
      default: 0.01,
      min: 0,
      max: 1000,
    },
    {
      name: 'max_drop',
      description: 'without a floor, the most the price may fall below the current price in one change, in percent',
      default: 10,
      min: 0,
      max: 90,
    },
  ],
  text: ({ account, values }) => {
    const acc = accountArg(account);
    return `Review my listing prices for margin${account ? ` on account ${account}` : ''} and set up repricing that follows the competition without selling below my floors. Read first, change nothing until I agree.

Audit with these read tools, in order:
1. connection_status: the account, its marketplaces and currencies.
2. list_listings {limit: 100${acc}}: price, floor and ceiling (minor units of the row currency; a floor or ceiling never carries over to another marketplace). List the listings with no floor.
3. list_sales_by_listing {order_by: "units", limit: 100${acc}}: what sells, per SKU and marketplace.
4. query_data (view v_seller_economics, money in minor units, never summed across currencies) for fees and net proceeds per unit:
   select sku, marketplace_id, currency, sum(units_ordered) as units, sum(ordered_product_sales) as sales, sum(total_fees) as fees, sum(net_proceeds) as net_proceeds from v_seller_economics where date >= current_date - 30 group by sku, marketplace_id, currency order by sales desc limit 100
5. list_events {stream_type: "${MARGIN_STREAM_TYPE}", limit: 20${acc}}: recent offer changes, and get_event for one of them to see the competing offers.

Report per listing the price, floor, fees per unit and net proceeds per unit, and flag listings whose floor (or price, without a floor) leaves little or no margin. Propose floors where they are missing. Then offer this draft automation, which runs on ${MARGIN_STREAM_TYPE}:

${codeBlock(marginDraft(values.undercut, values.max_drop))}

${draftSteps(MARGIN_STREAM_TYPE, ', listing_id: a listing of the audit; event_id: a recorded offer change from list_events, or sample_event: the describe_stream_type fixture with a competing offer below the price')}

The draft never prices below a floor: set the missing floors you proposed, with my consent, with update_listing before activating.`;
  },
});
