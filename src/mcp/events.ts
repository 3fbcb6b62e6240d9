import { z } from 'zod';
import { listingId } from '../domain/observation/ids.js';
import type { EventRecord, EventTarget } from '../projections/events/queries.js';

// An event as list_events and get_event show it (spec 2.3): what it names, and a summary naming
// its listing by ASIN, SKU and title (or its campaign, for advertising events).

/** The one value every target shares, else null (spec 2.3: SKU null when targets have different SKUs). */
const shared = (targets: EventTarget[], key: 'asin' | 'sku' | 'marketplace_id' | 'title'): string | null => {
  const values = new Set(targets.map((t) => t[key]));
  return values.size === 1 ? [...values][0]! : null;
};

const describeListing = (l: { asin: string | null; sku: string | null; title: string | null }) =>
  [l.asin && `ASIN ${l.asin}`, l.sku && `SKU ${l.sku}`].filter(Boolean).join(', ') + (l.title ? ` (${l.title})` : '');

const SYNTHETIC: Record<string, string> = {
  listing_push_answer: "The marketplace's answer to a listing push",
  listing_read: 'A listing read back',
};

function summaryOf(r: EventRecord, listings: ReturnType<typeof listingsOf>, ads: ReturnType<typeof adsOf>): string {
  const what = r.synthetic ? (SYNTHETIC[r.synthetic_kind ?? ''] ?? 'Synthetic row') : r.stream_type!;
  if (listings.length === 1) return `${what} for ${describeListing(listings[0]!)} in ${listings[0]!.marketplace_id}`;
  if (listings.length > 1)
    return `${what} for ${listings.length} listings: ${listings.map(describeListing).join('; ')}`;
  const campaign = ads.find((a) => a.campaign_id !== null);
  if (campaign)
    return `${what} for campaign ${campaign.campaign_id}${campaign.campaign_name ? ` (${campaign.campaign_name})` : ''}`;
  return `${what} for the account`;
}

function listingsOf(account_id: string, targets: EventTarget[]) {
  const seen = new Set<string>();
  return targets
    .filter((t) => t.asin !== null || t.sku !== null)
    .map((t) => ({
      id: t.listed ? listingId(account_id, t.marketplace_id!, t.sku!) : null,
      asin: t.asin,
      sku: t.sku,
      marketplace_id: t.marketplace_id,
      title: t.title,
    }))
    .filter((l) => {
      const key = `${l.marketplace_id}/${l.sku}/${l.asin}`;
      return !seen.has(key) && seen.add(key);
    });
}

const adsOf = (targets: EventTarget[]) =>
  targets
    .filter((t) => t.campaign_id !== null || t.ad_group_id !== null || t.ad_id !== null || t.target_id !== null)
    .map(({ campaign_id, campaign_name, ad_group_id, ad_id, target_id }) => ({
      campaign_id,
      campaign_name,
      ad_group_id,
      ad_id,
      target_id,
    }));

export function eventRow(r: EventRecord, account_name: string) {
  const listings = listingsOf(r.account_id, r.targets);
  const ads = adsOf(r.targets);
  const named = r.targets.filter((t) => t.asin !== null || t.sku !== null);
  return {
    id: r.id,
    stream_type: r.stream_type,
    synthetic: r.synthetic,
    occurred_at: r.occurred_at.toISOString(),
    received_at: r.received_at.toISOString(),
    account_id: r.account_id,
    account_name,
    summary: summaryOf(r, listings, ads),
    asin: shared(named, 'asin'),
    sku: shared(named, 'sku'),
    marketplace_id: shared(r.targets, 'marketplace_id'),
    title: shared(named, 'title'),
    listings,
    ads_entities: ads,
  };
}

/** `eventRow` as list_events and get_event answer it (spec 2.3). */
export const eventRowOutput = z.object({
  id: z.string().describe('the event id, for get_event and run_automation'),
  stream_type: z.string().nullable().describe('the event type code; null for a synthetic row'),
  synthetic: z.boolean().describe("true for a listing read back or the marketplace's answer to a listing push"),
  occurred_at: z.string().describe('ISO 8601 time the event describes'),
  received_at: z.string().describe('ISO 8601 time the service received it'),
  account_id: z.string(),
  account_name: z.string(),
  summary: z.string().describe('what it is, naming its listing by ASIN, SKU and title (or its campaign)'),
  asin: z.string().nullable().describe('the ASIN every listing it reached shares; else null'),
  sku: z.string().nullable().describe('the SKU every listing it reached shares; null when they differ'),
  marketplace_id: z.string().nullable().describe('the marketplace everything it names shares; else null'),
  title: z.string().nullable().describe('the title every listing it reached shares; else null'),
  listings: z
    .array(
      z.object({
        id: z.string().nullable().describe("the local listing id; null when the account doesn't list it"),
        asin: z.string().nullable(),
        sku: z.string().nullable(),
        marketplace_id: z.string().nullable(),
        title: z.string().nullable(),
      }),
    )
    .describe('the listings it reached, each once'),
  ads_entities: z
    .array(
      z.object({
        campaign_id: z.string().nullable().describe("the campaign's provider id"),
        campaign_name: z.string().nullable(),
        ad_group_id: z.string().nullable().describe("the ad group's provider id"),
        ad_id: z.string().nullable().describe("the ad's provider id"),
        target_id: z.string().nullable().describe("the target's provider id"),
      }),
    )
    .describe('the advertising entities an advertising event names'),
});
