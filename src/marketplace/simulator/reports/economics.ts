import { minorDigits, type Catalog, type SimListing } from '../catalog.js';
import { keyedRng } from './keyed.js';
import { share, wireAmount, type WireAmount } from './money.js';

// The seller's economics per SKU per day, as the Data Kiosk dataset
// `analytics_economics_2024_03_15` answers a query aggregated by date: DAY and productId: MSKU.
// A day's figures settle over about a week: refunds arrive up to six days after the sale, so
// the latest seven days restate (more units refunded, lower net sales and referral fees).

export const ECONOMICS_DATASET = 'analytics_economics_2024_03_15';

/** Fee types as the dataset names them. */
export const FEE_TYPES = {
  referral: 'ReferralFee',
  fulfillment: 'FBAPerUnitFulfillmentFee',
  storage: 'FBAStorageFee',
  refundCommission: 'RefundCommission',
} as const;

export interface EconomicsCharge {
  aggregatedDetail: { amount: WireAmount; amountPerUnit?: WireAmount; quantity: number; totalAmount: WireAmount };
  chargeType: 'CHARGE';
}

export interface EconomicsRecord {
  startDate: string;
  endDate: string;
  marketplaceId: string;
  parentAsin: string;
  childAsin: string;
  fnsku?: string;
  msku: string;
  sales: {
    orderedProductSales: WireAmount;
    netProductSales: WireAmount;
    averageSellingPrice: WireAmount;
    unitsOrdered: number;
    unitsRefunded: number;
    netUnitsSold: number;
  };
  /** Charges as positive amounts the seller pays. */
  fees: { feeTypeName: string; charges: EconomicsCharge[] }[];
  netProceeds: { total: WireAmount; perUnit?: WireAmount };
}

/** Chance that a listing sells on a given day, so a year holds about the scale's order lines. */
const activity = (catalog: Catalog) =>
  Math.min(0.9, catalog.scale.orderLines / Math.max(1, catalog.listingCount) / 365);

/**
 * One listing's economics for one day as seen `age` days later (age ≥ 1: a day is reported
 * from the next day on), or null when it sold nothing that day.
 */
export function economicsRecord(
  catalog: Catalog,
  listing: SimListing,
  day: string,
  age: number,
): EconomicsRecord | null {
  const rng = keyedRng(catalog.seed, 'economics', listing.index, day);
  if (rng.next() >= activity(catalog)) return null;
  const unitsOrdered = rng.next() < 0.3 ? rng.int(2, 4) : 1;
  const refundDelays = Array.from({ length: unitsOrdered }, () => (rng.next() < 0.12 ? rng.int(0, 6) : null));
  const storageRoll = rng.next();
  const storagePerDay = rng.int(5, 90);

  const { currency, price } = listing;
  const unitsRefunded = refundDelays.filter((d) => d !== null && d < age).length;
  const netUnitsSold = unitsOrdered - unitsRefunded;
  const fba = listing.fulfillmentChannel === 'FBA';
  const referralPerUnit = share(price, 0.15);
  const fulfillmentPerUnit = share(price, 0.08) + (minorDigits(currency) === 0 ? 300 : 250);
  const commissionPerUnit = Math.max(1, share(referralPerUnit, 0.2));
  // charges in minor units; null: no such fee that day
  const charges: [string, number | null, number][] = [
    [FEE_TYPES.referral, netUnitsSold > 0 ? netUnitsSold * referralPerUnit : null, netUnitsSold],
    [FEE_TYPES.fulfillment, fba ? unitsOrdered * fulfillmentPerUnit : null, unitsOrdered],
    [FEE_TYPES.storage, fba && storageRoll < 0.25 ? storagePerDay : null, 1],
    [FEE_TYPES.refundCommission, unitsRefunded > 0 ? unitsRefunded * commissionPerUnit : null, unitsRefunded],
  ];
  const netSales = netUnitsSold * price;
  const feesTotal = charges.reduce((sum, [, amount]) => sum + (amount ?? 0), 0);
  const net = netSales - feesTotal;
  const amount = (minor: number) => wireAmount(minor, currency);
  return {
    startDate: day,
    endDate: day,
    marketplaceId: listing.marketplaceId,
    parentAsin: listing.asin,
    childAsin: listing.asin,
    ...(fba ? { fnsku: `X00${listing.asin.slice(3)}` } : {}),
    msku: listing.sku,
    sales: {
      orderedProductSales: amount(unitsOrdered * price),
      netProductSales: amount(netSales),
      averageSellingPrice: amount(price),
      unitsOrdered,
      unitsRefunded,
      netUnitsSold,
    },
    fees: charges.flatMap(([feeTypeName, total, quantity]) =>
      total === null
        ? []
        : [
            {
              feeTypeName,
              charges: [
                {
                  aggregatedDetail: {
                    amount: amount(total),
                    ...(quantity > 0 ? { amountPerUnit: amount(Math.round(total / quantity)) } : {}),
                    quantity,
                    totalAmount: amount(total),
                  },
                  chargeType: 'CHARGE' as const,
                },
              ],
            },
          ],
    ),
    netProceeds: {
      total: amount(net),
      ...(netUnitsSold > 0 ? { perUnit: amount(Math.round(net / netUnitsSold)) } : {}),
    },
  };
}

/** Every record of one marketplace and day range (inclusive), as known on day `today`. */
export function* economicsRecords(
  catalog: Catalog,
  marketplaceId: string,
  fromDay: number,
  toDay: number,
  today: number,
  dateOf: (day: number) => string,
): Generator<EconomicsRecord> {
  // a day is reported from the next day on
  const last = Math.min(toDay, today - 1);
  if (last < fromDay) return;
  // each listing built once for the range, not once a day: a listing sells on ~3 % of days
  const listings = [...catalog.listingsIn(marketplaceId)];
  for (let day = fromDay; day <= last; day++) {
    const date = dateOf(day);
    for (const listing of listings) {
      const record = economicsRecord(catalog, listing, date, today - day);
      if (record) yield record;
    }
  }
}
