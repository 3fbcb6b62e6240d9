import type { Knex } from 'knex';
import type { PageObserved } from '../../domain/observation/events.js';
import type { Projection } from '../projection.js';
import { pageOf, replacePage } from './economics-support.js';

// What every observed-page table shares: its rows are keyed by the page they came from and
// their position in it, and a page event replaces that page's rows.

/** The key columns an observed table starts with, and its primary key over them (`dataset`
 * too when one table holds several datasets). */
export function pageTable(t: Knex.CreateTableBuilder, withDataset = false): void {
  t.uuid('account_id').notNullable();
  if (withDataset) t.text('dataset').notNullable();
  t.text('scope').notNullable();
  t.integer('page').notNullable();
  t.integer('row').notNullable();
  t.primary(['account_id', ...(withDataset ? ['dataset'] : []), 'scope', 'page', 'row']);
}

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
  /** the columns after the page key, and any index */
  columns: (t: Knex.CreateTableBuilder) => void;
  rows: (page: PageObserved) => ReadonlyArray<Record<string, unknown> | null>;
}

/** A projection that keeps one page table, each page event replacing that page's rows. */
export const pagedProjection = ({
  name,
  version,
  datasets,
  table,
  withDataset = false,
  columns,
  rows,
}: PagedProjectionSpec): Projection => ({
  name,
  version,
  handles: ['PageObserved'],
  tables: [table],
  async createTables(db, schema) {
    await db.schema.withSchema(schema).createTable(table, (t) => {
      pageTable(t, withDataset);
      columns(t);
    });
  },
  apply: applyPages(datasets, table, rows, withDataset),
});
