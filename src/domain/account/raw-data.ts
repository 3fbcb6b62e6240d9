import { CATALOG_DATASET, INVENTORY_DATASET, LISTINGS_DATASET, SP_ENTITY_DATASETS } from '../observation/datasets.js';
import type { ConnectionKind } from './events.js';

// Spec 8: raw provider data of an inactive seller or advertiser is kept 30 days from the day it
// goes inactive. Raw provider data is what describes the account as it stands, re-read whole by
// every sync: the seller's listings, FBA inventory and catalog items, and the advertiser's
// Sponsored Products entities. What the spec keeps without a limit stays: orders (daily sales,
// order history), economics, search query, vendor and daily advertising metrics, and the coupon
// and promotion performance reports (sales figures too).

export const RAW_DATA_RETENTION_DAYS = 30;

/** The observed datasets each connection's raw provider data is recorded under. */
export const RAW_DATASETS: Readonly<Record<ConnectionKind, readonly string[]>> = {
  selling: [LISTINGS_DATASET, INVENTORY_DATASET, CATALOG_DATASET],
  ads: Object.values(SP_ENTITY_DATASETS),
};

const DAY_MS = 86_400_000;

/** When the raw data of a connection inactive since `inactiveAt` goes: 30 days from the start
 * of that day (UTC), so the day it went inactive is the first of the 30. */
export function rawDataKeptUntil(inactiveAt: string): Date {
  const day = Math.floor(Date.parse(inactiveAt) / DAY_MS);
  return new Date((day + RAW_DATA_RETENTION_DAYS) * DAY_MS);
}
