import { MarketplaceError } from './errors.js';

// The Reports API's flat files: a header row of column names, then one row per record, fields
// separated by tabs, never quoted (a field holds no tab or line break). A row shorter than the
// header has empty trailing fields, as the provider trims them; a longer one is malformed.

/** The bulk reports a first sync reads: orders by purchase date, and every listing not deleted. */
export const ORDERS_REPORT = 'GET_FLAT_FILE_ALL_ORDERS_DATA_BY_ORDER_DATE_GENERAL';
export const LISTINGS_REPORT = 'GET_MERCHANT_LISTINGS_ALL_DATA';

export function parseFlatFile(text: string, documentId: string): Record<string, string>[] {
  const lines = text.split(/\r?\n/);
  const columns = lines[0]!.split('\t');
  if (columns.length === 0 || columns[0] === '') throw invalid(`report document ${documentId}: no header row`);
  const rows: Record<string, string>[] = [];
  for (let n = 1; n < lines.length; n++) {
    const line = lines[n]!;
    if (line === '') continue;
    const fields = line.split('\t');
    if (fields.length > columns.length)
      throw invalid(
        `report document ${documentId}: row ${n} has ${fields.length} fields, the header ${columns.length}`,
      );
    const row: Record<string, string> = {};
    for (let i = 0; i < columns.length; i++) row[columns[i]!] = fields[i] ?? '';
    rows.push(row);
  }
  return rows;
}

const invalid = (message: string) =>
  new MarketplaceError({ status: 200, code: 'invalid_response', message, retryable: false });
