import type { Knex } from 'knex';

/** A row of a list newest first by (time, id), as the console's Activity timeline pages: the
 * next page continues after it. Ids are UUIDs, ordered alike in PostgreSQL and in the page. */
export interface Keyset {
  at: string;
  id: string;
}

/** Keeps `q`'s rows that come after `before` newest first by (`at`, `id`). */
export function afterKeyset<Q extends Knex.QueryBuilder>(q: Q, at: string, id: string, before?: Keyset | null): Q {
  if (before) q.whereRaw('(??, ??) < (?::timestamptz, ?::uuid)', [at, id, before.at, before.id]);
  return q;
}
