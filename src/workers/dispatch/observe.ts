import type { Knex } from 'knex';
import { MarketplaceError } from '../../marketplace/clients/index.js';
import { ENTITY_STATES, SP_RESOURCES } from '../../marketplace/clients/ads-sp-types.js';
import { dispatchClients, type DispatchClientOptions } from './clients.js';
import { marketplaceRequest, type MarketplaceRequest, type ReceiptToSend } from './requests.js';
import type { Clients } from './send.js';
import { namedFields, patchedAttributes, showsAdsChange, showsListingPatches } from './verify.js';

// Reading a change's target back from the marketplace: what it shows now of the part the request
// names. The dispatcher reads it before sending (`prior`) and to settle a lost answer; a revert
// reads it to check the target still shows what the change set.

/**
 * Reads targets live with each account's own credentials, as the dispatcher does: whether the
 * target shows what `r` asked for, and the part `r` names as it is now.
 */
export function targetReader(o: DispatchClientOptions) {
  const { clientsFor } = dispatchClients(o);
  return async (r: ReceiptToSend & { account_id: string }): Promise<{ shows: boolean; current: unknown }> => {
    const request = marketplaceRequest(r);
    const { shows, parts } = await observe(request, await clientsFor(r, o.db as Knex));
    return { shows, current: parts };
  };
}

/** Reads back the target of a change: what it shows now, the part the request names (null: gone), and whether that is what was asked. */
export async function observe(
  request: MarketplaceRequest,
  clients: Clients,
): Promise<{ shows: boolean; observed: unknown; parts: unknown }> {
  if (request.api === 'listings') {
    return judged(request, await listingAttributes(request, clients));
  }
  return judged(request, (await listEntities(request, [entityId(request)], clients)).get(entityId(request)) ?? null);
}

/**
 * What a target as read shows of a change (a listing's attributes, or the ads entity; null: no
 * such target), however it was read: live, or from its latest observation (observed.ts).
 */
export function judged(
  request: MarketplaceRequest,
  target: Record<string, unknown> | null,
): { shows: boolean; observed: unknown; parts: unknown } {
  if (request.api === 'listings') {
    const parts = patchedAttributes(request.body, target);
    return { shows: showsListingPatches(request.body, target), observed: parts, parts };
  }
  return { shows: showsAdsChange(request, target), observed: target, parts: namedFields(request, target) };
}

/** The attributes of a patch's listing as shown now (null: no such listing). */
export async function listingAttributes(
  request: Extract<MarketplaceRequest, { api: 'listings' }>,
  clients: Clients,
): Promise<Record<string, unknown> | null> {
  try {
    return (
      (
        await clients.selling.listings.getListingsItem(clients.sellerId, request.sku, request.marketplaceId, [
          'attributes',
        ])
      ).attributes ?? {}
    );
  } catch (err) {
    if (!(err instanceof MarketplaceError && err.status === 404)) throw err;
    return null;
  }
}

/** The provider id an ads update or archive names. */
export function entityId(request: Extract<MarketplaceRequest, { api: 'sp' }>): string {
  return request.operation === 'delete' ? request.id : String(request.item[SP_RESOURCES[request.resource].idKey]);
}

/** These entities of the request's resource as listed now, by provider id; every state (an archived entity is what an archive asked for). */
export async function listEntities(
  request: Extract<MarketplaceRequest, { api: 'sp' }>,
  ids: readonly string[],
  clients: Clients,
): Promise<Map<string, Record<string, unknown>>> {
  const wire = SP_RESOURCES[request.resource];
  const { items } = await clients.ads.sp.list(request.profileId, request.resource, {
    [wire.idFilter]: { include: [...ids] },
    stateFilter: { include: [...ENTITY_STATES] },
  });
  return new Map((items as unknown as Record<string, unknown>[]).map((e) => [String(e[wire.idKey]), e]));
}
