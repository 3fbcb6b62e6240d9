import { isDeepStrictEqual } from 'node:util';
import type { MarketplaceEventData } from '../../domain/event/events.js';
import { BACKTEST_LIMITS } from '../../domain/backtest/limits.js';
import type { BacktestResult, BacktestTotals } from '../../domain/backtest/result.js';
import { arr, obj } from '../../domain/shared/json.js';
import { listingId } from '../../domain/observation/ids.js';
import type { ReceiptView } from '../../commands/admission/receipts.js';
import type { Receipt } from '../../projections/mutations/queries.js';
import { withheld } from '../../commands/dispatch-control/execute.js';
import type { EventStore } from '../../eventstore/port.js';
import type { Knex } from '../../infra/db.js';
import type { Logger } from '../../infra/logger.js';
import type { AccountView, ProfileView } from '../../projections/accounts/queries.js';
import { liveRunsOfEvents, type LiveRunOfEvent } from '../../projections/automation-runs/queries.js';
import { minorUnits } from '../../projections/observed/economics-support.js';
import type { ListingRecord } from '../../projections/observed/listings-search.js';
import { businessLinesBetween, type BusinessLine } from '../../projections/observed/sales-queries.js';
import { profilesInContext } from '../context/ads.js';
import type { PastReads } from '../context/index.js';
import type { AdsReads } from '../context/advertising.js';
import type { ReportReads } from '../context/report.js';
import { linkedAds, type ListingReads } from '../context/listing.js';
import { profilesIn } from '../context/profiles.js';
import { OFFER_NOTIFICATIONS, STOCK_NOTIFICATIONS } from '../context/listing-lookups.js';
import { majorUnits } from '../context/money.js';
import { receiptInContext } from '../context/receipts.js';
import { laneKeys } from '../live/reactor.js';
import { KeyedLanes } from '../live/ordering.js';
import type { OutboxAction } from '../outbox/index.js';
import { readShared, runAutomation, type ListingRun } from '../run.js';
import type { Sandbox } from '../sandbox/index.js';
import { adsAsOf, type LoggedEntity } from './ads.js';
import { dealsAsOf } from './deals.js';
import { flagsAsOf } from './flags.js';
import { lookupsAsOf } from './lookups.js';
import { readAccountHistory, type AccountHistory, type PastEvent } from './history.js';

// A backtest (docs/decisions/120-backtests.md): an automation run over the recorded messages of its
// type in a window, in event-time order, each run through the one orchestrator (runAutomation,
// mode 'dry': the same sandbox, limits, context contract and admission decision as a live run,
// nothing admitted), with its context as the account's log had it at the message's time
// (history.ts) and the automation's own would-be changes carried forward:
// - a price (or business price) it set is the listing's price in the next context, until the log
//   shows the marketplace's own price changed from the one it replaced;
// - its would-be receipts are the listing's `mutations`;
// - its store writes go to a store of the backtest's own.
// Messages naming the same listing run one after another; others side by side (as live runs do).
// Deals and the advertising entities linked to the listing are folded from the log's report and
// Sponsored Products pages (deals.ts, ads.ts), with the backtest's own would-be receipts on them;
// B2B sales are the orders read model's before the time.

export interface BacktestDeps {
  db: Knex;
  /** read only: every write through it throws */
  store: EventStore;
  sandbox: Sandbox;
  logger: Logger;
  /** messages run side by side (default 8) */
  concurrency?: number;
}

export interface BacktestRequest {
  automation: { id: string | null; version: number; code: string };
  account: AccountView;
  streamType: string;
  since: Date;
  until: Date;
}

export interface BacktestControl {
  /** aborted: no more messages are taken; the answer says `cancelled` with what ran */
  signal?: AbortSignal;
  /** called now and then with messages done and in all */
  progress?(done: number, total: number): void | Promise<void>;
}

/** What the backtest carries forward of its own for one listing. */
interface Carried {
  /** the prices it set (minor units), each with the price the log showed when it was set */
  price?: { value: string; replaced: string | null };
  b2b_price?: { value: string; replaced: string | null };
  /** an advertising entity's native fields its updates set, with what the log showed of them then */
  native?: { values: Record<string, unknown>; replaced: Record<string, unknown> };
  /** its would-be receipts on the target (a listing or an advertising entity), newest first */
  receipts: Receipt[];
}

type Raw = Record<string, unknown>;

const DAY_MS = 86_400_000;

export async function runBacktest(
  deps: BacktestDeps,
  request: BacktestRequest,
  control: BacktestControl = {},
): Promise<BacktestResult> {
  const { account, streamType } = request;
  const history = await readAccountHistory(deps.store, account.id, streamType, request);
  // running once its events are known, not from its first progressEvery events: a short or slow replay shows it
  await control.progress?.(0, history.events.length);
  const result = emptyResult(history.events.length);
  const carried = new Map<string, Carried>();
  const store: Record<string, unknown> = {};
  const lanes = new KeyedLanes();
  const concurrency = deps.concurrency ?? 8;
  const live = await liveBeside(deps.db, request, history.events);
  // read once for every run: the webhook names (today's configuration) and the B2B sales lines
  const { webhooks } = await readShared(deps.db, account.id, [], request.until);
  const b2b = businessUnits(
    await businessLinesBetween(deps.db, account.id, new Date(request.since.getTime() - 30 * DAY_MS), request.until),
  );
  let running = 0;
  let freed: (() => void) | null = null;
  let done = 0;
  let failure: Error | null = null;
  const started = performance.now();

  const one = async (event: PastEvent) => {
    const t = event.occurred_at.getTime();
    const { past, seen, logged } = pastReads({ deps, history, account, carried, b2b }, t);
    const runs = await runAutomation(
      {
        db: deps.db,
        store: flagsAsOf(deps.store, history, t),
        lookups: lookupsAsOf(deps.db, history, account, t, logged),
        sandbox: deps.sandbox,
        logger: deps.logger,
      },
      {
        mode: 'dry',
        automation: request.automation,
        account,
        streamType,
        event: { id: event.id, payload: event.payload },
        now: event.occurred_at,
        past,
        shared: Promise.resolve({ webhooks, store: { ...store } }),
      },
    );
    for (const run of runs) {
      const observed = run.listingId ? (seen.get(run.listingId) ?? null) : null;
      settle(result, { carried, store, event, run, observed, logged }, live.get(`${event.id}/${run.listingId}`) ?? []);
    }
  };

  for (const event of history.events) {
    if (control.signal?.aborted || failure) break;
    while (running >= concurrency) await new Promise<void>((resolve) => (freed = resolve));
    running++;
    const data = { account_id: account.id, stream_type: streamType, payload: event.payload } as MarketplaceEventData;
    void lanes
      .run(laneKeys(data), () => one(event))
      .catch((err: unknown) => (failure ??= err as Error))
      .finally(() => {
        running--;
        done++;
        result.totals.events_replayed++;
        dayOf(result, event.occurred_at.toISOString().slice(0, 10)).events_replayed++;
        if (done % BACKTEST_LIMITS.progressEvery === 0) void control.progress?.(done, history.events.length);
        freed?.();
        freed = null;
      });
  }
  while (running > 0) await new Promise<void>((resolve) => (freed = resolve));
  if (failure) throw failure;
  result.cancelled = control.signal?.aborted === true && done < history.events.length;
  result.elapsed_ms = Math.round(performance.now() - started);
  result.series.sort((a, b) => a.day.localeCompare(b.day));
  result.runs.sort((a, b) => a.occurred_at.localeCompare(b.occurred_at) || a.event_id.localeCompare(b.event_id));
  await control.progress?.(done, history.events.length);
  return result;
}

/**
 * The account as of `t`: the log's listing rows with the backtest's own prices over them, and
 * reads of the past for listing and advertising contexts; `seen`: each reached listing's row as
 * the log had it (what the marketplace showed).
 */
/** What every run of a backtest shares: the log read once, what it carries forward, the B2B sales lines. */
interface Replay {
  deps: BacktestDeps;
  history: AccountHistory;
  account: AccountView;
  carried: Map<string, Carried>;
  b2b: ReturnType<typeof businessUnits>;
}

function pastReads(
  { deps, history, account, carried, b2b }: Replay,
  t: number,
): { past: PastReads; seen: Map<string, ListingRecord>; logged(id: string): LoggedEntity | null } {
  const seen = new Map<string, ListingRecord>();
  const own = (id: string) => carried.get(id)?.receipts ?? [];
  const entities = adsAsOf(history.pages, account, t, {
    receipts: own,
    fields(id, data) {
      const c = carried.get(id);
      if (!c?.native) return null;
      if (Object.entries(c.native.replaced).every(([k, v]) => isDeepStrictEqual(data[k] ?? null, v)))
        return c.native.values;
      // the marketplace's own value moved since: the log's stands from here
      delete c.native;
      return null;
    },
  });
  const deals = (marketplace_id: string, asins: readonly string[]) =>
    Promise.resolve(dealsAsOf(history.pages, marketplace_id, asins, t));
  // profiles are today's; a backtest's runs create none, so they carry no receipts
  const profiles = async (list: readonly ProfileView[]) => profilesInContext(list, () => []);
  const reads: ListingReads = {
    recorded: async (r) => history.recorded(r, [...STOCK_NOTIFICATIONS, ...OFFER_NOTIFICATIONS], t),
    blocked: (id) => withheld(flagsAsOf(deps.store, history, t), 'Listing', id),
    b2bSales30d: async (r) => b2b(r.marketplace_id, r.sku, t - 30 * DAY_MS, t),
    deals: (r) => deals(r.marketplace_id, r.asin ? [r.asin] : []),
    receipts: async (_r, id) => own(id).map(receiptInContext),
    ads: (r) => linkedAds(entities, account, r, Promise.resolve([])),
    profiles: (r) => profiles(profilesIn(account, r.marketplace_id)),
  };
  const ads: AdsReads = {
    entities,
    hourly: async (feeds, campaign, since) => history.ofCampaign(feeds, campaign, since.getTime(), t),
    // a campaign the backtest's own run would have created has no id it could know
    created: async () => null,
    deals,
    profiles,
  };
  const report: ReportReads = {
    campaigns: (list) => entities.campaignsIn(list),
    async listings(marketplaces, limit) {
      const byId = (r: ListingRecord) => listingId(account.id, r.marketplace_id, r.sku);
      return history
        .listingsIn(marketplaces, t)
        .sort((a, b) => (byId(a) < byId(b) ? -1 : byId(a) > byId(b) ? 1 : 0))
        .slice(0, limit);
    },
    inventories: async (marketplaces) => history.inventoriesIn(marketplaces, t),
    receipts: async (_type, ids) => new Map(ids.flatMap((id) => (own(id).length ? [[id, own(id)]] : []))),
    deals: (marketplace_id) => deals(marketplace_id, []),
    profiles,
  };
  const reached = (mentions: Parameters<PastReads['reached']>[0]) =>
    history.reached(mentions, t).map((r) => {
      const id = listingId(account.id, r.marketplace_id, r.sku);
      seen.set(id, r);
      return withCarried(r, carried.get(id));
    });
  return { past: { reached, reads, ads, report }, seen, logged: (id) => entities.logged(id) };
}

/** The row with the prices the backtest set, while the log still shows the price each replaced. */
function withCarried(r: ListingRecord, c: Carried | undefined): ListingRecord {
  if (!c) return r;
  const out = { ...r };
  for (const field of ['price', 'b2b_price'] as const) {
    const own = c[field];
    if (!own) continue;
    if (own.replaced === r[field]) out[field] = own.value;
    // the marketplace's price moved on its own since: the log's price stands from here
    else delete c[field];
  }
  return out;
}

/** One run as the backtest settles it: its message, the listing's row as the log had it, what it carries forward into. */
interface Settling {
  carried: Map<string, Carried>;
  store: Record<string, unknown>;
  event: PastEvent;
  run: ListingRun;
  observed: ListingRecord | null;
  /** an advertising entity as the log had it then */
  logged(id: string): LoggedEntity | null;
}

/** Counts one run's outcome into the result and carries its would-be changes forward. */
function settle(
  result: BacktestResult,
  { carried, store, event, run, observed, logged }: Settling,
  live: LiveRunOfEvent[],
): void {
  const day = event.occurred_at.toISOString().slice(0, 10);
  const counts = dayOf(result, day);
  const add = (key: keyof BacktestTotals, n = 1) => {
    result.totals[key] += n;
    counts[key] += n;
  };
  add('runs');
  const actions = run.outbox?.actions ?? [];
  const applied = actions.filter((a) => a.status === 'applied');
  const blocked = actions.filter((a) => a.status === 'blocked');
  const failed = actions.filter((a) => a.status === 'failed');
  const execution = run.error && !run.outbox?.rejected ? run.error : null;
  add('changes', applied.length);
  add('blocked', blocked.length);
  add('validation_failures', failed.length + (run.outbox?.rejected ? 1 : 0));
  add('execution_errors', execution ? 1 : 0);
  add('missing_field_reads', run.missingFieldReads.length);
  add('webhook_posts', run.error ? 0 : run.webhookPosts.length);
  add('live_runs', live.length);
  add(
    'live_changes',
    live.reduce((n, r) => n + r.actions.filter((a) => a.status === 'applied').length, 0),
  );
  const at = event.occurred_at.toISOString();
  const shown = observed ? majorUnits(observed.price, observed.currency ?? 'USD') : null;
  for (const a of applied) {
    const key = `${a.target?.type}/${a.target?.id}/${a.action}`;
    let group = result.changes.find((g) => g.key === key);
    if (!group) {
      group = {
        key,
        target: a.target,
        action: a.action,
        sku: a.sku ?? null,
        marketplace_id: a.marketplace_id ?? null,
        count: 0,
        changes: [],
      };
      result.changes.push(group);
    }
    group.count++;
    if (group.changes.length < BACKTEST_LIMITS.itemsPerList)
      group.changes.push({
        at,
        event_id: event.id,
        value: a.value,
        marketplace_value:
          a.target?.type === 'Listing'
            ? a.target.id === run.listingId
              ? shown
              : null
            : loggedValue(a.receipt?.payload, logged(a.target?.id ?? '')?.row.data as Raw | undefined),
      });
  }
  for (const a of blocked)
    capped(result.blocked, {
      at,
      event_id: event.id,
      target: a.target,
      action: a.action,
      reason: a.error_message ?? null,
    });
  for (const a of failed)
    capped(result.validation_failures, {
      at,
      event_id: event.id,
      target: a.target,
      action: a.action,
      error_message: a.error_message ?? null,
    });
  if (run.outbox?.rejected)
    capped(result.validation_failures, {
      at,
      event_id: event.id,
      target: null,
      action: null,
      error_message: run.outbox.rejected,
    });
  if (execution)
    capped(result.execution_errors, {
      at,
      event_id: event.id,
      listing_id: run.listingId,
      code: execution.code,
      message: execution.message,
    });
  for (const m of run.missingFieldReads) {
    const found = result.missing_field_reads.find((r) => r.path === m.path);
    if (found) found.count++;
    else result.missing_field_reads.push({ ...m, count: 1 });
  }
  if (!run.error)
    for (const p of run.webhookPosts)
      capped(result.webhook_posts, { at, event_id: event.id, webhook: p.webhook, payload: p.payload });
  if (!run.error) {
    for (const e of run.storeEffects) {
      if (e.op === 'set') store[e.key] = e.value;
      else delete store[e.key];
    }
    carryForward(carried, { listing_id: run.listingId, observed, logged }, applied);
  }
  capped(
    result.runs,
    {
      event_id: event.id,
      occurred_at: at,
      listing_id: run.listingId,
      outcome: run.error ? 'error' : 'ok',
      changes: applied.map((a) => ({ target: a.target, action: a.action, value: a.value })),
      blocked: blocked.length,
      validation_failures: failed.length,
      error: run.error,
      logs: run.logs.slice(0, BACKTEST_LIMITS.logLinesPerRun),
      missing_field_reads: run.missingFieldReads.length,
      webhook_posts: run.error ? 0 : run.webhookPosts.length,
      live: live.map((l) => ({
        automation_id: l.automation_id,
        automation_version: l.automation_version,
        error_message: l.error_message,
        actions: l.actions,
      })),
    },
    BACKTEST_LIMITS.runDetails,
  );
}

function capped<T>(list: T[], item: T, cap: number = BACKTEST_LIMITS.itemsPerList): void {
  if (list.length < cap) list.push(item);
}

function dayOf(result: BacktestResult, day: string) {
  let found = result.series.find((d) => d.day === day);
  if (!found) {
    found = { day, ...zeroTotals() };
    result.series.push(found);
  }
  return found;
}

/**
 * The run's would-be receipts on each target it changed (a listing or an advertising entity), the
 * prices it set on its own listing and the fields it updated on advertising entities, for the next
 * context.
 */
function carryForward(
  carried: Map<string, Carried>,
  run: Pick<Settling, 'observed' | 'logged'> & { listing_id: string | null },
  applied: OutboxAction[],
): void {
  for (const a of applied) {
    const id = a.target?.id;
    if (!id || !a.receipt) continue;
    const c: Carried = carried.get(id) ?? { receipts: [] };
    c.receipts.unshift(wouldBeReceipt(a.receipt));
    c.receipts.splice(BACKTEST_LIMITS.receiptsPerListing);
    const type = a.target!.type;
    if (type === 'Listing' && id === run.listing_id && run.observed) {
      const observed = run.observed;
      for (const [field, major] of offerPrices(a.receipt.payload))
        c[field] = { value: String(minorUnits(major, observed.currency ?? 'USD')), replaced: observed[field] };
    }
    const data = ADS_TYPES.includes(type) && a.action === 'update' ? (run.logged(id)?.row.data as Raw) : null;
    if (data) {
      const values = { ...c.native?.values, ...nativeFields(type, a.receipt.payload) };
      const replaced = {
        ...Object.fromEntries(Object.keys(values).map((k) => [k, data[k] ?? null])),
        ...c.native?.replaced,
      };
      c.native = { values, replaced };
    }
    carried.set(id, c);
  }
}

const ADS_TYPES = ['Campaign', 'AdGroup', 'Ad', 'Target'];

/** What an advertising entity showed then of the amount an update sets (a budget, a default bid, a bid; major units). */
function loggedValue(payload: Raw | undefined, data: Raw | undefined): number | null {
  if (!payload || !data) return null;
  const amount = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : null);
  if (payload.budget !== undefined) return amount(obj(data.budget)?.budget);
  if (payload.defaultBid !== undefined) return amount(data.defaultBid);
  if (payload.bid !== undefined) return amount(data.bid);
  return null;
}

/** An advertising update's fields as the entity's native data holds them: ids and adProduct apart, a target's bid unwrapped. */
function nativeFields(type: string, payload: Record<string, unknown>): Record<string, unknown> {
  const fields = Object.entries(payload).filter(([k]) => k !== 'adProduct' && !k.endsWith('Id'));
  return Object.fromEntries(fields.map(([k, v]) => (type === 'Target' && k === 'bid' ? [k, obj(v)?.bid] : [k, v])));
}

/** A would-be receipt: as admission decided it, never sent. */
const wouldBeReceipt = (view: ReceiptView): Receipt =>
  ({
    ...view,
    id: view.id ?? '',
    http_status: null,
    request_id: null,
    submission_id: null,
    recorded_at: null,
    response: null,
    reconciliation: null,
    created: null,
    caused_by: null,
  }) as unknown as Receipt;

/** The consumer and business prices an offer patch sets, in major units. */
function offerPrices(payload: Record<string, unknown>): Array<['price' | 'b2b_price', number]> {
  const out: Array<['price' | 'b2b_price', number]> = [];
  for (const patch of arr(payload.patches).map(obj)) {
    if (patch?.path !== '/attributes/purchasable_offer') continue;
    for (const offer of arr(patch.value).map(obj)) {
      const schedule = arr(obj(arr(offer?.our_price)[0])?.schedule);
      const amount = obj(schedule[0])?.value_with_tax;
      if (typeof amount === 'number') out.push([offer?.audience === 'B2B' ? 'b2b_price' : 'price', amount]);
    }
  }
  return out;
}

/** The live runs of the account's automations of the type on the replayed messages, by message and listing. */
async function liveBeside(db: Knex, request: BacktestRequest, events: readonly PastEvent[]) {
  const byKey = new Map<string, LiveRunOfEvent[]>();
  for (let i = 0; i < events.length; i += BACKTEST_LIMITS.liveLookupBatch) {
    const ids = events.slice(i, i + BACKTEST_LIMITS.liveLookupBatch).map((e) => e.id);
    for (const run of await liveRunsOfEvents(db, request.account.id, request.streamType, ids, request.since)) {
      const key = `${run.event_id}/${run.listing_id}`;
      byKey.set(key, [...(byKey.get(key) ?? []), run]);
    }
  }
  return byKey;
}

function zeroTotals(): BacktestTotals {
  return {
    events_replayed: 0,
    runs: 0,
    changes: 0,
    blocked: 0,
    validation_failures: 0,
    execution_errors: 0,
    missing_field_reads: 0,
    webhook_posts: 0,
    live_runs: 0,
    live_changes: 0,
  };
}

function emptyResult(events: number): BacktestResult {
  return {
    events_in_window: events,
    cancelled: false,
    elapsed_ms: 0,
    totals: zeroTotals(),
    series: [],
    changes: [],
    blocked: [],
    validation_failures: [],
    execution_errors: [],
    missing_field_reads: [],
    webhook_posts: [],
    runs: [],
  };
}

/** Units sold to business buyers of a listing in [from, to), from the lines read once. */
function businessUnits(lines: readonly BusinessLine[]) {
  const byListing = new Map<string, BusinessLine[]>();
  for (const l of lines) {
    const key = `${l.marketplace_id}/${l.sku}`;
    if (!byListing.has(key)) byListing.set(key, []);
    byListing.get(key)!.push(l);
  }
  return (marketplace_id: string, sku: string, from: number, to: number) =>
    (byListing.get(`${marketplace_id}/${sku}`) ?? [])
      .filter((l) => l.sold_at.getTime() >= from && l.sold_at.getTime() < to)
      .reduce((n, l) => n + l.quantity, 0);
}
