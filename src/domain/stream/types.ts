// The event types of spec 6 (26 in all): who sends each, which connection runs it, what context
// an automation for it gets, and when the service subscribes to it. Every layer reads this one
// table: the tools that take `stream_type`, subscriptions, ingestion, and the runtime's contracts.

/** The context an automation of the type is handed (spec 4.11.7); null: handled internally. */
export type ContextScope =
  'Listing' | 'SellingPartner' | 'CampaignOrPortfolio' | 'HourlyMetrics' | 'EntityChange' | 'Report';

/** spec 3.2: "always", "while an automation needs it", or none (local report completions). */
export type SubscriptionPolicy = 'always' | 'while_needed' | 'not_required';

export interface StreamType {
  code: string;
  /** who delivers it: selling notifications, the advertising Marketing Stream, or the service itself */
  source: 'selling' | 'ads' | 'local';
  scope: ContextScope | null;
  policy: SubscriptionPolicy;
  /** a seller-only type is refused on a vendor account (`stream_type_not_for_entity`) */
  sellerOnly: boolean;
  /** the Marketing Stream dataset id (ads types) */
  dataset?: string;
  /** the case of a selling notification's envelope keys (spec 4.11.2: camelCase for a few types) */
  envelope?: 'PascalCase' | 'camelCase';
}

// spec 4.11.2's five camelCase envelopes, and the two internal types' as their published examples are
const CAMEL_CASE_ENVELOPES = new Set([
  'PRICING_HEALTH',
  'ACCOUNT_STATUS_CHANGED',
  'FEED_PROCESSING_FINISHED',
  'ITEM_SALES_EVENT_CHANGE',
  'DETAIL_PAGE_TRAFFIC_EVENT',
  'DATA_KIOSK_QUERY_PROCESSING_FINISHED',
  'REPORT_PROCESSING_FINISHED',
]);

/** A selling notification: subscribed always (spec 3.2) unless `policy` says otherwise. */
const selling = (code: string, scope: ContextScope | null, policy: SubscriptionPolicy = 'always'): StreamType => ({
  code,
  source: 'selling',
  scope,
  policy,
  sellerOnly: true,
  envelope: CAMEL_CASE_ENVELOPES.has(code) ? 'camelCase' : 'PascalCase',
});
const ads = (code: string, scope: ContextScope, dataset: string): StreamType => ({
  code,
  source: 'ads',
  scope,
  policy: 'while_needed',
  sellerOnly: false,
  dataset,
});
const local = (code: string): StreamType => ({
  code,
  source: 'local',
  scope: 'Report',
  policy: 'not_required',
  sellerOnly: false,
});

/** Spec 6.1's two internally handled types, by their full codes (docs/decisions/064-marketplace-event-types.md). */
export const DATA_KIOSK_FINISHED = 'DATA_KIOSK_QUERY_PROCESSING_FINISHED';
export const REPORT_FINISHED = 'REPORT_PROCESSING_FINISHED';

export const STREAM_TYPES: readonly StreamType[] = [
  selling('ANY_OFFER_CHANGED', 'Listing', 'while_needed'),
  selling('B2B_ANY_OFFER_CHANGED', 'Listing', 'while_needed'),
  selling('PRICING_HEALTH', 'Listing', 'while_needed'),
  selling('LISTINGS_ITEM_STATUS_CHANGE', 'Listing'),
  selling('LISTINGS_ITEM_ISSUES_CHANGE', 'Listing'),
  selling('LISTINGS_ITEM_MFN_QUANTITY_CHANGE', 'Listing'),
  selling(DATA_KIOSK_FINISHED, null),
  selling('ORDER_CHANGE', 'Listing'),
  selling('FBA_INVENTORY_AVAILABILITY_CHANGES', 'Listing'),
  selling('ACCOUNT_STATUS_CHANGED', 'SellingPartner'),
  selling('FEED_PROCESSING_FINISHED', 'SellingPartner'),
  selling('FBA_OUTBOUND_SHIPMENT_STATUS', 'SellingPartner'),
  selling('FULFILLMENT_ORDER_STATUS', 'SellingPartner'),
  selling('ITEM_SALES_EVENT_CHANGE', 'SellingPartner'),
  selling('DETAIL_PAGE_TRAFFIC_EVENT', 'SellingPartner'),
  selling('BRANDED_ITEM_CONTENT_CHANGE', 'Listing'),
  selling(REPORT_FINISHED, null),
  ads('BUDGET_USAGE', 'CampaignOrPortfolio', 'budget-usage'),
  ads('SP_TRAFFIC', 'HourlyMetrics', 'sp-traffic'),
  ads('SP_CONVERSION', 'HourlyMetrics', 'sp-conversion'),
  ads('CAMPAIGN_CHANGE', 'EntityChange', 'campaigns'),
  ads('AD_GROUP_CHANGE', 'EntityChange', 'adgroups'),
  ads('AD_CHANGE', 'EntityChange', 'ads'),
  ads('TARGET_CHANGE', 'EntityChange', 'targets'),
  local('SELLING_REPORT_COMPLETED'),
  local('ADS_REPORT_COMPLETED'),
];

const BY_CODE = new Map(STREAM_TYPES.map((t) => [t.code, t]));

/** The 24 types an automation can handle: all but the two handled internally. */
export const SELECTABLE_STREAM_TYPES: readonly StreamType[] = STREAM_TYPES.filter((t) => t.scope !== null);

export const streamType = (code: string): StreamType | undefined => BY_CODE.get(code);

export const selectableStreamType = (code: string): StreamType | undefined => {
  const t = BY_CODE.get(code);
  return t?.scope ? t : undefined;
};

/** The stream type a Marketing Stream dataset id delivers. */
export const adsStreamTypeOf = (dataset: string): StreamType | undefined =>
  STREAM_TYPES.find((t) => t.dataset === dataset);

/** The connection an event type needs (spec 5 rule 5): selling for selling and selling-report types, else ads. */
export const connectionFor = (t: StreamType): 'selling' | 'ads' =>
  t.source === 'ads' || t.code === 'ADS_REPORT_COMPLETED' ? 'ads' : 'selling';
