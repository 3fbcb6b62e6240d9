import { completeReads } from '../observed/economics-support.js';
import { VENDOR_REPORTED } from '../observed/vendor.js';
import { viewCatalogue } from './catalogue.js';
import type { ViewColumn, ViewDefinition } from './definition.js';
import { column } from './shared.js';
import catalogue from './v_vendor_metrics.json' with { type: 'json' };

type Kind = 'count' | 'money' | 'rate' | 'days';
type Group = 'orders' | 'traffic' | 'shipments' | 'inventory';
type Metric = { name: string; kind: Kind; group: Group; description: string };

/** Metrics of `group` the vendor reports fill: their kind is the read model's (VENDOR_REPORTED). */
const reported =
  (group: Group) =>
  (name: keyof typeof VENDOR_REPORTED, description: string): Metric => ({
    name,
    kind: VENDOR_REPORTED[name],
    group,
    description,
  });
const orders = reported('orders');
const traffic = reported('traffic');
const shipments = reported('shipments');
const inventory = reported('inventory');

/** Spec metrics of `kind` no vendor report of the Reports API carries: kept, always null, so the shape matches the spec. */
const absent =
  (kind: Kind) =>
  (name: string, group: Group, description = 'not in the Reports API vendor reports: always null'): Metric => ({
    name,
    kind,
    group,
    description,
  });
const absentCount = absent('count');
const absentMoney = absent('money');
const absentRate = absent('rate');

// The spec's columns in its order.
const METRICS: readonly Metric[] = [
  orders('ordered_units', 'units customers ordered (GET_VENDOR_SALES_REPORT orderedUnits)'),
  orders('ordered_revenue', 'ordered product sales (orderedRevenue)'),
  orders('unfilled_ordered_units', 'ordered units not yet shipped (inventory report unfilledCustomerOrderedUnits)'),
  absentMoney('net_ordered_gms', 'orders'),
  absentMoney('net_shipment_gms', 'shipments'),
  shipments('shipped_units', 'units shipped to customers (shippedUnits)'),
  shipments('shipped_revenue', 'revenue of units shipped (shippedRevenue)'),
  orders('average_selling_price', 'ordered_revenue / ordered_units, rounded (derived; null without orders)'),
  traffic('glance_views', 'detail page views (GET_VENDOR_TRAFFIC_REPORT glanceViews)'),
  absentRate('lost_featured_offer', 'traffic'),
  absentRate('net_ppm', 'shipments', 'not in the sales, traffic or inventory reports: always null'),
  shipments('shipped_cogs', 'cost of goods shipped (shippedCogs)'),
  absentMoney('contra_cogs', 'shipments'),
  absentMoney('sales_discount', 'shipments'),
  inventory('sell_through_rate', 'units shipped / (units on hand at the start + units received) (sellThroughRate)'),
  inventory('sellable_on_hand_units', 'sellable units on hand at the end of the day (snapshot)'),
  inventory('unsellable_on_hand_units', 'unsellable units on hand at the end of the day (snapshot)'),
  absentCount('sellable_in_transit_units', 'inventory'),
  inventory('sourceable_roos', 'out-of-stock rate of procurable products (procurableProductOutOfStockRate)'),
  inventory('open_purchase_order_units', 'units on open purchase orders (snapshot)'),
  absentCount('confirmed_units', 'inventory'),
  inventory('net_received_units', 'units received from the vendor, net of returns to it'),
  inventory('received_fill_rate', 'units received / units confirmed (receiveFillRate)'),
  inventory('vendor_confirmation_rate', 'units confirmed / units requested (vendorConfirmationRate)'),
  inventory('overall_vendor_lead_time', 'average days from purchase order to receipt (averageVendorLeadTimeDays)'),
];

const UNIT = { count: 'count', money: 'minor units of currency', rate: 'ratio 0-1', days: 'days' } as const;
const sqlType = (kind: Kind) => (kind === 'count' || kind === 'money' ? 'bigint' : 'numeric');
/** The sourcing (distributor) view has no orders or traffic. */
const nullWhenSourcing = (group: Group) => group === 'orders' || group === 'traffic';

const described = viewCatalogue(catalogue);

/** The catalogue's columns, then the spec's metrics. */
const columns: ViewColumn[] = [
  ...described.columns,
  ...METRICS.map(({ name, kind, group, description }) =>
    column(
      name,
      sqlType(kind),
      true,
      nullWhenSourcing(group) ? `${description}; null in the sourcing view` : description,
      UNIT[kind],
    ),
  ),
];

const select = METRICS.map(({ name, kind, group }) => {
  if (!(name in VENDOR_REPORTED)) return `null::${sqlType(kind)} as ${name}`;
  return nullWhenSourcing(group)
    ? `case when v.view = 'sourcing' then null else max(v.${name}) end as ${name}`
    : `max(v.${name}) as ${name}`;
});

export const vVendorMetrics: ViewDefinition = {
  ...described,
  columns,
  sql: `select v.account_id, v.marketplace_id, v.view, v.date, v.asin, max(v.currency) as currency,
  ${select.join(',\n  ')}
from rm.vendor_metrics v
${completeReads('v', null)}
group by v.account_id, v.marketplace_id, v.view, v.date, v.asin`,
};
