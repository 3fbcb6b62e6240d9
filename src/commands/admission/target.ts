import type { Knex } from 'knex';
import { foreignMarketplaceSelector, isQualifiedAction } from '../../domain/admission/rules.js';
import { decide } from '../../domain/mutation/decide.js';
import type { CausedBy, Via } from '../../domain/mutation/events.js';
import { ACTIONS, allowedActions, TARGET_TYPES, type Action, type TargetType } from '../../domain/mutation/payloads.js';
import { initialState } from '../../domain/mutation/state.js';
import { listingId } from '../../domain/observation/ids.js';
import { DomainError } from '../../domain/shared/errors.js';
import { newOrderedId, UUID_PATTERN } from '../../domain/shared/ids.js';
import type { EventStore } from '../../eventstore/port.js';
import type { AccountView } from '../../projections/accounts/queries.js';
import type { CurrentListing } from '../../projections/admission/queries.js';
import type { AdmissionLookups } from './lookups.js';
import type { Admit } from './receipts.js';
import { readFlagsEarly, withheldReason } from '../dispatch-control/execute.js';
import { deletedListingDetail } from '../mutation/deleted-listing.js';
import { nativeAction } from '../mutation/qualified-action.js';

// One request of a call, resolved to a target on one of the caller's accounts (local id → provider
// ids of it and its parents) and checked: the AdmitMutation command it becomes, or its refusal.

export interface MutationRequest {
  target: { type: string; id: string };
  action: string;
  payload: Record<string, unknown>;
  /** a revert's: the receipt whose change it undoes (its `caused_by`) */
  reverts?: string;
}

export type Prepared = { command: Admit } | { error: DomainError };

const fail = (
  code: DomainError['code'],
  detail: string,
  extra: Record<string, unknown> = {},
): { error: DomainError } => ({ error: new DomainError(code, detail, extra) });

/** Resolves and checks one request; never throws for the request's own faults. */
export async function prepareRequest({
  reads,
  lookups,
  store,
  accounts,
  account: confinedTo,
  request: given,
  index,
  idempotency,
  caused_by,
  via,
  now,
}: {
  /** the catalog (a qualified action's operation) */
  reads: Knex;
  /** targets, products */
  lookups: AdmissionLookups;
  /** where flags are read; null: nothing is withheld (the demo records no flags) */
  store: EventStore | null;
  /** every account of the caller (targets are looked up among them) */
  accounts: readonly AccountView[];
  /** the account the target must be on; undefined: the one it belongs to */
  account: AccountView | undefined;
  request: MutationRequest;
  index: number;
  idempotency: Admit['idempotency'];
  /** the automation run admitting it; null for a tool call */
  caused_by: CausedBy | null;
  /** the client or token of the tool call admitting it */
  via: Via | undefined;
  now: Date;
}): Promise<Prepared> {
  const at = `mutations[${index}]`;
  // a qualified catalog action becomes the spec 4.8 action it carries out
  const native = isQualifiedAction(given.action) ? await nativeAction(reads, given, at) : { request: given };
  if ('error' in native) return native;
  const m = native.request;
  const type = m.target.type as TargetType;
  if (!TARGET_TYPES.includes(type))
    return fail(
      'invalid',
      `${at}.target.type: '${m.target.type}' is not a target type; one of ${TARGET_TYPES.join(', ')}`,
      { argument: `${at}.target.type` },
    );
  const action = m.action as Action;
  if (!ACTIONS.includes(action))
    return fail('invalid', `${at}.action: '${m.action}' is not an action; one of ${ACTIONS.join(', ')}`, {
      argument: `${at}.action`,
    });
  const allowed = allowedActions(type);
  if (!allowed.includes(action)) {
    return fail(
      'invalid',
      `${at}.action: ${action} does not apply to a ${type} target; ${allowed.length ? `it takes ${allowed.join(', ')}` : 'it takes none of the six actions'}`,
      { argument: `${at}.action`, allowed_actions: allowed },
    );
  }
  const target = { type, id: m.target.id.trim().toLowerCase() };
  // the flags of the listings known already (a Listing target, a run's own listing), read beside the lookup
  const early = store
    ? readFlagsEarly(store, [
        ...(type === 'Listing' && UUID_PATTERN.test(target.id) ? [target.id] : []),
        ...(caused_by?.listing_id ? [caused_by.listing_id] : []),
      ])
    : undefined;
  const resolved = await lookups.resolveTarget(
    accounts.map((a) => a.id),
    target,
  );
  if (!resolved)
    return fail(
      'target_not_found',
      `${at}.target: no ${type} with id '${m.target.id}' on your accounts (use an id from list_listings or list_ads_entities)`,
      { argument: `${at}.target` },
    );
  // the request is written on the account its target belongs to
  const account = accounts.find((a) => a.id === resolved.account_id)!;
  if (confinedTo && account.id !== confinedTo.id) {
    return fail(
      'scope_mismatch',
      `${at}.target: the ${type} '${target.id}' belongs to account ${account.id} (${account.name}), not to account ${confinedTo.id} (${confinedTo.name}) this call writes to`,
      { argument: `${at}.target` },
    );
  }
  if (resolved.facts.deleted)
    return fail('invalid', deletedListingDetail(`${at}.target`, resolved.facts.deleted), {
      argument: `${at}.target`,
      status: 'DELETED',
    });
  const provider = { ...resolved.provider };
  if (type === 'Listing' && account.selling) provider.sellerId = account.selling.provider_id;
  // a listing-triggered run's requests are its listing's changes: its block flag holds them all
  if (caused_by?.listing_id && !(type === 'Listing' && target.id === caused_by.listing_id))
    provider.sourceListingId = caused_by.listing_id;
  const command: Admit = {
    type: 'AdmitMutation',
    receipt_id: newOrderedId(),
    account_id: account.id,
    target,
    provider,
    action,
    payload: m.payload,
    idempotency,
    created_at: now.toISOString(),
    blocked: null,
    ...(caused_by ? { caused_by } : given.reverts ? { caused_by: { reverts: given.reverts } } : {}),
    ...(via ? { via } : {}),
    // the key it was queued as: list_mutations' `operation` finds it by that too
    ...(isQualifiedAction(given.action) ? { operation: given.action } : {}),
  };
  try {
    decide(command, initialState());
  } catch (err) {
    if (!(err instanceof DomainError)) throw err;
    const argument = typeof err.extra.argument === 'string' ? `${at}.${err.extra.argument}` : at;
    return { error: new DomainError(err.code, `${at}.${err.detail}`, { ...err.extra, argument }) };
  }
  // an ad's requests are its listing's advertising changes (spec 3.5): that listing's flag holds them too
  const advertised =
    type === 'Ad'
      ? resolved.facts.advertised
      : action === 'create_ad'
        ? { sku: (m.payload.sku as string | undefined) ?? null, asin: (m.payload.asin as string | undefined) ?? null }
        : undefined;
  const listing = advertised ? await lookups.advertisedListing(account.id, provider.marketplaceId!, advertised) : null;
  const refusal = await rulesBeyondSchema({ lookups, account, command, facts: { ...resolved.facts, listing } });
  if (refusal)
    return {
      error: new DomainError(refusal.code, `${at}.${refusal.detail}`, {
        argument: `${at}.${refusal.extra.argument as string}`,
      }),
    };
  const admitted = listing
    ? {
        ...command,
        provider: { ...provider, listingId: listingId(listing.account_id, listing.marketplace_id, listing.sku) },
      }
    : command;
  // a blocked listing or a campaign with its Automation switch off: recorded, never sent (spec 3.3);
  // the demo records no flags, so nothing is withheld there
  return { command: { ...admitted, blocked: store && (await withheldReason(store, admitted, early)) } };
}

/** What the payload schemas and decide can't check alone: selectors against the listing, the account's ads connection and products, exclusions (spec 4.5, 4.12.5). */
async function rulesBeyondSchema({
  lookups,
  account,
  command: c,
  facts,
}: {
  lookups: AdmissionLookups;
  account: AccountView;
  command: Admit;
  facts: { negative?: boolean; listing: CurrentListing | null };
}): Promise<DomainError | null> {
  const p = c.payload;
  const foreign = c.target.type === 'Listing' ? foreignMarketplaceSelector(p, c.provider.marketplaceId!) : null;
  if (foreign) {
    return new DomainError(
      'scope_mismatch',
      `${foreign.path}: '${foreign.given}' is not the listing's marketplace ${c.provider.marketplaceId}`,
      { argument: foreign.path },
    );
  }
  if (c.action === 'create_campaign' && !account.ads?.connected) {
    return new DomainError(
      'not_connected',
      `payload: creating a campaign needs an authorized advertising connection; account ${account.id} (${account.name}) has none`,
      { argument: 'payload' },
    );
  }
  if (c.action === 'create_ad') {
    const product = p.sku !== undefined ? { sku: p.sku as string } : { asin: p.asin as string };
    // a SKU is the account's when it names a current listing there (found above for the ad's block flag)
    if (
      !('sku' in product
        ? facts.listing !== null
        : await lookups.hasAsin(account.id, c.provider.marketplaceId!, product.asin))
    ) {
      const [key, value] = Object.entries(product)[0]!;
      return new DomainError(
        'invalid',
        `payload.${key}: the account has no ${key.toUpperCase()} '${value}' in the profile's marketplace ${c.provider.marketplaceId}; an advertised product must be one it already has there`,
        { argument: `payload.${key}` },
      );
    }
  }
  if (c.action === 'update' && c.target.type === 'Target' && facts.negative && p.bid !== undefined) {
    return new DomainError('invalid', 'payload.bid: the target is an exclusion (negative), which takes no bid', {
      argument: 'payload.bid',
    });
  }
  return null;
}
