import { int, obj, str } from '../../domain/shared/json.js';
import { pagedProjection } from './page-table.js';
import { columnsOf } from '../tables.js';
import { INVENTORY_DATASET } from '../../domain/observation/datasets.js';

// FBA inventory (dataset `fba_inventory`, scope the marketplace id): one row per FBA SKU per
// marketplace, the inventory summary as sent in `data`, and its quantities as columns.

export const INVENTORY_TABLE = 'fba_inventory';

export function inventoryRow(raw: unknown, marketplaceId: string): Record<string, unknown> | null {
  const summary = obj(raw);
  const sku = str(summary?.sellerSku);
  if (!summary || !sku) return null;
  const details = obj(summary.inventoryDetails);
  return {
    sku,
    marketplace_id: marketplaceId,
    asin: str(summary.asin),
    fn_sku: str(summary.fnSku),
    condition: str(summary.condition),
    total_quantity: int(summary.totalQuantity),
    fulfillable_quantity: int(details?.fulfillableQuantity),
    inbound_working_quantity: int(details?.inboundWorkingQuantity),
    inbound_shipped_quantity: int(details?.inboundShippedQuantity),
    inbound_receiving_quantity: int(details?.inboundReceivingQuantity),
    reserved_quantity: int(obj(details?.reservedQuantity)?.totalReservedQuantity),
    researching_quantity: int(obj(details?.researchingQuantity)?.totalResearchingQuantity),
    unfulfillable_quantity: int(obj(details?.unfulfillableQuantity)?.totalUnfulfillableQuantity),
    last_updated_at: str(summary.lastUpdatedTime),
    data: JSON.stringify(summary),
  };
}

const QUANTITIES = [
  'total_quantity',
  'fulfillable_quantity',
  'inbound_working_quantity',
  'inbound_shipped_quantity',
  'inbound_receiving_quantity',
  'reserved_quantity',
  'researching_quantity',
  'unfulfillable_quantity',
];

export const fbaInventoryProjection = pagedProjection({
  name: 'fba_inventory',
  // 2: index for a listing's inventory row (list_listings)
  version: 2,
  datasets: [INVENTORY_DATASET],
  table: INVENTORY_TABLE,
  columns: {
    sku: 'text',
    marketplace_id: 'text',
    asin: 'text null',
    fn_sku: 'text null',
    condition: 'text null',
    ...columnsOf(QUANTITIES, 'integer null'),
    last_updated_at: 'timestamptz null',
    data: 'jsonb',
  },
  indexes: [['account_id', 'marketplace_id', 'sku', 'page']],
  rows: (page) => page.rows.map((raw) => inventoryRow(raw, page.scope)),
});
