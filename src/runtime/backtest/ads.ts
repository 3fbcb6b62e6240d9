import { addDays } from '../../domain/shared/calendar.js';
import {
  SP_CAMPAIGN_DAILY,
  SP_ENTITY_DATASETS,
  SP_TARGETING_DAILY,
  dailyScope,
} from '../../domain/observation/datasets.js';
import type { AccountView, ProfileView } from '../../projections/accounts/queries.js';
import type { EntityRow, EntityType, Totals } from '../../projections/observed/ads-queries.js';
import {
  adGroupRow,
  campaignDailyRow,
  campaignRow,
  productAdRow,
  TARGET_DATASETS,
  targetingDailyRow,
  targetRow,
  type ProfileContext,
  type Row,
} from '../../projections/observed/ads-rows.js';
import type { Receipt } from '../../projections/mutations/queries.js';
import { trailing30, type AdsEntities, type CampaignEntities, type ListingAd } from '../context/ads.js';
import type { PagedHistory, ScopeRead } from './pages.js';

// The advertising entities as the read models held them at a past moment, folded from the
// Sponsored Products pages of the log (entities per profile, daily reports per profile and day)
// through the ads projection's own row functions, with the trailing 30 days of metrics summed as
// the read model sums them. A page's rows are mapped once and indexed (pages are shared by every
// moment that sees them), so each run looks up only what its listing or campaign needs.

type Raw = Record<string, unknown>;
type Mapper = (raw: Raw, ctx: ProfileContext, dataset: string) => Row | null;

/** Where each entity type's rows come from, and how a page row becomes one. */
const SOURCES: Readonly<Record<EntityType, { datasets: readonly string[]; map: Mapper }>> = {
  Campaign: { datasets: [SP_ENTITY_DATASETS.campaigns], map: campaignRow },
  AdGroup: { datasets: [SP_ENTITY_DATASETS.adGroups], map: adGroupRow },
  Ad: { datasets: [SP_ENTITY_DATASETS.productAds], map: productAdRow },
  Target: { datasets: TARGET_DATASETS, map: (raw, ctx, dataset) => targetRow(dataset, raw, ctx) },
};
const ENTITY_TYPES = Object.keys(SOURCES) as EntityType[];
const campaignOf = (type: EntityType, row: Row) => (type === 'Campaign' ? row.id : row.campaign_id) as string;

/** Daily report rows summed per entity: campaigns from the campaigns report, the rest from targeting. */
const DAILY: ReadonlyArray<{ dataset: string; map: Mapper; keys: string[] }> = [
  { dataset: SP_CAMPAIGN_DAILY, map: campaignDailyRow, keys: ['campaign_id'] },
  { dataset: SP_TARGETING_DAILY, map: targetingDailyRow, keys: ['ad_group_id', 'target_id'] },
];
/** Which entity types have metrics, and from which dataset. */
const METRICS: Partial<Record<EntityType, string>> = {
  Campaign: SP_CAMPAIGN_DAILY,
  AdGroup: SP_TARGETING_DAILY,
  Target: SP_TARGETING_DAILY,
};

interface IndexedPage {
  rows: Row[];
  /** daily pages: totals per entity id, report date apart */
  totals: Map<string, Map<string, Totals>>;
}

/** Pages mapped and indexed once: a page is the same object for every moment that sees it. */
const indexed = new WeakMap<object, IndexedPage>();

/** What the backtest's own earlier runs did to an advertising entity. */
export interface OwnChanges {
  /** its would-be receipts on the entity, newest first */
  receipts(id: string): Receipt[];
  /** the native fields its updates set, given the entity as the log has it (null: none stand) */
  fields(id: string, logged: Raw): Raw | null;
}

/** An advertising entity as the log has it: its type and read-model row (with the dataset it came from). */
export interface LoggedEntity {
  type: EntityType;
  row: Row;
}

/** The advertising entities as of `t`, the backtest's own updates over them; `logged(id)`: an entity as the log has it. */
export function adsAsOf(
  pages: PagedHistory,
  account: AccountView,
  t: number,
  own: OwnChanges,
): AdsEntities & {
  logged(id: string): LoggedEntity | null;
  /** every campaign of these profiles, with its metrics */
  campaignsIn(profiles: readonly ProfileView[]): Promise<EntityRow[]>;
} {
  const ctxOf = (p: ProfileView): ProfileContext => ({
    account_id: account.id,
    provider_profile_id: p.provider_profile_id,
    profile_id: p.id,
    marketplace_id: p.marketplace_id,
    currency: p.currency,
  });
  /** a page's rows mapped once, as the projection stores them (`data` as read back: an object) */
  const rowsOf = (
    page: ScopeRead['pages'][number],
    index: number,
    scope: string,
    dataset: string,
    map: Mapper,
    ctx: ProfileContext,
  ) => {
    let found = indexed.get(page);
    if (!found) {
      const rows = page.rows.flatMap((raw) => {
        const row = typeof raw === 'object' && raw !== null ? map(raw as Raw, ctx, dataset) : null;
        return row
          ? [{ ...row, account_id: account.id, scope, page: index, data: JSON.parse(row.data as string) as unknown }]
          : [];
      });
      found = { rows, totals: new Map() };
      indexed.set(page, found);
    }
    return found;
  };
  /** one type's rows in these profiles, one per local id (the first, by scope and page), as the log has them */
  const loggedRows = new Map<string, Row[]>();
  const logged = (type: EntityType, profiles: readonly ProfileView[]): Row[] => {
    // a run reads each type several times (its listing's ads, its campaigns, admission's targets): gathered once
    const key = `${type}/${profiles.map((p) => p.provider_profile_id).join(',')}`;
    if (!loggedRows.has(key)) loggedRows.set(key, gather(type, profiles));
    return loggedRows.get(key)!;
  };
  const gather = (type: EntityType, profiles: readonly ProfileView[]): Row[] => {
    const seen = new Set<string>();
    const out: Row[] = [];
    for (const p of profiles)
      for (const dataset of SOURCES[type].datasets) {
        const read = pages.read(dataset, p.provider_profile_id, t);
        read?.pages.forEach((page, i) => {
          for (const row of rowsOf(page, i, p.provider_profile_id, dataset, SOURCES[type].map, ctxOf(p)).rows)
            if (!seen.has(row.id as string)) {
              seen.add(row.id as string);
              out.push({ ...row, dataset });
            }
        });
      }
    return out;
  };
  /** the rows with the backtest's own updates over them: mapped again from the native data they set */
  const entities = (type: EntityType, profiles: readonly ProfileView[]): Row[] =>
    logged(type, profiles).map(({ dataset, ...row }) => {
      const fields = own.fields(row.id as string, row.data as Raw);
      if (!fields) return row;
      const p = profiles.find((x) => x.provider_profile_id === row.provider_profile_id)!;
      const data = { ...(row.data as Raw), ...fields };
      return { ...row, ...SOURCES[type].map(data, ctxOf(p), dataset as string), data };
    });
  /** the trailing 30 days' totals per entity id of one daily dataset in one profile */
  const dailyTotals = (dataset: string, p: ProfileView, ids: ReadonlySet<string>): Map<string, Totals> => {
    const how = DAILY.find((d) => d.dataset === dataset)!;
    const [window] = trailing30(account, [p], new Date(t));
    const sums = new Map<string, Totals>();
    for (let day = window!.first; day <= window!.last; day = addDays(day, 1)) {
      const scope = dailyScope(p.provider_profile_id, day);
      pages.read(dataset, scope, t)?.pages.forEach((page, i) => {
        const found = rowsOf(page, i, scope, dataset, how.map, ctxOf(p));
        if (found.totals.size === 0) found.totals = totalsByEntity(found.rows, how.keys);
        for (const id of ids) {
          const add = found.totals.get(id)?.get(day);
          if (add) sums.set(id, plus(sums.get(id), add));
        }
      });
    }
    return sums;
  };
  const allAds = () => entities('Ad', everyProfile);
  const everyProfile = account.ads?.profiles ?? [];
  const ofCampaigns = async (
    profiles: readonly ProfileView[],
    campaignIds: readonly string[],
  ): Promise<CampaignEntities> => {
    const wanted = new Set(campaignIds);
    const ads = campaignIds.length === 0 ? [] : allAds();
    const read = (type: EntityType): EntityRow[] => {
      if (wanted.size === 0) return [];
      const rows = entities(type, profiles).filter((r) => wanted.has(campaignOf(type, r)));
      const ids = new Set(rows.map((r) => r.id as string));
      const metrics = new Map<string, Totals>();
      const dataset = METRICS[type];
      if (dataset) for (const p of profiles) for (const [id, m] of dailyTotals(dataset, p, ids)) metrics.set(id, m);
      const asins =
        type === 'Campaign' || type === 'AdGroup'
          ? advertisedAsins(ads, type === 'Campaign' ? 'campaign_id' : 'ad_group_id')
          : null;
      return rows
        .sort(
          (a, b) =>
            byCodeUnits(a.provider_profile_id, b.provider_profile_id) ||
            byCodeUnits(campaignOf(type, a), campaignOf(type, b)) ||
            byCodeUnits(a.id, b.id),
        )
        .map((row) => ({
          row,
          metrics: dataset ? (metrics.get(row.id as string) ?? NONE) : null,
          advertised_asins: asins ? (asins.get(row.id as string)?.size ?? 0) : null,
        }));
    };
    const [campaigns, adGroups, adRows, targets] = (['Campaign', 'AdGroup', 'Ad', 'Target'] as const).map(read);
    const receipts = new Map<string, Receipt[]>();
    for (const e of [...campaigns!, ...adGroups!, ...adRows!, ...targets!]) {
      const list = own.receipts(e.row.id as string);
      if (list.length > 0) receipts.set(e.row.id as string, list);
    }
    return { campaigns: campaigns!, adGroups: adGroups!, ads: adRows!, targets: targets!, receipts };
  };
  return {
    logged(id) {
      for (const type of ENTITY_TYPES) {
        const row = logged(type, everyProfile).find((r) => r.id === id);
        if (row) return { type, row };
      }
      return null;
    },
    async ofListing(l): Promise<ListingAd[]> {
      return allAds()
        .filter((a) => a.marketplace_id === l.marketplace_id)
        .filter((a) => a.sku === l.sku || (a.sku === null && a.asin === l.asin))
        .map((a) => ({
          id: a.id as string,
          campaign_id: a.campaign_id as string,
          ad_group_id: a.ad_group_id as string,
        }));
    },
    ofCampaigns,
    campaignsIn: async (profiles) =>
      (
        await ofCampaigns(
          profiles,
          logged('Campaign', profiles).map((c) => c.id as string),
        )
      ).campaigns,
  };
}

/** Per entity id (by each key column) and report date, the day's figures. */
function totalsByEntity(rows: readonly Row[], keys: readonly string[]): Map<string, Map<string, Totals>> {
  const out = new Map<string, Map<string, Totals>>();
  for (const r of rows)
    for (const key of keys) {
      const id = r[key] as string | null;
      if (!id) continue;
      if (!out.has(id)) out.set(id, new Map());
      const byDay = out.get(id)!;
      const day = String(r.report_date);
      byDay.set(
        day,
        plus(byDay.get(day), {
          impressions: Number(r.impressions ?? 0),
          clicks: Number(r.clicks ?? 0),
          cost: Number(r.cost ?? 0),
          sales: Number(r.attributed_sales_7d ?? 0),
          purchases: Number(r.purchases_7d ?? 0),
        }),
      );
    }
  return out;
}

const NONE: Totals = { impressions: 0, clicks: 0, cost: 0, sales: 0, purchases: 0 };

function plus(x: Totals = NONE, y: Totals): Totals {
  return {
    impressions: x.impressions + y.impressions,
    clicks: x.clicks + y.clicks,
    cost: x.cost + y.cost,
    sales: x.sales + y.sales,
    purchases: x.purchases + y.purchases,
  };
}

/** The read model's order of uuids and digit strings: by code units, not by locale. */
const byCodeUnits = (a: unknown, b: unknown) => (String(a) < String(b) ? -1 : String(a) > String(b) ? 1 : 0);

/** The distinct ASINs the product ads advertise, per campaign or ad group. */
function advertisedAsins(ads: readonly Row[], key: 'campaign_id' | 'ad_group_id'): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const a of ads) {
    if (typeof a.asin !== 'string') continue;
    const id = a[key] as string;
    if (!out.has(id)) out.set(id, new Set());
    out.get(id)!.add(a.asin);
  }
  return out;
}
