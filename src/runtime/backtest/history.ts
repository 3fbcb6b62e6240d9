import { switchDecider } from '../../domain/admission/switch.js';
import { dispatchControlDecider } from '../../domain/dispatch-control/decide.js';
import { MarketplaceEventReceived } from '../../domain/event/events.js';
import { identitiesOf } from '../../domain/event/identities.js';
import {
  COUPONS_DATASET,
  INVENTORY_DATASET,
  LISTINGS_DATASET,
  PROMOTIONS_DATASET,
  SP_CAMPAIGN_DAILY,
  SP_ENTITY_DATASETS,
  SP_TARGETING_DAILY,
} from '../../domain/observation/datasets.js';
import { listingId } from '../../domain/observation/ids.js';
import { PageObserved, SyncCompleted } from '../../domain/observation/events.js';
import type { EventStore, Position, RecordedEvent } from '../../eventstore/port.js';
import { streamName } from '../../commands/shared/handler.js';
import { inventoryRow } from '../../projections/observed/inventory.js';
import { listingRow } from '../../projections/observed/listings.js';
import type { ListingMention, ListingRecord } from '../../projections/observed/listings-search.js';
import type { StreamRow } from '../context/hourly.js';
import type { InventoryRow } from '../context/report.js';
import { PagedHistory } from './pages.js';
import { Timeline } from './timeline.js';

// An account's log as a backtest reads it: one pass over the log, each fact kept on a timeline by
// the time it speaks of (a listings page's `observed_at`, a marketplace message's `occurred_at`, a
// block flag's or switch's `set_at`), so a context can be folded as of any moment of the window
// without touching today's read models. Kept: the listings and FBA inventory pages' rows (per
// marketplace and SKU), the deals reports' and Sponsored Products pages with their complete reads
// (pages.ts), the account's marketplace messages (per listing they name, and the replayed type's
// in order), its dispatch-control events (per stream, for the admission check) and the operator's
// switch.

/** A replayed marketplace message. */
export interface PastEvent {
  id: string;
  occurred_at: Date;
  payload: Record<string, unknown>;
}

export interface AccountHistory {
  /** the replayed type's messages in the window, in event-time order (the log's order among equal times) */
  events: PastEvent[];
  /** the account's listings an event names, as the log had them at `t`, ordered by marketplace and SKU */
  reached(mentions: readonly ListingMention[], t: number): ListingRecord[];
  /** the latest message of each of these types naming the listing, at or before `t` */
  recorded(
    r: Pick<ListingRecord, 'sku' | 'asin' | 'marketplace_id'>,
    types: readonly string[],
    t: number,
  ): Map<string, unknown>;
  /** the messages of these types naming the campaign (provider id) that occurred in [since, t], in the order received */
  ofCampaign(types: readonly string[], providerCampaignId: string, since: number, t: number): StreamRow[];
  /** the account's listings in these marketplaces at `t` */
  listingsIn(marketplaces: readonly string[], t: number): ListingRecord[];
  /** each SKU's FBA inventory row in these marketplaces at `t` */
  inventoriesIn(marketplaces: readonly string[], t: number): InventoryRow[];
  /** the account's listing with that local id as the log had it at `t` */
  listing(listing_id: string, t: number): ListingRecord | undefined;
  /** the account's listings in the marketplace with that ASIN at `t` */
  withAsin(marketplace_id: string, asin: string, t: number): ListingRecord[];
  /** a dispatch-control stream's events as they stood at `t` */
  control(stream: string, t: number): RecordedEvent[];
  /** the operator's switch over new write requests as it stood at `t` */
  paused(t: number): { disabled: boolean; reason: string | null };
  /** the deals reports' and advertising pages, each scope as of any moment */
  pages: PagedHistory;
}

/** Datasets kept whole as paged scopes: the deals reports and the Sponsored Products entities and reports. */
const PAGED_DATASETS = [
  COUPONS_DATASET,
  PROMOTIONS_DATASET,
  ...Object.values(SP_ENTITY_DATASETS),
  SP_CAMPAIGN_DAILY,
  SP_TARGETING_DAILY,
];

const CONTROL_PREFIX = streamName(dispatchControlDecider.aggregate, '');
const READ_BATCH = 2_000;

/** Reads the account's log once, up to `until` in event time (the log's head at the call). */
export async function readAccountHistory(
  store: EventStore,
  account_id: string,
  streamType: string,
  window: { since: Date; until: Date },
): Promise<AccountHistory> {
  const rows = new Map<string, Timeline<ListingRecord>>();
  const inventory = new Map<string, Timeline<InventoryRow>>();
  const skusOfAsin = new Map<string, Set<string>>();
  const marketplaces = new Set<string>();
  const named = new Map<string, Map<string, Timeline<unknown>>>();
  const campaigns = new Map<string, Array<{ at: number; received: number; order: number; row: StreamRow }>>();
  const controls = new Map<string, Timeline<RecordedEvent>>();
  const keyOfId = new Map<string, string>();
  const switched = new Timeline<{ disabled: boolean; reason: string | null }>();
  const paged = new PagedHistory();
  const events: Array<PastEvent & { order: number }> = [];
  const since = window.since.getTime();
  const until = window.until.getTime();
  const switchTypes = Object.keys(switchDecider.schemas);
  const types = [
    'MarketplaceEventReceived',
    'PageObserved',
    'SyncCompleted',
    ...Object.keys(dispatchControlDecider.schemas),
    ...switchTypes,
  ];
  // other datasets' pages are passed over unread: the store reads only their `dataset`
  const filter = {
    field: 'dataset',
    values: [LISTINGS_DATASET, INVENTORY_DATASET, ...PAGED_DATASETS],
    types: ['PageObserved', 'SyncCompleted'],
  };
  let after: Position | null = null;
  for (;;) {
    const read = await store.readAllOfTypes({ after, types, filter, limit: READ_BATCH });
    for (const e of read.events) {
      const data = e.data as Record<string, unknown>;
      // the switch is the operator's, over every account
      if (switchTypes.includes(e.type)) {
        const reason = typeof data.reason === 'string' ? data.reason : null;
        switched.add(Date.parse(String(data.at)), { disabled: e.type === 'AdmissionsDisabled', reason });
        continue;
      }
      if (data.account_id !== account_id) continue;
      if (e.type === 'SyncCompleted') {
        const sync = SyncCompleted.parse(data);
        if (PAGED_DATASETS.includes(sync.dataset)) paged.complete(sync);
        continue;
      }
      if (e.type === 'PageObserved') {
        const page = PageObserved.parse(data);
        if (PAGED_DATASETS.includes(page.dataset)) {
          paged.add(page);
          continue;
        }
        const at = Date.parse(page.observed_at);
        if (page.dataset === INVENTORY_DATASET) {
          for (const raw of page.rows) {
            const row = inventoryRow(raw, page.scope);
            if (!row) continue;
            const key = `${page.scope}/${row.sku as string}`;
            if (!inventory.has(key)) inventory.set(key, new Timeline());
            inventory.get(key)!.add(at, {
              marketplace_id: row.marketplace_id as string,
              sku: row.sku as string,
              asin: (row.asin as string | null) ?? null,
              data: JSON.parse(row.data as string) as Record<string, unknown>,
            });
          }
          continue;
        }
        marketplaces.add(page.scope);
        for (const raw of page.rows) {
          const row = listingRow(raw, page.scope);
          if (!row) continue;
          const record = recordOf(account_id, row);
          const key = `${record.marketplace_id}/${record.sku}`;
          if (!rows.has(key)) {
            rows.set(key, new Timeline());
            keyOfId.set(listingId(account_id, record.marketplace_id, record.sku), key);
          }
          rows.get(key)!.add(at, record);
          if (record.asin) {
            const asinKey = `${record.marketplace_id}/${record.asin}`;
            if (!skusOfAsin.has(asinKey)) skusOfAsin.set(asinKey, new Set());
            skusOfAsin.get(asinKey)!.add(record.sku);
          }
        }
      } else if (e.type === 'MarketplaceEventReceived') {
        const m = MarketplaceEventReceived.parse(data);
        const at = Date.parse(m.occurred_at);
        if (at >= until) continue;
        for (const id of new Set(identitiesOf(m.stream_type, m.payload).map((i) => i.campaign_id))) {
          if (id === null) continue;
          if (!campaigns.has(id)) campaigns.set(id, []);
          const list = campaigns.get(id)!;
          const row = { stream_type: m.stream_type, payload: m.payload };
          list.push({ at, received: Date.parse(m.received_at), order: list.length, row });
        }
        for (const key of namingKeys(m.stream_type, m.payload)) {
          if (!named.has(key)) named.set(key, new Map());
          const byType = named.get(key)!;
          if (!byType.has(m.stream_type)) byType.set(m.stream_type, new Timeline());
          byType.get(m.stream_type)!.add(at, m.payload);
        }
        if (m.stream_type === streamType && at >= since)
          events.push({ id: e.id, occurred_at: new Date(at), payload: m.payload, order: events.length });
      } else if (e.streamId.startsWith(CONTROL_PREFIX)) {
        if (!controls.has(e.streamId)) controls.set(e.streamId, new Timeline());
        controls.get(e.streamId)!.add(Date.parse(String(data.set_at)), e);
      }
    }
    if (read.through) after = read.through;
    if (read.end) break;
  }
  events.sort((a, b) => a.occurred_at.getTime() - b.occurred_at.getTime() || a.order - b.order);
  /** the listing's row at `t` with its FBA inventory summary as the log had it then */
  const asOf = (key: string, t: number): ListingRecord | undefined => {
    const record = rows.get(key)?.latest(t)?.value;
    const fba = inventory.get(key)?.latest(t)?.value.data as Record<string, unknown> | undefined;
    return record && { ...record, fba_inventory: fba ?? null };
  };
  return {
    events: events.map(({ order: _, ...e }) => e),
    reached(mentions, t) {
      const found = new Map<string, ListingRecord>();
      for (const m of mentions) {
        for (const marketplace of m.marketplace_id ? [m.marketplace_id] : [...marketplaces]) {
          const skus = m.sku ? [m.sku] : m.asin ? [...(skusOfAsin.get(`${marketplace}/${m.asin}`) ?? [])] : [];
          for (const sku of skus) {
            const record = asOf(`${marketplace}/${sku}`, t);
            // by ASIN: only the SKUs that had it then
            if (record && (m.sku || record.asin === m.asin)) found.set(`${marketplace}/${sku}`, record);
          }
        }
      }
      return [...found.values()].sort(
        (a, b) => a.marketplace_id.localeCompare(b.marketplace_id) || a.sku.localeCompare(b.sku),
      );
    },
    recorded(r, wanted, t) {
      const latest = new Map<string, unknown>();
      for (const type of wanted) {
        const candidates = [
          `${r.marketplace_id}/sku/${r.sku}`,
          `*/sku/${r.sku}`,
          ...(r.asin ? [`${r.marketplace_id}/asin/${r.asin}`, `*/asin/${r.asin}`] : []),
        ];
        let best: { at: number; value: unknown } | undefined;
        for (const key of candidates) {
          const found = named.get(key)?.get(type)?.latest(t);
          if (found && (!best || found.at > best.at)) best = found;
        }
        if (best) latest.set(type, best.value);
      }
      return latest;
    },
    ofCampaign: (types, id, since, t) =>
      (campaigns.get(id) ?? [])
        .filter((m) => m.at >= since && m.at <= t && types.includes(m.row.stream_type))
        .sort((a, b) => a.received - b.received || a.order - b.order)
        .map((m) => m.row),
    listingsIn: (marketplaces, t) =>
      [...rows.keys()]
        .filter((key) => marketplaces.includes(key.slice(0, key.indexOf('/'))))
        .flatMap((key) => asOf(key, t) ?? []),
    inventoriesIn: (marketplaces, t) =>
      [...inventory.values()].flatMap((line) => {
        const row = line.latest(t)?.value;
        return row && marketplaces.includes(row.marketplace_id) ? [row] : [];
      }),
    listing: (id, t) => asOf(keyOfId.get(id) ?? '', t),
    withAsin: (marketplace_id, asin, t) =>
      [...(skusOfAsin.get(`${marketplace_id}/${asin}`) ?? [])]
        .map((sku) => asOf(`${marketplace_id}/${sku}`, t))
        .filter((r): r is ListingRecord => r?.asin === asin),
    control: (stream, t) => controls.get(stream)?.upTo(t) ?? [],
    paused: (t) => switched.latest(t)?.value ?? { disabled: false, reason: null },
    pages: paged,
  };
}

/** The keys a message names listings by: SKU, else ASIN, in its marketplace or any ('*'). */
function namingKeys(stream_type: string, payload: Record<string, unknown>): string[] {
  return identitiesOf(stream_type, payload).flatMap((i) =>
    i.sku ? [`${i.marketplace_id ?? '*'}/sku/${i.sku}`] : i.asin ? [`${i.marketplace_id ?? '*'}/asin/${i.asin}`] : [],
  );
}

/** A listings page row (listingRow) as the record the read model would answer for it. */
function recordOf(account_id: string, row: Record<string, unknown>): ListingRecord {
  const money = (v: unknown) => (typeof v === 'number' ? String(v) : null);
  return {
    account_id,
    sku: row.sku as string,
    marketplace_id: row.marketplace_id as string,
    asin: (row.asin as string | null) ?? null,
    title: (row.title as string | null) ?? null,
    product_type: (row.product_type as string | null) ?? null,
    status: (row.status as ListingRecord['status']) ?? null,
    currency: (row.currency as string | null) ?? null,
    price: money(row.price),
    b2b_price: money(row.b2b_price),
    floor: money(row.floor),
    ceiling: money(row.ceiling),
    fulfillment_channel: (row.fulfillment_channel as ListingRecord['fulfillment_channel']) ?? null,
    condition_type: (row.condition_type as string | null) ?? null,
    condition: (row.condition as string | null) ?? null,
    handling_time: (row.handling_time as number | null) ?? null,
    restock_date: (row.restock_date as string | null) ?? null,
    shipping_group: (row.shipping_group as string | null) ?? null,
    created_at: typeof row.created_at === 'string' ? new Date(row.created_at) : null,
    statuses: typeof row.statuses === 'string' ? (JSON.parse(row.statuses) as string[]) : null,
    quantity: (row.quantity as number | null) ?? null,
    data: JSON.parse(row.data as string) as ListingRecord['data'],
    // the inventory pages' summary as of the time asked (asOf)
    fba_inventory: null,
  };
}
