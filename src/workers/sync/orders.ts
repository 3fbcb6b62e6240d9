import type { Order, SellingClient } from '../../marketplace/clients/index.js';
import { READ_MODEL_SCHEMA } from '../../projections/projection.js';
import type { SyncDeps, SyncJobDefinition } from './job.js';
import { sellingContext } from './listings-context.js';
import { syncScope } from './scope.js';
import { ORDERS_DATASET } from '../../domain/observation/datasets.js';

// Orders per marketplace per UTC day of purchase (dataset `orders`, scope
// `<marketplace>/<YYYY-MM-DD>`): getOrders for the day, each order with its getOrderItems
// answer embedded as `OrderItems`, one recorded page per API page. A run reads every day of
// the past year without a complete read (the whole year on the first run) and the trailing
// 14 days always, where orders still change status.

export const HISTORY_DAYS = 365;
export const TRAILING_DAYS = 14;
const DAY_MS = 86_400_000;
/** Days read at once, and getOrderItems calls in flight at once within one page of orders:
 * each recorded page is its own append, so parallel scopes share the log's commits. */
const PARALLEL_DAYS = 8;
const ITEM_CALLS = 8;

export const ordersSync: SyncJobDefinition = {
  name: 'orders',
  everyMs: 30 * 60_000,
  async run(deps, account_id) {
    const selling = await sellingContext(deps, account_id);
    if (!selling) return { recorded: 0 };
    const today = Math.floor(deps.now().getTime() / DAY_MS);
    const reads: Array<{ marketplaceId: string; day: number }> = [];
    for (const marketplaceId of selling.marketplaces) {
      for (const day of await daysToRead(deps, account_id, marketplaceId, today)) reads.push({ marketplaceId, day });
    }
    const results = await mapLimited(reads, PARALLEL_DAYS, ({ marketplaceId, day }) =>
      syncScope(
        deps.ctx,
        { account_id, dataset: ORDERS_DATASET, scope: `${marketplaceId}/${dateOf(day)}` },
        orderPages(selling.client, marketplaceId, day, today),
        deps.now,
      ),
    );
    return { recorded: results.reduce((sum, r) => sum + r.recorded, 0) };
  },
};

const dateOf = (day: number) => new Date(day * DAY_MS).toISOString().slice(0, 10);

/** The days of the past year without a complete read, and the trailing days, oldest first. */
async function daysToRead(deps: SyncDeps, account_id: string, marketplaceId: string, today: number): Promise<number[]> {
  const complete = new Set<string>(
    (
      await deps.db
        .withSchema(READ_MODEL_SCHEMA)
        .table('observed_scopes')
        .where({ account_id, dataset: ORDERS_DATASET })
        .andWhere('scope', 'like', `${marketplaceId}/%`)
        .select('scope')
    ).map((r: { scope: string }) => r.scope.slice(marketplaceId.length + 1)),
  );
  const days: number[] = [];
  for (let day = today - HISTORY_DAYS + 1; day <= today; day++) {
    if (day > today - TRAILING_DAYS || !complete.has(dateOf(day))) days.push(day);
  }
  return days;
}

async function* orderPages(
  client: SellingClient,
  marketplaceId: string,
  day: number,
  today: number,
): AsyncIterable<unknown[]> {
  const window = {
    createdAfter: `${dateOf(day)}T00:00:00Z`,
    ...(day < today ? { createdBefore: `${dateOf(day)}T23:59:59Z` } : {}),
  };
  for await (const orders of client.orders.getOrders({ marketplaceIds: [marketplaceId], ...window })) {
    // A day without orders is a read of no pages (one event) rather than of one empty page.
    if (orders.length === 0) continue;
    yield await mapLimited(orders, ITEM_CALLS, async (order: Order) => ({
      ...order,
      OrderItems: await client.orders.getOrderItems(order.AmazonOrderId),
    }));
  }
}

async function mapLimited<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
