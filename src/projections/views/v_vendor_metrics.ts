import { completeReads } from '../observed/economics-support.js';
import { VENDOR_REPORTED } from '../observed/vendor.js';
import type { ViewColumn, ViewDefinition } from './definition.js';
import { accountId, MARKETPLACE_ID, MARKETPLACES_JOIN, MONEY_WARNING, column } from './shared.js';

// The spec's columns in its order. Those no vendor report of the Reports API carries
// (net GMS, lost featured offer, net PPM, contra COGS, sales discount, in-transit and
// confirmed units) are kept, always null, so the shape matches the spec.
const METRICS: ReadonlyArray<
  readonly [
    name: string,
    kind: 'count' | 'money' | 'rate' | 'days',
    group: 'orders' | 'traffic' | 'shipments' | 'inventory',
    description: string,
  ]
> = [
  ['ordered_units', 'count', 'orders', 'units customers ordered (GET_VENDOR_SALES_REPORT orderedUnits)'],
  ['ordered_revenue', 'money', 'orders', 'ordered product sales (orderedRevenue)'],
  [
    'unfilled_ordered_units',
    'count',
    'orders',
    'ordered units not yet shipped (inventory report unfilledCustomerOrderedUnits)',
  ],
  ['net_ordered_gms', 'money', 'orders', 'not in the Reports API vendor reports: always null'],
  ['net_shipment_gms', 'money', 'shipments', 'not in the Reports API vendor reports: always null'],
  ['shipped_units', 'count', 'shipments', 'units shipped to customers (shippedUnits)'],
  ['shipped_revenue', 'money', 'shipments', 'revenue of units shipped (shippedRevenue)'],
  [
    'average_selling_price',
    'money',
    'orders',
    'ordered_revenue / ordered_units, rounded (derived; null without orders)',
  ],
  ['glance_views', 'count', 'traffic', 'detail page views (GET_VENDOR_TRAFFIC_REPORT glanceViews)'],
  ['lost_featured_offer', 'rate', 'traffic', 'not in the Reports API vendor reports: always null'],
  ['net_ppm', 'rate', 'shipments', 'not in the sales, traffic or inventory reports: always null'],
  ['shipped_cogs', 'money', 'shipments', 'cost of goods shipped (shippedCogs)'],
  ['contra_cogs', 'money', 'shipments', 'not in the Reports API vendor reports: always null'],
  ['sales_discount', 'money', 'shipments', 'not in the Reports API vendor reports: always null'],
  [
    'sell_through_rate',
    'rate',
    'inventory',
    'units shipped / (units on hand at the start + units received) (sellThroughRate)',
  ],
  ['sellable_on_hand_units', 'count', 'inventory', 'sellable units on hand at the end of the day (snapshot)'],
  ['unsellable_on_hand_units', 'count', 'inventory', 'unsellable units on hand at the end of the day (snapshot)'],
  ['sellable_in_transit_units', 'count', 'inventory', 'not in the Reports API vendor reports: always null'],
  [
    'sourceable_roos',
    'rate',
    'inventory',
    'out-of-stock rate of procurable products (procurableProductOutOfStockRate)',
  ],
  ['open_purchase_order_units', 'count', 'inventory', 'units on open purchase orders (snapshot)'],
  ['confirmed_units', 'count', 'inventory', 'not in the Reports API vendor reports: always null'],
  ['net_received_units', 'count', 'inventory', 'units received from the vendor, net of returns to it'],
  ['received_fill_rate', 'rate', 'inventory', 'units received / units confirmed (receiveFillRate)'],
  ['vendor_confirmation_rate', 'rate', 'inventory', 'units confirmed / units requested (vendorConfirmationRate)'],
  [
    'overall_vendor_lead_time',
    'days',
    'inventory',
    'average days from purchase order to receipt (averageVendorLeadTimeDays)',
  ],
];

const UNIT = { count: 'count', money: 'minor units of currency', rate: 'ratio 0-1', days: 'days' } as const;

const columns: ViewColumn[] = [
  accountId('vendor'),
  MARKETPLACE_ID,
  column('view', 'text', false, 'manufacturing or sourcing (distributor view); they overlap: always filter on it'),
  column('date', 'date', false, 'the day described'),
  column('asin', 'text', true, 'the ASIN; null on the row of catalog-wide totals'),
  column('currency', 'text', true, 'ISO 4217 code of the money columns'),
  ...METRICS.map(([name, kind, group, description]) => ({
    name,
    type: kind === 'count' || kind === 'money' ? 'bigint' : 'numeric',
    unit: UNIT[kind],
    nullable: true,
    description: group === 'orders' || group === 'traffic' ? `${description}; null in the sourcing view` : description,
  })),
];

const reported = new Set(Object.keys(VENDOR_REPORTED));
const select = METRICS.map(([name, kind, group]) => {
  if (!reported.has(name)) return `null::${kind === 'count' || kind === 'money' ? 'bigint' : 'numeric'} as ${name}`;
  return group === 'orders' || group === 'traffic'
    ? `case when v.view = 'sourcing' then null else max(v.${name}) end as ${name}`
    : `max(v.${name}) as ${name}`;
});

export const vVendorMetrics: ViewDefinition = {
  name: 'v_vendor_metrics',
  audience: 'vendor',
  grain: 'one row per view per marketplace per day per ASIN, plus a row with null asin carrying catalog-wide totals',
  columns,
  freshness:
    'From the vendor sales, traffic and inventory reports at reportPeriod DAY, read twice a day; a day lands two days late, so the latest two days are empty. The trailing week is re-read.',
  joins: [{ view: 'v_catalog_items', on: 'marketplace_id, asin', fanOut: null }, MARKETPLACES_JOIN],
  warnings: [
    'The manufacturing and sourcing views overlap: always filter on view.',
    'Filter asin IS NOT NULL for per-ASIN rows; the null-asin row already holds the catalog-wide totals.',
    'Inventory and sourcing columns are end-of-day snapshots: never sum them across dates.',
    'Orders and traffic columns are null in the sourcing view.',
    MONEY_WARNING,
  ],
  dateColumn: 'date',
  sql: `select v.account_id, v.marketplace_id, v.view, v.date, v.asin, max(v.currency) as currency,
  ${select.join(',\n  ')}
from rm.vendor_metrics v
${completeReads('v', null)}
group by v.account_id, v.marketplace_id, v.view, v.date, v.asin`,
};
