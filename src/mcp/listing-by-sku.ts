import type { Knex } from 'knex';
import { DomainError } from '../domain/shared/errors.js';
import type { AccountView } from '../projections/accounts/queries.js';
import { deletedListingDetail } from '../commands/mutation/deleted-listing.js';
import { listingsBySku, type CurrentListing } from '../projections/admission/queries.js';

/**
 * The account's current listing with this SKU (spec 4.5): `marketplace_id` is needed only when
 * the SKU sells in several marketplaces (`ambiguous_sku`); none is `listing_not_found`. A
 * listing the marketplace reports DELETED is shown by list_listings but sells nowhere and takes
 * no changes: it is refused as `invalid`, saying so.
 */
export async function listingBySku(
  db: Knex,
  account: AccountView,
  sku: string,
  marketplaceId: string | undefined,
): Promise<CurrentListing> {
  const found = await listingsBySku(db, account.id, sku);
  const selling = found.filter((l) => l.status !== 'DELETED');
  const listing =
    marketplaceId === undefined ? (selling[0] ?? found[0]) : found.find((l) => l.marketplace_id === marketplaceId);
  if (!listing) {
    const where =
      marketplaceId === undefined
        ? ''
        : ` in marketplace ${marketplaceId}${found.length ? ` (it sells in ${found.map((l) => l.marketplace_id).join(', ')})` : ''}`;
    throw new DomainError(
      'listing_not_found',
      `sku: account ${account.id} (${account.name}) has no listing with SKU '${sku}'${where}`,
      { argument: 'sku' },
    );
  }
  if (listing.status === 'DELETED')
    throw new DomainError('invalid', deletedListingDetail('sku', listing), { argument: 'sku', status: 'DELETED' });
  if (marketplaceId === undefined && selling.length > 1) {
    throw new DomainError(
      'ambiguous_sku',
      `sku: '${sku}' sells in ${selling.length} marketplaces (${selling.map((l) => l.marketplace_id).join(', ')}); pass marketplace_id`,
      {
        argument: 'marketplace_id',
        marketplace_ids: selling.map((l) => l.marketplace_id),
      },
    );
  }
  return listing;
}
