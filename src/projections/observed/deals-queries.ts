import type { Knex } from 'knex';
import { prepared } from '../../infra/db.js';
import { COUPONS_DATASET, PROMOTIONS_DATASET } from '../../domain/observation/datasets.js';
import { READ_MODEL_SCHEMA } from '../projection.js';
import { COUPONS_TABLE } from './coupons.js';
import { completeReads } from './economics-support.js';
import { PROMOTIONS_TABLE } from './promotions.js';

// The coupons and promotions active now that cover some ASINs of a marketplace (the automation
// contexts' `deals`, spec 2.6, 2.8), from the last complete read of each report, with when each
// report was last downloaded. Known only once both reports were read for the marketplace.

export interface DealRow {
  kind: 'coupon' | 'promotion';
  /** the report's entry as sent (a promotion's with every included product) */
  raw: Record<string, unknown>;
  starts_at: Date;
  ends_at: Date;
  /** when the page holding it was read */
  reported_at: Date;
}

export interface ActiveDeals {
  /** the older of the two reports' latest downloads; null while either was never read for the marketplace */
  reported_at: Date | null;
  deals: DealRow[];
}

const rm = READ_MODEL_SCHEMA;

/** When each of the two reports was last read for the marketplace: rows of `{ dataset, observed_at }`. */
export const dealReportsQuery = (db: Knex, account_id: string, marketplace_id: string) =>
  db
    .withSchema(rm)
    .table('observed_scopes')
    .where({ account_id, scope: marketplace_id })
    .whereIn('dataset', [COUPONS_DATASET, PROMOTIONS_DATASET])
    .select('dataset', 'observed_at');

/** `reports`: dealReportsQuery's rows when the caller read them already (readTogether: observed_at an ISO string). */
export async function activeDeals(
  db: Knex,
  account_id: string,
  marketplace_id: string,
  asins: readonly string[],
  now: Date,
  reports?: readonly unknown[],
): Promise<ActiveDeals> {
  const read = reports ?? (await prepared<unknown[]>(() => dealReportsQuery(db, account_id, marketplace_id)));
  const reported_at = reportedAt(read);
  if (reported_at === null || asins.length === 0) return { reported_at, deals: [] };
  const { rows } = await activeDealsQuery(db, account_id, marketplace_id, asins, now);
  return { reported_at, deals: rows as DealRow[] };
}

/** The older of the two reports' latest reads in dealReportsQuery's rows; null unless both were read. */
export function reportedAt(reports: readonly unknown[]): Date | null {
  const read = reports as Array<{ observed_at: Date | string }>;
  return read.length < 2 ? null : new Date(Math.min(...read.map((r) => new Date(r.observed_at).getTime())));
}

/** An activeDealsQuery row as readTogether returns it (times as ISO strings). */
export function dealRowOf(row: unknown): DealRow {
  const r = row as Record<string, unknown>;
  const at = (v: unknown) => new Date(v as string);
  return {
    kind: r.kind as DealRow['kind'],
    raw: r.raw as Record<string, unknown>,
    starts_at: at(r.starts_at),
    ends_at: at(r.ends_at),
    reported_at: at(r.reported_at),
  };
}

/** The deals active at `now` covering some of these ASINs (at least one), as DealRows (through readTogether: dealRowOf). */
export const activeDealsQuery = (
  db: Knex,
  account_id: string,
  marketplace_id: string,
  asins: readonly string[],
  now: Date,
): Knex.Raw =>
  db.raw(
    `select 'coupon' as kind, c.raw, c.starts_at, c.ends_at, c.reported_at
       from ${rm}.${COUPONS_TABLE} c ${completeReads('c', COUPONS_DATASET)}
      where c.account_id = ? and c.marketplace_id = ? and jsonb_exists_any(c.asins, ?::text[]) and c.starts_at <= ? and c.ends_at > ?
     union all
     select distinct on (p.promotion_id) 'promotion', p.raw, p.starts_at, p.ends_at, p.reported_at
       from ${rm}.${PROMOTIONS_TABLE} p ${completeReads('p', PROMOTIONS_DATASET)}
      where p.account_id = ? and p.marketplace_id = ? and p.asin = any(?::text[]) and p.starts_at <= ? and p.ends_at > ?
     order by 3, 1`,
    [account_id, marketplace_id, [...asins], now, now, account_id, marketplace_id, [...asins], now, now],
  );
