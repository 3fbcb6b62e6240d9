import type { PageObserved } from '../../domain/observation/events.js';
import type { DataFilter } from '../../eventstore/port.js';
import type { Projection } from '../projection.js';
import { createTables, type Columns, type TableSpec } from '../tables.js';
import { pageOf, replacePage } from './economics-support.js';

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

/** A projection's apply for pages of `datasets`: the rows `rowsOf` makes of the page (nulls,
 * unreadable rows, skipped) replace the page's rows in `table`. */
export const applyPages =
  (
    datasets: readonly string[],
    table: string,
    rowsOf: (page: PageObserved) => ReadonlyArray<Record<string, unknown> | null>,
    withDataset = false,
  ): Projection['apply'] =>
  async (trx, event, schema) => {
    const page = pageOf(event, datasets);
    if (!page) return;
    const rows = rowsOf(page).filter((r): r is Record<string, unknown> => r !== null);
    await replacePage(trx, schema, table, page, rows, withDataset);
  };

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
  apply: applyPages(datasets, table, rows, withDataset),
});
