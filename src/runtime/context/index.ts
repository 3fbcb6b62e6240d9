import type { Knex } from 'knex';
import { listingId } from '../../domain/observation/ids.js';
import { DomainError } from '../../domain/shared/errors.js';
import { selectableStreamType } from '../../domain/stream/types.js';
import type { EventStore } from '../../eventstore/port.js';
import type { AccountView } from '../../projections/accounts/queries.js';
import type { ListingFacts } from '../../projections/admission/queries.js';
import { adsContext, type AdsReads } from './advertising.js';
import type { ListingMention, ListingRecord } from '../../projections/observed/listings-search.js';
import { listingContext, listingsReached, mentionsOf, readModelReads, type ListingReads } from './listing.js';
import type { ListingsTogether } from './listing-lookups.js';
import { reportContext, type ReportReads } from './report.js';
import { sellingPartnerContext } from './selling-partner.js';

// The `context` of `handle(event, context)` for each scope of spec 4.11.7, built from
// the read models in the shape the contracts publish (src/runtime/contracts/context/: the same
// field list describe_stream_type answers; test/runtime/context.test.ts holds every scope's
// context against it). Money is in major units.
//
// What callers get:
// - one `{ listing, context }` per listing of the account a Listing-scope event reached (by SKU
//   or ASIN and marketplace in the payload; a region-wide FBA inventory event reaches one listing
//   per marketplace); `listingId` narrows it to that listing;
// - one `{ context }` for the other scopes: the account's selling connection, the campaign (or
//   portfolio) an advertising message names in the account's profile of its marketplace, or the
//   report receipt a report completion names (report.ts);
// - `[]` when the event reached nothing: no listing of the account (or not `listingId`), no
//   profile of the account in the message's marketplace, no campaign named, or no selling
//   connection. run_automation answers `event_not_replayable` then; a live run runs nothing.
// The contexts carry no `mutations`, `webhooks` or `store`: the sandbox adds those three.

export interface ContextRequest {
  db: Knex;
  /** where block flags are read; null (the demo, which records none): nothing is blocked */
  store: EventStore | null;
  account: AccountView;
  streamType: string;
  /** the event payload as the marketplace sent it (a replayed event's, or a fabricated one) */
  event: Record<string, unknown>;
  /** only this listing's context (run_automation's `listing_id`) */
  listingId?: string;
  now?: Date;
  /** a backtest's: what the contexts read as the account's log had it at the event's time, instead of the read models */
  past?: PastReads;
  /** the live reactor's batch: the listings the event reached, read with the batch's others (listingsReachedTogether) */
  reached?: Promise<ListingRecord[]>;
  /** the live reactor's batch: the reached listings' own lookups, read with the batch's others (readListingsTogether) */
  together?: Promise<ListingsTogether>;
}

/**
 * The account as of a past moment: which listings an event reached then and what their contexts
 * read, what an advertising context reads and what a report context selects from.
 */
export interface PastReads {
  reached(mentions: readonly ListingMention[]): ListingRecord[];
  reads: ListingReads;
  ads: AdsReads;
  report: ReportReads;
}

export interface BuiltContext {
  /** the listing the context is about, as the context read it (Listing scope only): what the run's
   * actions and a listing_required answer show of it, with no second read */
  listing?: ListingFacts;
  context: Record<string, unknown>;
}

export async function buildContexts(request: ContextRequest): Promise<BuiltContext[]> {
  const type = selectableStreamType(request.streamType);
  if (!type?.scope)
    throw new DomainError('unknown_stream_type', `stream_type: no automation can select '${request.streamType}'`, {
      argument: 'stream_type',
    });
  const { account } = request;
  const now = request.now ?? new Date();
  const run = { ...request, account, now };
  switch (type.scope) {
    case 'Listing': {
      const wanted = request.listingId?.toLowerCase();
      const built: BuiltContext[] = [];
      const reached = request.past
        ? request.past.reached(mentionsOf(run))
        : await (request.reached ?? listingsReached(run));
      for (const record of reached) {
        const id = listingId(account.id, record.marketplace_id, record.sku);
        if (wanted === undefined || id === wanted)
          built.push({
            listing: {
              id,
              account_id: account.id,
              asin: record.asin,
              sku: record.sku,
              marketplace_id: record.marketplace_id,
              title: record.title,
            },
            context: await listingContext(run, record, request.past?.reads ?? readModelReads(run, request.together)),
          });
      }
      return built;
    }
    case 'Report': {
      const context = await reportContext(run, request.past?.report);
      return context ? [{ context }] : [];
    }
    case 'SellingPartner': {
      const context = sellingPartnerContext(account);
      return context ? [{ context }] : [];
    }
    default: {
      const context = await adsContext(run, request.past?.ads);
      return context ? [{ context }] : [];
    }
  }
}
