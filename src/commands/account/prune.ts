import { accountDecider } from '../../domain/account/decide.js';
import { rawDataKeptUntil } from '../../domain/account/raw-data.js';
import { observationDecider, pageStreamId, scopeStreamId } from '../../domain/observation/decide.js';
import type { ObservationKey } from '../../domain/observation/events.js';
import type { EventStore } from '../../eventstore/port.js';
import type { Knex } from '../../infra/db.js';
import { inactiveConnections } from '../../projections/accounts/queries.js';
import { deleteRawRows, rawScopes } from '../../projections/accounts/retention.js';
import { aggregateStream, streamName } from '../shared/handler.js';

// Retention (spec 8): the raw provider data of an inactive connection (the seller's listings,
// inventory and catalog items; the advertiser's Sponsored Products entities) is kept 30 days from
// the day it went inactive. Then its observation streams (every page and the scope's completions)
// leave the log, and every read-model row they made goes after them, so a run cut short leaves
// rows the next run finds again. The account, its connections and what spec 8 keeps without a
// limit (orders, economics, search query, vendor and daily advertising metrics) stay; a
// reconnection stops the clock, and the syncs then read everything again.

const observationStream = (id: string) => streamName(observationDecider.aggregate, id);

/**
 * Deletes the scope's page streams and its completions. Pages are numbered from 0 and a read
 * records them in order, so the streams that exist are the pages below the most any read had:
 * those beyond what the read models know are found by reading on until one is missing. Deleted
 * from the last page down, so a run cut short leaves the first pages, which the rows still name.
 */
async function deleteScopeStreams(store: EventStore, key: ObservationKey, knownPages: number): Promise<void> {
  let pages = knownPages;
  while ((await store.readStream(observationStream(pageStreamId(key, pages)), { maxCount: 1 })).length > 0) pages++;
  for (let page = pages - 1; page >= 0; page--) await store.deleteStream(observationStream(pageStreamId(key, page)));
  await store.deleteStream(observationStream(scopeStreamId(key)));
}

/** Prunes the raw provider data of every connection inactive since over 30 days before `now`
 * (counted from the start of that day); returns how many scopes went. */
export async function pruneInactiveRawData(db: Knex, store: EventStore, now: Date): Promise<number> {
  let pruned = 0;
  for (const { account_id, connection, since } of await inactiveConnections(db)) {
    if (now < rawDataKeptUntil(since)) continue;
    // the account's own stream says whether it is still inactive since then (the read model may lag a reconnection)
    const inactive = (await aggregateStream(store, accountDecider, account_id)).state[connection]?.inactive;
    if (!inactive || now < rawDataKeptUntil(inactive.at)) continue;
    const scopes = await rawScopes(db, account_id, connection);
    for (const { dataset, scope, pages } of scopes)
      await deleteScopeStreams(store, { account_id, dataset, scope }, pages);
    if (scopes.length > 0) await deleteRawRows(db, account_id, connection);
    pruned += scopes.length;
  }
  return pruned;
}
