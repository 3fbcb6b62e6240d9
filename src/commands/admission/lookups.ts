import type { Knex } from 'knex';
import type { TargetType } from '../../domain/mutation/payloads.js';
import { sameTurn } from '../../infra/same-turn.js';
import {
  admissionsPaused,
  advertisedListing,
  hasAsin,
  resolveListings,
  resolveTarget,
  type CurrentListing,
  type ResolvedTarget,
} from '../../projections/admission/queries.js';

// What admission looks up about the world (targets, the products an ad may name, the operator's
// switch): an interface, so a backtest can decide against the log as it stood at an event's time
// (runtime/backtest/lookups.ts) where live and dry runs read today's read models.

export interface AdmissionLookups {
  resolveTarget(
    accountIds: readonly string[],
    target: { type: TargetType; id: string },
  ): Promise<ResolvedTarget | null>;
  advertisedListing(
    account_id: string,
    marketplace_id: string,
    product: { sku: string | null; asin: string | null },
  ): Promise<CurrentListing | null>;
  hasAsin(account_id: string, marketplace_id: string, asin: string): Promise<boolean>;
  paused(): Promise<{ disabled: boolean; reason: string | null }>;
}

/**
 * The read models' answers for calls decided side by side (admitTogether): the operator's switch
 * read once for them all, and their Listing targets resolved in one statement per turn (sameTurn).
 */
export function lookupsTogether(reads: Knex): AdmissionLookups {
  const each = readModelLookups(reads);
  let paused: ReturnType<AdmissionLookups['paused']> | undefined;
  const listings = new Map<string, (id: string) => Promise<ResolvedTarget | null>>();
  return {
    ...each,
    paused: () => (paused ??= each.paused()),
    resolveTarget(accountIds, target) {
      if (target.type !== 'Listing') return each.resolveTarget(accountIds, target);
      const key = [...accountIds].sort().join(' ');
      if (!listings.has(key))
        listings.set(
          key,
          sameTurn((ids) => resolveListings(reads, accountIds, ids)),
        );
      return listings.get(key)!(target.id);
    },
  };
}

/** The read models' answers (on the pool or a transaction). */
export const readModelLookups = (reads: Knex): AdmissionLookups => ({
  resolveTarget: (accountIds, target) => resolveTarget(reads, accountIds, target),
  advertisedListing: (account_id, marketplace_id, product) =>
    advertisedListing(reads, account_id, marketplace_id, product),
  hasAsin: (account_id, marketplace_id, asin) => hasAsin(reads, account_id, marketplace_id, asin),
  paused: () => admissionsPaused(reads),
});

/**
 * Lookups that read each answer once, so a caller can ask ahead for what admission will ask (a
 * dry run: the operator's switch and its own listing, read while the handler runs).
 */
export function lookupsOnce(each: AdmissionLookups): AdmissionLookups {
  const answers = new Map<string, Promise<unknown>>();
  const once = <T>(key: unknown[], read: () => Promise<T>): Promise<T> => {
    const k = JSON.stringify(key);
    if (!answers.has(k)) {
      const answer = read();
      answer.catch(() => undefined); // an answer asked ahead may go unused; admission sees its failure
      answers.set(k, answer);
    }
    return answers.get(k) as Promise<T>;
  };
  return {
    resolveTarget: (accountIds, target) =>
      once(['target', accountIds, target.type, target.id], () => each.resolveTarget(accountIds, target)),
    advertisedListing: (account_id, marketplace_id, product) =>
      once(['advertised', account_id, marketplace_id, product.sku, product.asin], () =>
        each.advertisedListing(account_id, marketplace_id, product),
      ),
    hasAsin: (account_id, marketplace_id, asin) =>
      once(['asin', account_id, marketplace_id, asin], () => each.hasAsin(account_id, marketplace_id, asin)),
    paused: () => once(['paused'], () => each.paused()),
  };
}
