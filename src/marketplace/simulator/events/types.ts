import { STREAM_TYPES } from '../../../domain/stream/types.js';
// The event types the simulator pushes: the selling notification types the service can
// subscribe to, the two it handles internally, and the Marketing Stream datasets.

export const SELECTABLE_SELLING_TYPES = [
  'ANY_OFFER_CHANGED',
  'B2B_ANY_OFFER_CHANGED',
  'PRICING_HEALTH',
  'LISTINGS_ITEM_STATUS_CHANGE',
  'LISTINGS_ITEM_ISSUES_CHANGE',
  'LISTINGS_ITEM_MFN_QUANTITY_CHANGE',
  'ORDER_CHANGE',
  'FBA_INVENTORY_AVAILABILITY_CHANGES',
  'ACCOUNT_STATUS_CHANGED',
  'FEED_PROCESSING_FINISHED',
  'FBA_OUTBOUND_SHIPMENT_STATUS',
  'FULFILLMENT_ORDER_STATUS',
  'ITEM_SALES_EVENT_CHANGE',
  'DETAIL_PAGE_TRAFFIC_EVENT',
  'BRANDED_ITEM_CONTENT_CHANGE',
] as const;

/** Handled by the service itself (spec 6.1 "handled internally"). */
export const INTERNAL_SELLING_TYPES = ['DATA_KIOSK_QUERY_PROCESSING_FINISHED', 'REPORT_PROCESSING_FINISHED'] as const;

export const SELLING_TYPES = [...SELECTABLE_SELLING_TYPES, ...INTERNAL_SELLING_TYPES] as const;
export type SellingType = (typeof SELLING_TYPES)[number];
export const isSellingType = (type: string): type is SellingType => (SELLING_TYPES as readonly string[]).includes(type);

/** Marketing Stream dataset ids (the data guide's; the subscription API's spec leaves them open). */
export const DATASETS = {
  BUDGET_USAGE: 'budget-usage',
  SP_TRAFFIC: 'sp-traffic',
  SP_CONVERSION: 'sp-conversion',
  CAMPAIGN_CHANGE: 'campaigns',
  AD_GROUP_CHANGE: 'adgroups',
  AD_CHANGE: 'ads',
  TARGET_CHANGE: 'targets',
} as const;
export type AdsType = keyof typeof DATASETS;
export type DatasetId = (typeof DATASETS)[AdsType];
export const ADS_TYPES = Object.keys(DATASETS) as AdsType[];
export const DATASET_IDS = Object.values(DATASETS) as DatasetId[];
export const isAdsType = (type: string): type is AdsType => type in DATASETS;

export type EventType = SellingType | AdsType;
export const EVENT_TYPES: readonly EventType[] = [...SELLING_TYPES, ...ADS_TYPES];

interface Versions {
  notification: string;
  payload: readonly string[];
}
/** One version for both the notification and its payload. */
const only = (version: string): Versions => ({ notification: version, payload: [version] });
const V1 = only('1.0');

/** Notification and payload versions by type; a subscription may ask for any of `payload`, the first is the default. */
export const VERSIONS: Readonly<Record<SellingType, Versions>> = {
  ANY_OFFER_CHANGED: V1,
  B2B_ANY_OFFER_CHANGED: V1,
  PRICING_HEALTH: V1,
  LISTINGS_ITEM_STATUS_CHANGE: V1,
  LISTINGS_ITEM_ISSUES_CHANGE: { notification: '1.0', payload: ['1.0', '2023-12-13'] },
  LISTINGS_ITEM_MFN_QUANTITY_CHANGE: V1,
  ORDER_CHANGE: V1,
  FBA_INVENTORY_AVAILABILITY_CHANGES: V1,
  ACCOUNT_STATUS_CHANGED: V1,
  FEED_PROCESSING_FINISHED: only('2020-09-04'),
  FBA_OUTBOUND_SHIPMENT_STATUS: V1,
  FULFILLMENT_ORDER_STATUS: V1,
  ITEM_SALES_EVENT_CHANGE: only('2020-09-04'),
  DETAIL_PAGE_TRAFFIC_EVENT: only('2020-09-04'),
  BRANDED_ITEM_CONTENT_CHANGE: V1,
  DATA_KIOSK_QUERY_PROCESSING_FINISHED: only('2023-11-15'),
  REPORT_PROCESSING_FINISHED: only('2020-09-04'),
};

/** Envelopes written in camelCase: the domain's table says which (spec 4.11.2's five and the two internal types). */
export const CAMEL_CASE_TYPES: ReadonlySet<string> = new Set(
  STREAM_TYPES.filter((t) => t.envelope === 'camelCase').map((t) => t.code),
);
