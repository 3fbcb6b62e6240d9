import { arr, obj, str, type Json } from '../../domain/shared/json.js';
import { pagedProjection } from './page-table.js';
import { CATALOG_DATASET } from '../../domain/observation/datasets.js';

// Catalog items (dataset `catalog_items`, scope the marketplace id): one row per ASIN per
// marketplace, the Catalog Items API item as sent in `data`, and its identifiers there.

export const CATALOG_TABLE = 'catalog_items';

const forMarketplace = (v: unknown, marketplaceId: string): Json | undefined =>
  arr(v)
    .map(obj)
    .find((e) => e?.marketplaceId === marketplaceId);

/** Identifier types that are GTINs of some length, each zero-padded to GTIN-14. */
const GTIN_TYPES = ['GTIN', 'EAN', 'UPC', 'JAN', 'ISBN'];

/** The item's GTIN-14: the first GTIN-family identifier of 8 to 14 digits, zero-padded. */
export function gtinOf(identifiers: readonly Json[]): string | null {
  for (const type of GTIN_TYPES) {
    const value = identifiers.find((i) => String(i.identifierType).toUpperCase() === type)?.identifier;
    if (typeof value === 'string' && /^\d{8,14}$/.test(value)) return value.padStart(14, '0');
  }
  return null;
}

export function catalogRow(raw: unknown, marketplaceId: string): Record<string, unknown> | null {
  const item = obj(raw);
  if (!item || typeof item.asin !== 'string') return null;
  const identifiers = arr(forMarketplace(item.identifiers, marketplaceId)?.identifiers)
    .map(obj)
    .filter((i): i is Json => i !== undefined);
  const summary = forMarketplace(item.summaries, marketplaceId);
  return {
    asin: item.asin,
    marketplace_id: marketplaceId,
    title: str(summary?.itemName) ?? str(obj(arr(obj(item.attributes)?.item_name)[0])?.value),
    brand: str(summary?.brand),
    product_type: str(forMarketplace(item.productTypes, marketplaceId)?.productType),
    gtin: gtinOf(identifiers),
    identifiers: JSON.stringify(identifiers),
    data: JSON.stringify(item),
  };
}

export const catalogItemsProjection = pagedProjection({
  name: 'catalog_items',
  version: 1,
  datasets: [CATALOG_DATASET],
  table: CATALOG_TABLE,
  columns: {
    asin: 'text',
    marketplace_id: 'text',
    title: 'text null',
    brand: 'text null',
    product_type: 'text null',
    gtin: 'text null',
    identifiers: 'jsonb',
    data: 'jsonb',
  },
  rows: (page) => page.rows.map((raw) => catalogRow(raw, page.scope)),
});
