import type { Knex } from 'knex';
import { READ_MODEL_SCHEMA } from '../projection.js';
import { adsEntityId } from '../observed/ads-datasets.js';
import { DISPATCH_CONTROLS_TABLE } from './projection.js';

export interface Withheld {
  reason: 'listing_blocked' | 'automation_switch_off';
  message: string;
}

/** What decides whether a request may go: its account, target and the target's provider ids. */
export interface Withholdable {
  account_id: string;
  target: { type: string; id: string };
  provider: Record<string, string>;
}

/**
 * Why this request must not be sent, or null (spec 3.3, 3.4, 3.5): its listing is blocked (a
 * Listing target, or the listing an ads request was made for, provider id `listingId`), or the
 * campaign it touches has its Automation switch off. Checked at admission and again under the
 * target lock just before sending; a later unblock never releases a receipt blocked either way.
 */
export async function withheldReason(db: Knex, r: Withholdable): Promise<Withheld | null> {
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
