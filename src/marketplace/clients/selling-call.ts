import { z } from 'zod';
import type { HttpRequest } from './http.js';

// What the selling API's sub-clients (listings, catalog, orders, inventory) share: one
// authorized call through the clients' one HTTP layer, token paging, and the search envelope.

export type QueryValue = string | number | boolean | readonly string[] | undefined;

/** One authorized selling API call; `query` values that are arrays go out comma-delimited. */
export type SellingCall = <T>(
  request: Omit<HttpRequest<T>, 'api' | 'url' | 'headers'> & { path: string; query?: Record<string, QueryValue> },
) => Promise<T>;

export function queryString(query: Record<string, QueryValue> = {}): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined) continue;
    params.set(key, Array.isArray(value) ? value.join(',') : String(value));
  }
  const text = params.toString();
  return text ? `?${text}` : '';
}

/** Pages of a token-paged list: `fetch(token)` returns one page's rows and the next token. */
export async function* pages<Row>(
  fetch: (token: string | undefined) => Promise<{ rows: Row[]; next: string | undefined }>,
): AsyncIterable<Row[]> {
  let token: string | undefined;
  do {
    const page = await fetch(token);
    yield page.rows;
    token = page.next || undefined;
  } while (token);
}

/** A path segment from caller data (SKUs may hold `/` or spaces). */
export const segment = (value: string): string => encodeURIComponent(value);

/** The envelope of catalog and listings searches: a count, the page tokens and one page of items. */
export const searchResultsSchema = <Item extends z.ZodType>(item: Item) =>
  z.looseObject({
    numberOfResults: z.number().int(),
    pagination: z.looseObject({ nextToken: z.string().optional(), previousToken: z.string().optional() }).optional(),
    items: z.array(item),
  });
