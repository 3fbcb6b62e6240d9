import { minorDigits } from '../../projections/observed/economics-support.js';

// The hourly Marketing Stream figures of a campaign (spec 2.12): sp-traffic and sp-conversion rows
// (one per ad group, ad, keyword and placement) rolled up per hour. A restated fact keeps its
// idempotency_id, so only the last one received counts; amounts are the feed's own major units,
// summed and rounded to the currency's minor unit.

type Json = Record<string, unknown>;
export type Feed = 'SP_TRAFFIC' | 'SP_CONVERSION';
export interface StreamRow {
  stream_type: string;
  payload: Json;
}

const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
const hourOf = (row: Json): string | null => {
  const at = typeof row.time_window_start === 'string' ? Date.parse(row.time_window_start) : NaN;
  return Number.isNaN(at) ? null : new Date(at).toISOString();
};

/** The rows of one feed, each fact once (its last restatement), in the order received. */
function facts(rows: readonly StreamRow[], feed: Feed): Json[] {
  const last = new Map<string, Json>();
  rows.forEach((r, i) => {
    if (r.stream_type !== feed) return;
    const id = typeof r.payload.idempotency_id === 'string' ? r.payload.idempotency_id : `row-${i}`;
    last.delete(id);
    last.set(id, r.payload);
  });
  return [...last.values()];
}

const TRAFFIC = { impressions: 'impressions', clicks: 'clicks', cost: 'cost' } as const;
const CONVERSIONS = {
  conversions: 'attributed_conversions_7d',
  sales: 'attributed_sales_7d',
  unitsOrdered: 'attributed_units_ordered_7d',
} as const;
const MONEY = new Set(['cost', 'sales']);

/** Sums `keys` of `rows` (money rounded to the currency's minor unit). */
function sum<K extends string>(rows: readonly Json[], keys: Readonly<Record<K, string>>, currency: string) {
  const digits = 10 ** minorDigits(currency);
  return Object.fromEntries(
    (Object.entries(keys) as Array<[K, string]>).map(([name, key]) => {
      const total = rows.reduce((t, r) => t + num(r[key]), 0);
      return [name, MONEY.has(name) ? Math.round(total * digits) / digits : total];
    }),
  ) as Record<K, number>;
}

/** Per hour, oldest first. */
function byHour<K extends string>(
  rows: readonly StreamRow[],
  feed: Feed,
  keys: Readonly<Record<K, string>>,
  currency: string,
) {
  const hours = new Map<string, Json[]>();
  for (const f of facts(rows, feed)) {
    const hour = hourOf(f);
    if (hour) hours.set(hour, [...(hours.get(hour) ?? []), f]);
  }
  return [...hours.entries()]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([hour, rs]) => ({ hour, ...sum(rs, keys, currency) }));
}

/** `hourlyTraffic` and `hourlyConversions` of a campaign from its stream rows. */
export function hourlyLists(rows: readonly StreamRow[], currency: string) {
  return {
    hourlyTraffic: byHour(rows, 'SP_TRAFFIC', TRAFFIC, currency),
    hourlyConversions: byHour(rows, 'SP_CONVERSION', CONVERSIONS, currency),
  };
}

/** `metrics` (spec 2.12): the firing row's hour of its feed for its campaign, every fact of that hour rolled up. */
export function hourMetrics(rows: readonly StreamRow[], feed: Feed, event: Json, currency: string) {
  const hour = hourOf(event);
  const inHour = facts([...rows, { stream_type: feed, payload: event }], feed).filter((f) => hourOf(f) === hour);
  const traffic = feed === 'SP_TRAFFIC' ? sum(inHour, TRAFFIC, currency) : null;
  const conversions = feed === 'SP_CONVERSION' ? sum(inHour, CONVERSIONS, currency) : null;
  return {
    feed: feed === 'SP_TRAFFIC' ? 'sp-traffic' : 'sp-conversion',
    hour: hour ?? String(event.time_window_start ?? ''),
    rows: inHour.length,
    impressions: traffic?.impressions ?? null,
    clicks: traffic?.clicks ?? null,
    cost: traffic?.cost ?? null,
    conversions: conversions?.conversions ?? null,
    sales: conversions?.sales ?? null,
    unitsOrdered: conversions?.unitsOrdered ?? null,
  };
}
