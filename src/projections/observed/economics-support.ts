import type { Knex } from 'knex';
import { z } from 'zod';
import type { RecordedEvent } from '../../eventstore/port.js';
import { observationEventSchemas, type ObservationEvent, type PageObserved } from '../../domain/observation/events.js';
import { parseEvent } from '../../domain/shared/decider.js';
import { bindableRuns, insertRows } from '../tables.js';

// Shared by the report-based dataset projections (economics, search queries, coupons,
// promotions, vendor metrics): money conversion and page replacement.

const digitsCache = new Map<string, number>();

/** Digits of a currency's minor unit (0 for JPY, 2 for USD, 3 for BHD), from ICU. */
export function minorDigits(currency: string): number {
  let digits = digitsCache.get(currency);
  if (digits === undefined) {
    digits = new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
    digitsCache.set(currency, digits);
  }
  return digits;
}

/** A major-unit amount as integer minor units of its currency (whole yen for JPY). */
export const minorUnits = (amount: number, currency: string): number =>
  Math.round(amount * 10 ** minorDigits(currency));

/** The reports' `{ amount, currencyCode }`. */
export const wireAmount = z.object({ amount: z.number(), currencyCode: z.string().regex(/^[A-Z]{3}$/) });

/** The page event of `dataset`, or null for any other event. */
export function pageOf(event: RecordedEvent, datasets: readonly string[]): PageObserved | null {
  if (event.type !== 'PageObserved') return null;
  const page = parseEvent<ObservationEvent>(observationEventSchemas, event);
  return page.type === 'PageObserved' && datasets.includes(page.data.dataset) ? page.data : null;
}

/** A page event's rows as a projection maps them: a new object per row, which replacePages gives
 * the page keys (they win over a mapped column of the same name; no mapper makes one). */
export interface PageRows {
  page: PageObserved;
  rows: readonly Record<string, unknown>[];
}

/**
 * Replaces the rows held for each page's (account_id, dataset, scope, page) with its rows, each
 * given those keys and its position in the page (`row`), so applying a page twice is a no-op. A
 * batch's pages go in one delete and as few inserts as the parameter limit allows; a page given
 * twice keeps its last rows, as one page at a time would leave it.
 */
export async function replacePages(
  trx: Knex.Transaction,
  schema: string,
  table: string,
  pages: readonly PageRows[],
  withDataset = false,
): Promise<void> {
  if (pages.length === 0) return;
  const latest = new Map<string, { key: Record<string, Knex.Value>; rows: PageRows['rows'] }>();
  for (const { page, rows } of pages) {
    const key = {
      account_id: page.account_id,
      ...(withDataset ? { dataset: page.dataset } : {}),
      scope: page.scope,
      page: page.page,
    };
    const id = Object.values(key).join('\u0000');
    latest.set(id, { key, rows });
  }
  const keys = [...latest.values()].map((p) => p.key);
  const keyColumns = Object.keys(keys[0] ?? {});
  for (const chunk of bindableRuns(keys))
    await trx
      .withSchema(schema)
      .table(table)
      .whereIn(
        keyColumns,
        chunk.map((k) => Object.values(k)),
      )
      .delete();
  // in place: a copy of each row cost more than its insert
  const rows = [...latest.values()].flatMap(({ key, rows }) => rows.map((r, row) => Object.assign(r, key, { row })));
  await insertRows(trx, schema, table, rows);
}

/**
 * The same rule as a condition on one row (`page` below its scope's page count): the rows are
 * selected first and each looks its scope up by primary key, whatever the planner guesses about
 * tables it has no statistics for yet.
 */
export const inCompleteRead = (alias: string, dataset: string): string =>
  `${alias}.page < (select s.pages from rm.observed_scopes s where s.account_id = ${alias}.account_id and s.dataset = '${dataset}' and s.scope = ${alias}.scope)`;

/** The join that keeps only rows of each scope's last complete read (docs/observed-data.md). */
export const completeReads = (alias: string, dataset: string | null): string =>
  `join rm.observed_scopes s on s.account_id = ${alias}.account_id and s.dataset = ${dataset === null ? `${alias}.dataset` : `'${dataset}'`} and s.scope = ${alias}.scope and ${alias}.page < s.pages`;
