import type { Knex } from 'knex';
import type { TargetReads } from '../../commands/revert/revert.js';
import { streamName } from '../../commands/shared/handler.js';
import { LISTINGS_DATASET, SP_ENTITY_DATASETS } from '../../domain/observation/datasets.js';
import { observationDecider, pageStreamId } from '../../domain/observation/decide.js';
import type { ObservationKey } from '../../domain/observation/events.js';
import type { EventStore } from '../../eventstore/port.js';
import { SP_RESOURCES, type SpResource } from '../../marketplace/clients/ads-sp-types.js';
import { ADS_TABLES } from '../../projections/observed/ads.js';
import { completeReads, pageOf } from '../../projections/observed/economics-support.js';
import { CURRENT_LISTINGS_TABLE } from '../../projections/observed/listings.js';
import { READ_MODEL_SCHEMA } from '../../projections/projection.js';
import type { DispatchClientOptions } from './clients.js';
import { entityId, judged, targetReader } from './observe.js';
import { marketplaceRequest, type MarketplaceRequest, type ReceiptToSend } from './requests.js';

// A change's target as its latest observation shows it (docs/decisions/125-revert.md), for a
// revert whose live read is unavailable: the read models say which observed page holds the
// target (its scope's last complete read), and that page's latest recorded event gives both the
// target and when it was read. Both from one event: a read model that lags the log can't pass
// an older row off as read at a later time.

/** The observed page that holds the target in the read models, or null when none does. */
async function pageHolding(
  db: Knex,
  account_id: string,
  target_id: string,
  request: MarketplaceRequest,
): Promise<{ key: ObservationKey; page: number } | null> {
  if (request.api === 'listings') {
    const row: { scope: string; page: number } | undefined = await db
      .withSchema(READ_MODEL_SCHEMA)
      .table(CURRENT_LISTINGS_TABLE)
      .where({ account_id, marketplace_id: request.marketplaceId, sku: request.sku })
      .first('scope', 'page');
    return row ? { key: { account_id, dataset: LISTINGS_DATASET, scope: row.scope }, page: row.page } : null;
  }
  const dataset = SP_ENTITY_DATASETS[request.resource];
  const table = ENTITY_TABLES[request.resource] ?? ADS_TABLES.targets;
  const { rows } = (await db.raw(
    `select e.scope, e.page from ${READ_MODEL_SCHEMA}.${table} e ${completeReads('e', dataset)}
     where e.account_id = ? and e.id = ?${table === ADS_TABLES.targets ? ' and e.dataset = ?' : ''}
     order by e.page desc limit 1`,
    [account_id, target_id, ...(table === ADS_TABLES.targets ? [dataset] : [])],
  )) as { rows: Array<{ scope: string; page: number }> };
  return rows[0] ? { key: { account_id, dataset, scope: rows[0].scope }, page: rows[0].page } : null;
}

/** The ads tables of the resources that have one of their own; keywords, targets and exclusions share ads_targets. */
const ENTITY_TABLES: Partial<Record<SpResource, string>> = {
  campaigns: ADS_TABLES.campaigns,
  adGroups: ADS_TABLES.adGroups,
  productAds: ADS_TABLES.productAds,
};

/**
 * Reads targets from their latest observation: whether it shows what `r` asked for, the part `r`
 * names, and when it was observed; null when no observation holds the target.
 */
export function targetObservation(db: Knex, store: EventStore) {
  return async (
    r: ReceiptToSend & { account_id: string },
  ): Promise<{ shows: boolean; current: unknown; observed_at: string } | null> => {
    const request = marketplaceRequest(r);
    const held = await pageHolding(db, r.account_id, r.target.id, request);
    if (!held) return null;
    const recorded = await store.readStream(
      streamName(observationDecider.aggregate, pageStreamId(held.key, held.page)),
    );
    const page = recorded.length ? pageOf(recorded[recorded.length - 1]!, [held.key.dataset]) : null;
    const target = page && found(request, page.rows);
    if (!page || !target) return null;
    const { shows, parts } = judged(request, target);
    return { shows, current: parts, observed_at: page.observed_at };
  };
}

/** The target among a page's rows as the sync recorded them (a listing: its attributes), or null. */
function found(request: MarketplaceRequest, rows: readonly unknown[]): Record<string, unknown> | null {
  const items = rows as Array<Record<string, unknown>>;
  if (request.api === 'listings') {
    const item = items.find((i) => i.sku === request.sku);
    return item ? ((item.attributes as Record<string, unknown> | undefined) ?? {}) : null;
  }
  const idKey = SP_RESOURCES[request.resource].idKey;
  return items.find((e) => String(e[idKey]) === entityId(request)) ?? null;
}

/**
 * How a revert reads its targets: live with the accounts' own credentials, as the dispatcher does
 * (or, `unavailable`, why it can't: the demo, a server without marketplace access), and from their
 * latest observation (none without the event store).
 */
export function revertReads(
  db: Knex,
  store: EventStore | undefined,
  live: Omit<DispatchClientOptions, 'db'> | { unavailable: string },
): TargetReads {
  return {
    live: 'unavailable' in live ? () => Promise.reject(new Error(live.unavailable)) : targetReader({ db, ...live }),
    observed: store ? targetObservation(db, store) : () => Promise.resolve(null),
  };
}
