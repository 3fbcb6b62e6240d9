import { DAY_MS } from '../../domain/shared/calendar.js';
import type { Order } from '../../marketplace/clients/index.js';
import { ORDERS_REPORT } from '../../marketplace/clients/flat-file.js';
import { syncWith, type SyncDeps } from './job.js';
import { ordersOfDay } from './flat-files.js';
import { orderDaysOf } from './order-days.js';
import { sellingContext, type SellingContext } from './listings-context.js';
import { pagesOf, runReports, type ReportPlan } from './reports.js';
import { completeScopes, forEachAtOnce, mapLimited, oneAtATime, recordFirstRead, syncScope } from './scope.js';
import { ORDERS_DATASET } from '../../domain/observation/datasets.js';

// Orders per marketplace per UTC day of purchase (dataset `orders`, scope
// `<marketplace>/<YYYY-MM-DD>`): Orders API orders, each with its items embedded as
// `OrderItems`, one recorded page per 100 orders. A run reads every day of the past year
// without a complete read and the trailing 14 days always, where orders still change status.
// A day without a complete read is read from the bulk orders report (30 days at once), unless
// it is one of the trailing days of a marketplace already synced: so the first sync of an
// account costs a few reports instead of a getOrderItems call per order, and later runs keep
// the per-order reads, which show status changes within minutes.

export const HISTORY_DAYS = 365;
export const TRAILING_DAYS = 14;
/** Days read at once, and getOrderItems calls in flight at once within one page of orders:
 * each recorded page is its own append, so parallel scopes share the log's commits. */
const PARALLEL_DAYS = 8;
const ITEM_CALLS = 8;
/** Orders per recorded page: a getOrders page's. */
const ORDERS_PER_PAGE = 100;
/** Days one orders report covers (the report allows 31). */
const REPORT_DAYS = 30;
/** A window's rows wait on disk until their day is recorded (order-days.ts), a process records one
 * window at a time, whatever reports and accounts it syncs at once: a backfill's memory stays that
 * of a few days' orders. */
const windowsInTurn = oneAtATime();

export const ordersSync = syncWith(sellingContext, {
  name: 'orders',
  everyMs: 30 * 60_000,
  async run(deps, account_id, selling) {
    const today = Math.floor(deps.now().getTime() / DAY_MS);
    const byApi: Array<{ marketplaceId: string; day: number }> = [];
    const plans: ReportPlan[] = [];
    for (const marketplaceId of selling.marketplaces) {
      const { backfill, api } = await daysToRead(deps, account_id, marketplaceId, today);
      for (const day of api) byApi.push({ marketplaceId, day });
      for (const window of windows(backfill)) plans.push(reportPlan(deps, account_id, marketplaceId, window));
    }
    // Reports first: a report not done yet ends the run (ReportNotReady) before the per-order
    // reads, which the next attempt would only repeat.
    const fromReports = plans.length ? (await runReports(deps, account_id, selling.reports, plans)).recorded : 0;
    const results = await mapLimited(byApi, PARALLEL_DAYS, ({ marketplaceId, day }) =>
      syncScope(
        deps.ctx,
        dayKey(account_id, marketplaceId, day),
        orderPages(selling, marketplaceId, day, today),
        deps.now,
      ),
    );
    return { recorded: fromReports + results.reduce((sum, r) => sum + r.recorded, 0) };
  },
});

const dateOf = (day: number) => new Date(day * DAY_MS).toISOString().slice(0, 10);
const dayKey = (account_id: string, marketplaceId: string, day: number) => ({
  account_id,
  dataset: ORDERS_DATASET,
  scope: `${marketplaceId}/${dateOf(day)}`,
});

/**
 * The days of the past year to read, oldest first: `backfill` (by report) those without a
 * complete read, `api` (per order) the trailing days of a marketplace with complete reads.
 */
async function daysToRead(
  deps: SyncDeps,
  account_id: string,
  marketplaceId: string,
  today: number,
): Promise<{ backfill: number[]; api: number[] }> {
  const complete = new Set(
    (await completeScopes(deps.db, account_id, ORDERS_DATASET, marketplaceId)).map((s) =>
      s.slice(marketplaceId.length + 1),
    ),
  );
  const backfill: number[] = [];
  const api: number[] = [];
  for (let day = today - HISTORY_DAYS + 1; day <= today; day++) {
    const trailing = day > today - TRAILING_DAYS;
    if (trailing && complete.size > 0) api.push(day);
    else if (!complete.has(dateOf(day))) backfill.push(day);
  }
  return { backfill, api };
}

/** Runs of consecutive days, cut to at most REPORT_DAYS each. */
function windows(days: readonly number[]): Array<{ from: number; to: number }> {
  const out: Array<{ from: number; to: number }> = [];
  for (const day of days) {
    const last = out.at(-1);
    if (last && day === last.to + 1 && day - last.from < REPORT_DAYS) last.to = day;
    else out.push({ from: day, to: day });
  }
  return out;
}

/** The orders report of one marketplace's days `from`..`to`, recorded day by day. */
function reportPlan(
  deps: SyncDeps,
  account_id: string,
  marketplaceId: string,
  { from, to }: { from: number; to: number },
): ReportPlan {
  return {
    key: `${ORDERS_DATASET}/${marketplaceId}/${dateOf(from)}/${dateOf(to)}`,
    api: 'reports',
    document: 'flatFile',
    create: (client) =>
      client.createReport({
        reportType: ORDERS_REPORT,
        marketplaceIds: [marketplaceId],
        dataStartTime: `${dateOf(from)}T00:00:00Z`,
        // not in the future: today's window ends now
        dataEndTime: new Date(Math.min((to + 1) * DAY_MS - 1000, deps.now().getTime())).toISOString(),
      }),
    handle: (content) => windowsInTurn(() => recordWindow(content)),
  };

  async function recordWindow(content: unknown): Promise<number> {
    // the window's rows set aside by day as they stream (an order's lines may lie anywhere in it)
    const byDay = await orderDaysOf((content ?? []) as AsyncIterable<Record<string, string>[]>, { from, to });
    try {
      const days = Array.from({ length: to - from + 1 }, (_, i) => from + i);
      let recorded = 0;
      // A day without orders is a read of no pages, as on the per-order path. A failed day stops the
      // window once the days under way have finished: none still reads its file once it is removed.
      await forEachAtOnce(days, PARALLEL_DAYS, async (day) => {
        recorded += await recordFirstRead(
          deps.ctx,
          dayKey(account_id, marketplaceId, day),
          pagesOf(ordersOfDay(await byDay.ordersOf(day), marketplaceId), ORDERS_PER_PAGE),
          deps.now,
          1,
        );
      });
      return recorded;
    } finally {
      await byDay.close();
    }
  }
}

async function* orderPages(
  { client }: SellingContext,
  marketplaceId: string,
  day: number,
  today: number,
): AsyncIterable<unknown[]> {
  const window = {
    createdAfter: `${dateOf(day)}T00:00:00Z`,
    ...(day < today ? { createdBefore: `${dateOf(day)}T23:59:59Z` } : {}),
  };
  for await (const orders of client.orders.getOrders({
    marketplaceIds: [marketplaceId],
    maxResultsPerPage: ORDERS_PER_PAGE,
    ...window,
  })) {
    // A day without orders is a read of no pages (one event) rather than of one empty page.
    if (orders.length === 0) continue;
    yield await mapLimited(orders, ITEM_CALLS, async (order: Order) => ({
      ...order,
      OrderItems: await client.orders.getOrderItems(order.AmazonOrderId),
    }));
  }
}
