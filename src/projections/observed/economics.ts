import { z } from 'zod';
import { minorUnits, wireAmount } from './economics-support.js';
import { pagedProjection } from './page-table.js';
import { columnsOf } from '../tables.js';
import { ECONOMICS_DATASET } from '../../domain/observation/datasets.js';

// Seller economics per SKU per day (dataset `seller_economics`, Data Kiosk economics records).
// Fees are stored signed, charges negative. A fee type maps to one of the four named fees;
// a named fee with no charge that day stays null, and total_fees sums the named ones, so
// net_proceeds = net_product_sales + total_fees holds on every row by construction.

const ECONOMICS_TABLE = 'seller_economics';

const FEE_COLUMNS: ReadonlyArray<readonly [column: 'referral_fee' | 'fulfillment_fee' | 'storage_fee', test: RegExp]> =
  [
    ['referral_fee', /^ReferralFee$/i],
    ['fulfillment_fee', /Fulfil+ment/i],
    ['storage_fee', /Storage/i],
  ];

const record = z.object({
  startDate: z.string().regex(/^\d{4}-\d{2}-\d{2}$/),
  marketplaceId: z.string(),
  childAsin: z.string(),
  msku: z.string(),
  sales: z.object({
    orderedProductSales: wireAmount,
    netProductSales: wireAmount,
    unitsOrdered: z.number().int(),
    unitsRefunded: z.number().int(),
    netUnitsSold: z.number().int(),
  }),
  fees: z
    .array(
      z.object({
        feeTypeName: z.string(),
        charges: z.array(z.object({ aggregatedDetail: z.object({ totalAmount: wireAmount }) })),
      }),
    )
    .default([]),
});

/** One record as a row: money in minor units of the record's currency. */
export function economicsRow(raw: unknown): Record<string, unknown> | null {
  const parsed = record.safeParse(raw);
  if (!parsed.success) return null;
  const r = parsed.data;
  const currency = r.sales.orderedProductSales.currencyCode;
  const fees: Record<'referral_fee' | 'fulfillment_fee' | 'storage_fee' | 'other_fees', number | null> = {
    referral_fee: null,
    fulfillment_fee: null,
    storage_fee: null,
    other_fees: null,
  };
  for (const fee of r.fees) {
    const column = FEE_COLUMNS.find(([, test]) => test.test(fee.feeTypeName))?.[0] ?? 'other_fees';
    const charged = fee.charges.reduce(
      (sum, c) => sum + minorUnits(c.aggregatedDetail.totalAmount.amount, currency),
      0,
    );
    fees[column] = (fees[column] ?? 0) - charged;
  }
  const total_fees = Object.values(fees).reduce<number>((sum, v) => sum + (v ?? 0), 0);
  const net_product_sales = minorUnits(r.sales.netProductSales.amount, currency);
  const net_proceeds = net_product_sales + total_fees;
  return {
    marketplace_id: r.marketplaceId,
    date: r.startDate,
    sku: r.msku,
    asin: r.childAsin,
    currency,
    ordered_product_sales: minorUnits(r.sales.orderedProductSales.amount, currency),
    net_product_sales,
    ...fees,
    total_fees,
    net_proceeds,
    net_proceeds_per_unit: r.sales.netUnitsSold > 0 ? Math.round(net_proceeds / r.sales.netUnitsSold) : null,
    net_units_sold: r.sales.netUnitsSold,
    units_ordered: r.sales.unitsOrdered,
    units_refunded: r.sales.unitsRefunded,
  };
}

export const economicsProjection = pagedProjection({
  name: 'seller_economics',
  // 2: no `raw` column: nothing reads it, the log keeps the record, and it was half of what a backfill wrote
  version: 2,
  datasets: [ECONOMICS_DATASET],
  table: ECONOMICS_TABLE,
  columns: {
    marketplace_id: 'text',
    date: 'date',
    sku: 'text',
    asin: 'text',
    currency: 'text',
    ordered_product_sales: 'bigint',
    net_product_sales: 'bigint',
    ...columnsOf(['referral_fee', 'fulfillment_fee', 'storage_fee', 'other_fees'], 'bigint null'),
    total_fees: 'bigint',
    net_proceeds: 'bigint',
    net_proceeds_per_unit: 'bigint null',
    ...columnsOf(['net_units_sold', 'units_ordered', 'units_refunded'], 'integer'),
  },
  indexes: [['account_id', 'marketplace_id', 'date']],
  rows: (page) => page.rows.map(economicsRow),
});
