import type { Knex } from 'knex';
import { UUID_PATTERN } from '../domain/shared/ids.js';

/** A row of a list newest first by (time, id), as list_mutations and the console's Activity
 * timeline page it: the next page continues after it. Ids are UUIDs, ordered alike in PostgreSQL
 * and in the page. */
export interface Keyset {
  at: string;
  id: string;
}

/** Keeps `q`'s rows that come after `before` newest first by (`at`, `id`). */
export function afterKeyset<Q extends Knex.QueryBuilder>(q: Q, at: string, id: string, before?: Keyset | null): Q {
  if (before) q.whereRaw('(??, ??) < (?::timestamptz, ?::uuid)', [at, id, before.at, before.id]);
  return q;
}

/** A keyset as an opaque cursor (list_mutations' `next_cursor`, Activity's page links). */
export const encodeKeyset = (k: Keyset): string => Buffer.from(JSON.stringify([k.at, k.id])).toString('base64url');

/** The keyset of a cursor `encodeKeyset` made, or null for anything else. */
export function decodeKeyset(cursor: string): Keyset | null {
  try {
    const [at, id] = JSON.parse(Buffer.from(cursor, 'base64url').toString()) as unknown[];
    if (typeof at === 'string' && !Number.isNaN(Date.parse(at)) && typeof id === 'string' && UUID_PATTERN.test(id))
      return { at, id };
  } catch {
    // falls through: not a cursor
  }
  return null;
}
