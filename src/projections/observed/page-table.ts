import type { PageObserved } from '../../domain/observation/events.js';
import type { DataFilter, RecordedEvent } from '../../eventstore/port.js';
import type { Knex } from '../../infra/db.js';
import type { Projection } from '../projection.js';
import { createTables, type Columns, type TableSpec } from '../tables.js';
import { pageOf, replacePages } from './economics-support.js';

// What every observed-page table shares: its rows are keyed by the page they came from and
// their position in it, and a page event replaces that page's rows.

/** The key columns an observed table starts with (`dataset` too when one table holds several). */
const pageKey = (withDataset: boolean): Columns => ({
  account_id: 'uuid',
  ...(withDataset ? { dataset: 'text' } : {}),
  scope: 'text',
  page: 'integer',
  row: 'integer',
});

/** An observed table: the page key and primary key over it, then its own columns and indexes. */
export const pageTableSpec = (
  columns: Columns,
  { withDataset = false, indexes = [] }: { withDataset?: boolean; indexes?: TableSpec['indexes'] } = {},
): TableSpec => ({
  columns: { ...pageKey(withDataset), ...columns },
  primary: Object.keys(pageKey(withDataset)),
  indexes,
});

/** A projection's apply and set-based applyMany for pages of `datasets`: the rows `rowsOf` makes of
 * each page (nulls, unreadable rows, skipped) replace the page's rows in `table`. `rowsOf` must
 * return a new object per row: replacePages writes the page keys into it. */
export function pageAppliers(
  datasets: readonly string[],
  table: string,
  rowsOf: (page: PageObserved) => ReadonlyArray<Record<string, unknown> | null>,
  withDataset = false,
): Required<Pick<Projection, 'apply' | 'applyMany'>> {
  const applyMany = async (trx: Knex.Transaction, events: readonly RecordedEvent[], schema: string) => {
    const pages = events.flatMap((event) => {
      const page = pageOf(event, datasets);
      return page ? [{ page, rows: rowsOf(page).filter((r): r is Record<string, unknown> => r !== null) }] : [];
    });
    await replacePages(trx, schema, table, pages, withDataset);
  };
  return { apply: (trx, event, schema) => applyMany(trx, [event], schema), applyMany };
}

export interface PagedProjectionSpec {
  name: string;
  version: number;
  datasets: readonly string[];
  table: string;
  /** one table for several datasets: `dataset` joins the key */
  withDataset?: boolean;
  /** the columns after the page key */
  columns: Columns;
  indexes?: TableSpec['indexes'];
  /** a new object per row (replacePages writes the page keys into it); null skips the row */
  rows: (page: PageObserved) => ReadonlyArray<Record<string, unknown> | null>;
}

/** What a projection of these datasets reads of the observation events: their pages and completions only. */
export const ofDatasets = (datasets: readonly string[]): DataFilter => ({ field: 'dataset', values: datasets });

/** A projection that keeps one page table, each page event replacing that page's rows. */
export const pagedProjection = ({
  name,
  version,
  datasets,
  table,
  withDataset = false,
  columns,
  indexes = [],
  rows,
}: PagedProjectionSpec): Projection => ({
  name,
  version,
  handles: ['PageObserved'],
  filter: ofDatasets(datasets),
  tables: [table],
  createTables: (db, schema) => createTables(db, schema, { [table]: pageTableSpec(columns, { withDataset, indexes }) }),
  ...pageAppliers(datasets, table, rows, withDataset),
});
