import type { Knex } from '../infra/db.js';
import { DomainError } from '../domain/shared/errors.js';
import { UUID_PATTERN } from '../domain/shared/ids.js';
import { marketplaceById } from '../domain/shared/marketplaces.js';
import { connectionFor, type StreamType } from '../domain/stream/types.js';
import type { AccountView } from '../projections/accounts/queries.js';
import { listingFacts } from '../projections/admission/queries.js';
import { listingId as listingIdOf } from '../domain/observation/ids.js';
import { findEvent } from '../projections/events/queries.js';
import { searchListings, type ListingRecord } from '../projections/observed/listings-search.js';
import { reaches } from '../runtime/context/listing.js';
import { eventFixture } from '../runtime/contracts/index.js';
import { SAMPLE } from '../runtime/contracts/events/envelope.js';

// The event a dry run replays (spec 4.4): a recorded one (`event_id`), the caller's own
// (`sample_event`, naming connected marketplaces only), or the type's canned sample, which is
// the describe_stream_type fixture made the caller's: its sample listing, marketplace, seller
// and currency become the account's, so the default input reaches a context instead of nothing.

export interface DryRunEvent {
  id: string | null;
  payload: Record<string, unknown>;
  /** the listing a canned Listing-scope sample names (its ASIN may name the account's other SKUs too) */
  listingId?: string;
  /** that listing when the sample was made from its row: [] or [the row] as the event reaches it, read no second time */
  reached?: ListingRecord[];
}

/** A recorded event of the accounts, of the given type (when known), that a run can replay. */
export async function recordedEvent(
  db: Knex,
  accounts: readonly AccountView[],
  eventId: string,
): Promise<{ event: DryRunEvent; account: AccountView; stream_type: string }> {
  const where = accounts.length === 1 ? `account ${accounts[0]!.id} (${accounts[0]!.name})` : 'your accounts';
  const missing = new DomainError(
    'event_not_found',
    `event_id: no event '${eventId}' on ${where} (events expire 1 month after receipt)`,
    { argument: 'event_id' },
  );
  if (!UUID_PATTERN.test(eventId)) throw missing;
  const found = await findEvent(
    db,
    accounts.map((a) => a.id),
    eventId.toLowerCase(),
  );
  if (!found) throw missing;
  if (found.synthetic || !found.stream_type || !isRecord(found.payload))
    throw new DomainError(
      'event_not_replayable',
      `event_id: '${eventId}' is the service's own record (${found.synthetic_kind ?? 'no marketplace message'}), not a marketplace event an automation runs on`,
      { argument: 'event_id' },
    );
  return {
    event: { id: found.id, payload: found.payload },
    account: accounts.find((a) => a.id === found.account_id)!,
    stream_type: found.stream_type,
  };
}

/** The marketplaces the account can run the type in: its selling marketplaces, or its advertising profiles'. */
export function runnableMarketplaces(account: AccountView, type: StreamType): string[] {
  return connectionFor(type) === 'ads'
    ? (account.ads?.profiles.map((p) => p.marketplace_id) ?? [])
    : (account.selling?.marketplaces.map((m) => m.marketplace_id) ?? []);
}

/** Every marketplace id the payload names (keys marketplaceId, MarketplaceId, marketplace_id, marketplaceIds), in order. */
export function marketplacesNamed(value: unknown, found: string[] = [], depth = 0): string[] {
  if (depth > 32 || value === null || typeof value !== 'object') return found;
  if (Array.isArray(value)) {
    for (const item of value) marketplacesNamed(item, found, depth + 1);
    return found;
  }
  for (const [key, v] of Object.entries(value)) {
    const name = key.toLowerCase().replace(/_/g, '');
    const ids = name === 'marketplaceid' ? [v] : name === 'marketplaceids' && Array.isArray(v) ? v : [];
    for (const id of ids) if (typeof id === 'string' && !found.includes(id)) found.push(id);
    marketplacesNamed(v, found, depth + 1);
  }
  return found;
}

/**
 * The account a fabricated event runs on: the first of `candidates` that can run the type in every
 * marketplace the event names. None: `invalid`, naming the marketplaces that are connected.
 */
export function accountForSample(
  candidates: readonly AccountView[],
  type: StreamType,
  sample: Record<string, unknown>,
): AccountView {
  const named = marketplacesNamed(sample);
  const fits = candidates.find((a) => named.every((m) => runnableMarketplaces(a, type).includes(m)));
  if (fits) return fits;
  const connected = [...new Set(candidates.flatMap((a) => runnableMarketplaces(a, type)))];
  const wrong = named.filter((m) => !connected.includes(m));
  throw new DomainError(
    'invalid',
    `sample_event: marketplace ${(wrong.length > 0 ? wrong : named).map((m) => `'${m}'`).join(', ')} is not a connected marketplace of ${
      candidates.length === 1 ? `account ${candidates[0]!.id}` : 'one account of yours'
    } for ${type.code}; set marketplaceId to one of: ${connected.join(', ') || '(none connected)'}`,
    { argument: 'sample_event', connected_marketplaces: connected },
  );
}

/**
 * The canned sample of the type (the describe_stream_type fixture) made the account's: for a
 * Listing-scope type, naming `listingId` (or the account's newest listing); otherwise naming a
 * marketplace the account runs the type in. Null when a Listing-scope account has no such listing.
 */
export async function cannedSample(
  db: Knex,
  account: AccountView,
  type: StreamType,
  listingId: string | undefined,
): Promise<DryRunEvent | null> {
  const fixture = eventFixture(type.code)!;
  const marketplaces = runnableMarketplaces(account, type);
  const swaps = new Map<string, string>();
  let listingOf: (() => string) | null = null;
  let record: ListingRecord | undefined;
  let marketplace = marketplaces.includes(SAMPLE.marketplaceId) ? SAMPLE.marketplaceId : (marketplaces[0] ?? null);
  if (type.scope === 'Listing') {
    const listing = listingId
      ? (await listingFacts(db, account.id, [listingId.toLowerCase()])).get(listingId.toLowerCase())
      : (record = (await searchListings(db, { account_ids: [account.id], limit: 1 })).rows[0]);
    if (!listing) return null;
    listingOf = () => listingIdOf(account.id, listing.marketplace_id, listing.sku);
    marketplace = listing.marketplace_id;
    swaps.set(SAMPLE.sku, listing.sku);
    if (listing.asin) swaps.set(SAMPLE.asin, listing.asin);
    if (listing.title) swaps.set(SAMPLE.title, listing.title);
  }
  if (marketplace) {
    swaps.set(SAMPLE.marketplaceId, marketplace);
    const currency = marketplaceById(marketplace)?.currency;
    if (currency) swaps.set(SAMPLE.currency, currency);
  }
  if (connectionFor(type) === 'selling' && account.selling) swaps.set(SAMPLE.sellerId, account.selling.provider_id);
  const payload = swapped(fixture, swaps) as Record<string, unknown>;
  if (!listingOf) return { id: null, payload };
  const reached = record && (reaches({ streamType: type.code, event: payload }, record) ? [record] : []);
  return { id: null, payload, listingId: listingOf(), ...(reached ? { reached } : {}) };
}

/** The value with every string equal to a key of `swaps` replaced by its value. */
function swapped(value: unknown, swaps: ReadonlyMap<string, string>): unknown {
  if (typeof value === 'string') return swaps.get(value) ?? value;
  if (Array.isArray(value)) return value.map((v) => swapped(v, swaps));
  if (isRecord(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, swapped(v, swaps)]));
  return value;
}

const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
