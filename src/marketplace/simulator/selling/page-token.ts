// Paging tokens are opaque to clients; the simulator keeps its cursor in them (base64url
// JSON), so serving a page never depends on state kept between requests.

export const encodeToken = (cursor: unknown): string => Buffer.from(JSON.stringify(cursor)).toString('base64url');

/** The cursor in a token, or undefined for a token this simulator did not issue. */
export function decodeToken<T>(token: string, isCursor: (value: unknown) => value is T): T | undefined {
  try {
    const value: unknown = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
    return isCursor(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/** A cursor into one marketplace's listings: the position `k` of the next item. */
export interface MarketplaceCursor {
  marketplaceId: string;
  k: number;
}
export const isMarketplaceCursor = (v: unknown): v is MarketplaceCursor =>
  typeof v === 'object' &&
  v !== null &&
  typeof (v as MarketplaceCursor).marketplaceId === 'string' &&
  Number.isInteger((v as MarketplaceCursor).k);

/** A comma-delimited array query parameter (the selling API's `collectionFormat: csv`). */
export const csv = (value: string | undefined): string[] =>
  (value ?? '')
    .split(',')
    .map((v) => v.trim())
    .filter(Boolean);
