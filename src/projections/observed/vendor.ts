import { z } from 'zod';
import { minorUnits, wireAmount } from './economics-support.js';
import { pagedProjection } from './page-table.js';
import { VENDOR_DATASETS } from '../../domain/observation/datasets.js';

// Vendor metrics (datasets vendor_sales, vendor_traffic, vendor_inventory): one row per report
// row, keyed by marketplace, view and day from the scope (`<marketplace>/<view>/<date>`); a
// row without an asin is the catalog-wide aggregate. Each dataset fills its own columns; the
// view merges the three per (marketplace, view, day, asin).

const VENDOR_TABLE = 'vendor_metrics';

/** Metric columns the three reports fill, with their SQL kind. */
export const VENDOR_REPORTED = {
  ordered_units: 'count',
  ordered_revenue: 'money',
  unfilled_ordered_units: 'count',
  shipped_units: 'count',
  shipped_revenue: 'money',
  average_selling_price: 'money',
  glance_views: 'count',
  shipped_cogs: 'money',
  sell_through_rate: 'rate',
  sellable_on_hand_units: 'count',
  unsellable_on_hand_units: 'count',
  sourceable_roos: 'rate',
  open_purchase_order_units: 'count',
  net_received_units: 'count',
  received_fill_rate: 'rate',
  vendor_confirmation_rate: 'rate',
  overall_vendor_lead_time: 'days',
} as const;

const n = z.number().optional();
const amount = wireAmount.optional();
const reportRow = z.object({
  startDate: z.string(),
  asin: z.string().optional(),
  orderedUnits: n,
  orderedRevenue: amount,
  shippedUnits: n,
  shippedRevenue: amount,
  shippedCogs: amount,
  glanceViews: n,
  unfilledCustomerOrderedUnits: n,
  sellThroughRate: n,
  sellableOnHandInventoryUnits: n,
  unsellableOnHandInventoryUnits: n,
  procurableProductOutOfStockRate: n,
  openPurchaseOrderUnits: n,
  netReceivedInventoryUnits: n,
  receiveFillRate: n,
  vendorConfirmationRate: n,
  averageVendorLeadTimeDays: n,
});

function vendorRow(scope: string, raw: unknown): Record<string, unknown> | null {
  const parsed = reportRow.safeParse(raw);
  if (!parsed.success) return null;
  const r = parsed.data;
  const [marketplace_id, view] = scope.split('/');
  const currency = [r.orderedRevenue, r.shippedRevenue, r.shippedCogs].find(Boolean)?.currencyCode ?? null;
  const money = (a: z.infer<typeof wireAmount> | undefined) => (a ? minorUnits(a.amount, a.currencyCode) : null);
  const ordered_revenue = money(r.orderedRevenue);
  return {
    marketplace_id,
    view,
    date: r.startDate,
    asin: r.asin ?? null,
    currency,
    ordered_units: r.orderedUnits ?? null,
    ordered_revenue,
    unfilled_ordered_units: r.unfilledCustomerOrderedUnits ?? null,
    shipped_units: r.shippedUnits ?? null,
    shipped_revenue: money(r.shippedRevenue),
    // not in the reports: ordered revenue per ordered unit
    average_selling_price:
      ordered_revenue !== null && r.orderedUnits ? Math.round(ordered_revenue / r.orderedUnits) : null,
    glance_views: r.glanceViews ?? null,
    shipped_cogs: money(r.shippedCogs),
    sell_through_rate: r.sellThroughRate ?? null,
    sellable_on_hand_units: r.sellableOnHandInventoryUnits ?? null,
    unsellable_on_hand_units: r.unsellableOnHandInventoryUnits ?? null,
    sourceable_roos: r.procurableProductOutOfStockRate ?? null,
    open_purchase_order_units: r.openPurchaseOrderUnits ?? null,
    net_received_units: r.netReceivedInventoryUnits ?? null,
    received_fill_rate: r.receiveFillRate ?? null,
    vendor_confirmation_rate: r.vendorConfirmationRate ?? null,
    overall_vendor_lead_time: r.averageVendorLeadTimeDays ?? null,
    raw: JSON.stringify(raw),
  };
}

export const vendorProjection = pagedProjection({
  name: 'vendor_metrics',
  version: 1,
  datasets: VENDOR_DATASETS,
  table: VENDOR_TABLE,
  withDataset: true,
  columns: {
    marketplace_id: 'text',
    view: 'text',
    date: 'date',
    asin: 'text null',
    currency: 'text null',
    ...Object.fromEntries(
      Object.entries(VENDOR_REPORTED).map(([name, kind]) => [
        name,
        kind === 'count' || kind === 'money' ? 'bigint null' : 'numeric null',
      ]),
    ),
    raw: 'jsonb',
  },
  indexes: [['account_id', 'marketplace_id', 'date']],
  rows: (page) => page.rows.map((r) => vendorRow(page.scope, r)),
});
