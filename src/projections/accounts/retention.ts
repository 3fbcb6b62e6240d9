import type { Knex } from 'knex';
import { RAW_DATASETS } from '../../domain/account/raw-data.js';
import type { ConnectionKind } from '../../domain/account/events.js';
import {
  CATALOG_DATASET,
  INVENTORY_DATASET,
  LISTINGS_DATASET,
  SP_ENTITY_DATASETS,
} from '../../domain/observation/datasets.js';
import { ADS_TABLES } from '../observed/ads.js';
import { TARGET_DATASETS } from '../observed/ads-rows.js';
import { CATALOG_TABLE } from '../observed/catalog.js';
import { INVENTORY_TABLE } from '../observed/inventory.js';
import { CURRENT_LISTINGS_TABLE, LISTING_TARGETS_TABLE, LISTINGS_TABLE, SCOPES_TABLE } from '../observed/listings.js';
import { READ_MODEL_SCHEMA } from '../projection.js';

// Retention of an inactive connection's raw provider data (spec 8): which of the account's scopes
// hold some, and every read-model row its pages and completions made, so that rebuilding from what
// stays gives the live tables.

/** The page table each raw dataset's pages land in (with `dataset` in its key when it holds several). */
export const RAW_PAGE_TABLES: Readonly<
  Record<ConnectionKind, ReadonlyArray<{ table: string; datasets: readonly string[] }>>
> = {
  selling: [
    { table: LISTINGS_TABLE, datasets: [LISTINGS_DATASET] },
    { table: INVENTORY_TABLE, datasets: [INVENTORY_DATASET] },
    { table: CATALOG_TABLE, datasets: [CATALOG_DATASET] },
  ],
  ads: [
    { table: ADS_TABLES.campaigns, datasets: [SP_ENTITY_DATASETS.campaigns] },
    { table: ADS_TABLES.adGroups, datasets: [SP_ENTITY_DATASETS.adGroups] },
    { table: ADS_TABLES.productAds, datasets: [SP_ENTITY_DATASETS.productAds] },
    { table: ADS_TABLES.targets, datasets: TARGET_DATASETS },
  ],
};

/** Tables made from the listings pages alone (the current-listing index and its page counts,
 * admission's listing ids): the account's rows go with its listings. */
const DERIVED_TABLES: Readonly<Record<ConnectionKind, readonly string[]>> = {
  selling: [CURRENT_LISTINGS_TABLE, SCOPES_TABLE, LISTING_TARGETS_TABLE],
  ads: [],
};

export interface RawScope {
  dataset: string;
  scope: string;
  /** at least as many pages as were ever recorded for the scope, as far as the read models know */
  pages: number;
}

/** The account's scopes of the connection's raw datasets: those with a complete read, and those
 * whose pages left rows (a read that never completed). */
export async function rawScopes(db: Knex, account_id: string, connection: ConnectionKind): Promise<RawScope[]> {
  const rm = () => db.withSchema(READ_MODEL_SCHEMA);
  const found: RawScope[] = await rm()
    .table('observed_scopes')
    .where({ account_id })
    .whereIn('dataset', RAW_DATASETS[connection])
    .select('dataset', 'scope', 'pages');
  for (const { table, datasets } of RAW_PAGE_TABLES[connection]) {
    const several = datasets.length > 1;
    const rows: Array<{ dataset?: string; scope: string; pages: number }> = await rm()
      .table(table)
      .where({ account_id })
      .groupBy(several ? ['dataset', 'scope'] : ['scope'])
      .select([...(several ? ['dataset'] : []), 'scope', db.raw('max(page) + 1 as pages')]);
    found.push(...rows.map((r) => ({ dataset: r.dataset ?? datasets[0]!, scope: r.scope, pages: Number(r.pages) })));
  }
  const byKey = new Map<string, RawScope>();
  for (const s of found) {
    const key = JSON.stringify([s.dataset, s.scope]);
    byKey.set(key, { ...s, pages: Math.max(s.pages, byKey.get(key)?.pages ?? 0) });
  }
  return [...byKey.values()];
}

/** Deletes every row the account's raw pages and completions of the connection made. */
export async function deleteRawRows(db: Knex, account_id: string, connection: ConnectionKind): Promise<void> {
  await db.transaction(async (trx) => {
    const rm = (table: string) => trx.withSchema(READ_MODEL_SCHEMA).table(table);
    for (const { table } of RAW_PAGE_TABLES[connection]) await rm(table).where({ account_id }).delete();
    for (const table of DERIVED_TABLES[connection]) await rm(table).where({ account_id }).delete();
    await rm('observed_scopes').where({ account_id }).whereIn('dataset', RAW_DATASETS[connection]).delete();
  });
}
