import type { Knex } from 'knex';
import { stableId } from '../../domain/shared/ids.js';
import type { RecordedEvent } from '../../eventstore/port.js';
import type { Projection } from '../projection.js';
import { minorDigits, replacePages, type PageRows } from './economics-support.js';
import { createSalesTables, recordOrderScope, refreshSales, SALES_TABLES, type ChangedScope } from './sales-rollups.js';
import { observationEventSchemas, type ObservationEvent } from '../../domain/observation/events.js';
import { parseEvent } from '../../domain/shared/decider.js';
import { arr, int, obj, str, type Json } from '../../domain/shared/json.js';
import { ofDatasets, pageTableSpec } from './page-table.js';
import { createTables, type Columns, type TableSpec } from '../tables.js';
import { ORDERS_DATASET } from '../../domain/observation/datasets.js';

// Orders (dataset `orders`, scope `<marketplace>/<YYYY-MM-DD>` of purchase): each recorded
// row is a getOrders order with its getOrderItems answer embedded as `OrderItems`. Two
// tables: `orders`, one row per order whatever its status (pending ones included, for
// freshness), and `order_lines`, one row per order item. Money in minor units. Typed columns
// only: the raw order as read stays in its page event, and no read wants it from here (a copy in
// jsonb was 1.5 of the tables' 1.9 GB at the bench profile, and its rebuild took 115 s, not 69).

export const ORDERS_TABLE = 'orders';
export const ORDER_LINES_TABLE = 'order_lines';

/** The local id of an order: stable for (account, provider order id). */
export const orderIdOf = (account_id: string, amazonOrderId: string): string =>
  stableId('order', `${account_id}/${amazonOrderId}`);

/** The orders API's decimal string ("12.34") as exact integer minor units (rounded half up past the minor unit). */
export function decimalMinor(amount: string, currency: string): number | null {
  const match = /^(-?)(\d+)(?:\.(\d+))?$/.exec(amount.trim());
  if (!match) return null;
  const digits = minorDigits(currency);
  const fraction = match[3] ?? '';
  const kept = fraction.slice(0, digits).padEnd(digits, '0');
  const value =
    Number(match[2]) * 10 ** digits + (digits > 0 ? Number(kept) : 0) + (Number(fraction[digits] ?? 0) >= 5 ? 1 : 0);
  return match[1] ? -value : value;
}

/** `{ CurrencyCode, Amount }` as minor units and currency. */
function money(v: unknown): { currency: string; minor: number } | null {
  const m = obj(v);
  const currency = str(m?.CurrencyCode);
  const amount = str(m?.Amount);
  const minor = currency && amount ? decimalMinor(amount, currency) : null;
  return currency && minor !== null ? { currency, minor } : null;
}

/** An order row and its line rows; `marketplaceId` (the scope's) stands in when the order names none. */
export function orderRows(
  raw: unknown,
  account_id: string,
  marketplaceId: string,
): { order: Record<string, unknown>; lines: Record<string, unknown>[] } | null {
  const order = obj(raw);
  const amazonOrderId = str(order?.AmazonOrderId);
  const purchasedAt = str(order?.PurchaseDate);
  if (!order || !amazonOrderId || !purchasedAt) return null;
  const order_id = orderIdOf(account_id, amazonOrderId);
  const total = money(order.OrderTotal);
  const shared = {
    order_id,
    amazon_order_id: amazonOrderId,
    purchased_at: purchasedAt,
    order_status: str(order.OrderStatus),
    is_business_order: order.IsBusinessOrder === true,
    marketplace_id: str(order.MarketplaceId) ?? marketplaceId,
  };
  const lines = arr(order.OrderItems)
    .map(obj)
    .filter((item): item is Json => item !== undefined && str(item.OrderItemId) !== null)
    .map((item) => {
      const price = money(item.ItemPrice);
      return {
        ...shared,
        order_item_id: item.OrderItemId,
        currency: price?.currency ?? total?.currency ?? null,
        asin: str(item.ASIN),
        sku: str(item.SellerSKU),
        title: str(item.Title),
        price: price?.minor ?? null,
        item_tax: money(item.ItemTax)?.minor ?? null,
        quantity: int(item.QuantityOrdered) ?? 0,
        quantity_shipped: int(item.QuantityShipped),
      };
    });
  return {
    order: {
      ...shared,
      last_updated_at: str(order.LastUpdateDate),
      fulfillment_channel: str(order.FulfillmentChannel),
      currency: total?.currency ?? lines.find((l) => l.currency)?.currency ?? null,
      order_total: total?.minor ?? null,
      items_shipped: int(order.NumberOfItemsShipped),
      items_unshipped: int(order.NumberOfItemsUnshipped),
      line_count: lines.length,
    },
    lines,
  };
}

/** What an order row and each of its line rows carry of the order. */
const ORDER_COLUMNS: Columns = {
  order_id: 'uuid',
  amazon_order_id: 'text',
  purchased_at: 'timestamptz',
  order_status: 'text null',
  is_business_order: 'boolean',
  marketplace_id: 'text',
  currency: 'text null',
};

const ORDER_TABLES: Record<string, TableSpec> = {
  [ORDERS_TABLE]: pageTableSpec({
    ...ORDER_COLUMNS,
    last_updated_at: 'timestamptz null',
    fulfillment_channel: 'text null',
    order_total: 'bigint null',
    items_shipped: 'integer null',
    items_unshipped: 'integer null',
    line_count: 'integer',
  }),
  [ORDER_LINES_TABLE]: pageTableSpec({
    ...ORDER_COLUMNS,
    order_item_id: 'text',
    asin: 'text null',
    sku: 'text null',
    title: 'text null',
    price: 'bigint null',
    item_tax: 'bigint null',
    quantity: 'integer',
    quantity_shipped: 'integer null',
  }),
};

export const ordersProjection: Projection = {
  name: 'orders',
  // 3: the sales tables (sales-rollups.ts); 4: their sales group `key` (list_sales_by_listing);
  // 5: no raw `data` columns; 6: `sales_listings`
  version: 6,
  handles: ['PageObserved', 'SyncCompleted'],
  filter: ofDatasets([ORDERS_DATASET]),
  tables: [...Object.keys(ORDER_TABLES), ...Object.keys(SALES_TABLES)],
  // The sales reads go to the sales tables; freshness reads the first and last purchase of
  // a marketplace's orders by this index. The page replacement's delete names account_id,
  // scope and page: the primary key serves it.
  async createTables(db, schema) {
    await createTables(db, schema, ORDER_TABLES);
    await db.raw(
      `create index ?? on ??.${ORDERS_TABLE} (account_id, marketplace_id, purchased_at) include (scope, page)`,
      [`${ORDERS_TABLE}_by_purchase`, schema],
    );
    await createSalesTables(db, schema);
  },
  apply: (trx, event, schema) => applyOrders(trx, [event], schema),
  // A backfill's pages: each scope's sales summed once per batch, not once per page and again
  // for its SyncCompleted. The sales tables are a function of the scopes' order rows and page
  // counts (sales-rollups.ts), so the rows are those of one event at a time.
  applyMany: applyOrders,
};

const TABLES = { orders: ORDERS_TABLE, lines: ORDER_LINES_TABLE };

/** Writes the events' order rows and scopes' page counts, then refreshes the sales of the scopes
 * (or single pages) they changed. */
async function applyOrders(trx: Knex.Transaction, events: readonly RecordedEvent[], schema: string): Promise<void> {
  const changed: ChangedScope[] = [];
  const orders: PageRows[] = [];
  const lines: PageRows[] = [];
  for (const event of events) {
    const observed = parseEvent<ObservationEvent>(observationEventSchemas, event);
    if (observed.data.dataset !== ORDERS_DATASET) continue;
    const { account_id, scope } = observed.data;
    changed.push({ account_id, scope, ...(observed.type === 'PageObserved' ? { page: observed.data.page } : {}) });
    if (observed.type === 'SyncCompleted') {
      await recordOrderScope(trx, schema, { account_id, scope, pages: observed.data.pages });
      continue;
    }
    const parsed = observed.data.rows
      .map((raw) => orderRows(raw, account_id, scope.split('/')[0]!))
      .filter((r) => r !== null);
    orders.push({ page: observed.data, rows: parsed.map((p) => p.order) });
    lines.push({ page: observed.data, rows: parsed.flatMap((p) => p.lines) });
  }
  await replacePages(trx, schema, ORDERS_TABLE, orders);
  await replacePages(trx, schema, ORDER_LINES_TABLE, lines);
  await refreshSales(trx, schema, changed, TABLES);
}
