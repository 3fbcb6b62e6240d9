import type { Knex } from 'knex';
import { READ_MODEL_SCHEMA } from '../../projections/projection.js';
import { DISPATCH_CONTROLS_TABLE } from '../../projections/dispatch-controls/projection.js';
import { adsEntityId } from '../../projections/observed/ads-datasets.js';
import type { DispatchReceipt } from './receipts.js';

export interface Withheld {
  reason: 'listing_blocked' | 'automation_switch_off';
  message: string;
}

/**
 * Why this receipt must not be sent now, or null (spec 3.4, 3.5): its listing is blocked (a
 * Listing target, or the listing an ads request was made for, provider id `listingId`), or the
 * campaign it touches has its Automation switch off. Checked under the target lock just before
 * sending; a later unblock never releases a receipt blocked here.
 */
export async function withheldReason(db: Knex, r: DispatchReceipt): Promise<Withheld | null> {
  const listings = [...(r.target.type === 'Listing' ? [r.target.id] : []), ...(r.provider.listingId ? [r.provider.listingId] : [])];
  const campaign =
    r.target.type === 'Campaign' ? r.target.id : r.provider.campaignId && r.provider.profileId ? adsEntityId('campaign', r.account_id, r.provider.profileId, r.provider.campaignId) : null;
  if (listings.length === 0 && campaign === null) return null;
  const rows: { target_type: string; target_id: string }[] = await db
    .withSchema(READ_MODEL_SCHEMA)
    .table(DISPATCH_CONTROLS_TABLE)
    .where({ withheld: true })
    .andWhere((q) => {
      if (listings.length) q.orWhere((w) => w.where({ target_type: 'Listing' }).whereIn('target_id', listings));
      if (campaign) q.orWhere({ target_type: 'Campaign', target_id: campaign });
    })
    .select('target_type', 'target_id');
  const listing = rows.find((row) => row.target_type === 'Listing');
  if (listing) return { reason: 'listing_blocked', message: `listing ${listing.target_id} is blocked; allow it with update_listing (blocked requests are not replayed)` };
  if (rows.length) return { reason: 'automation_switch_off', message: `campaign ${campaign} has its Automation switch off` };
  return null;
}
