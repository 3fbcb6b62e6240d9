import { MarketplaceError } from './errors.js';

// The Reports API's flat files: a header row of column names, then one row per record, fields
// separated by tabs, never quoted (a field holds no tab or line break). A row shorter than the
// header has empty trailing fields, as the provider trims them; a longer one is malformed.

/** The bulk reports a first sync reads: orders by purchase date, and every listing not deleted. */
export const ORDERS_REPORT = 'GET_FLAT_FILE_ALL_ORDERS_DATA_BY_ORDER_DATE_GENERAL';
export const LISTINGS_REPORT = 'GET_MERCHANT_LISTINGS_ALL_DATA';

/** Records by column name, at most `batch` at a time, as the text's chunks arrive: a report of
 * a large catalog is never whole in memory, as text or as records. */
export async function* parseFlatFile(
  chunks: AsyncIterable<string>,
  documentId: string,
  batch = 1000,
): AsyncIterable<Record<string, string>[]> {
  let columns: string[] | null = null;
  let rest = '';
  let n = 0;
  let rows: Record<string, string>[] = [];
  const take = (line: string) => {
    if (columns === null) {
      columns = line.split('\t');
      if (columns[0] === '') throw invalid(`report document ${documentId}: no header row`);
    } else if (line !== '') rows.push(rowOf(columns, line, n, documentId));
    n++;
  };
  for await (const chunk of chunks) {
    const lines = (rest + chunk).split(/\r?\n/);
    rest = lines.pop()!;
    for (const line of lines) {
      take(line);
      if (rows.length === batch) {
        yield rows;
        rows = [];
      }
    }
  }
  take(rest);
  if (rows.length > 0) yield rows;
}

function rowOf(columns: readonly string[], line: string, n: number, documentId: string): Record<string, string> {
  const fields = line.split('\t');
  if (fields.length > columns.length)
    throw invalid(`report document ${documentId}: row ${n} has ${fields.length} fields, the header ${columns.length}`);
  const row: Record<string, string> = {};
  for (let i = 0; i < columns.length; i++) row[columns[i]!] = fields[i] ?? '';
  return row;
}

const invalid = (message: string) =>
  new MarketplaceError({ status: 200, code: 'invalid_response', message, retryable: false });
