import type { Knex } from 'knex';
import { identitiesOf } from '../../domain/event/identities.js';
import { adsEntityId } from '../../domain/observation/ids.js';
import type { Json } from '../../domain/shared/json.js';
import type { AccountView, ProfileView } from '../../projections/accounts/queries.js';
import { resolveTarget } from '../../projections/admission/queries.js';
import { campaignStreamRows } from '../../projections/events/queries.js';
import { receiptsForTargets, type Receipt } from '../../projections/mutations/queries.js';
import {
  advertisingProfiles,
  childLists,
  entityShapes,
  readModelAds,
  unsyncedCampaign,
  type AdsEntities,
} from './ads.js';
import { dealsFor, type Deals } from './deals.js';
import { hourlyLists, hourMetrics, type Feed, type StreamRow } from './hourly.js';

// The three advertising-stream scopes (spec 2.12): CampaignOrPortfolio (BUDGET_USAGE),
// HourlyMetrics (SP_TRAFFIC, SP_CONVERSION) and EntityChange (the four *_CHANGE types). Each is
// about the campaign its message names, in the account's advertising profile of the message's
// marketplace; a campaign the ads sync has not read yet is still there, with a null id (or the id
// our own creation gave it), so that a handler sees it but cannot change it.

const FEEDS: readonly string[] = ['SP_TRAFFIC', 'SP_CONVERSION'];
/** How far back the hourly lists reach. */
const HOURLY_WINDOW_MS = 24 * 3_600_000;

export interface AdsRun {
  db: Knex;
  account: AccountView;
  streamType: string;
  event: Json;
  now: Date;
}

/**
 * What an advertising context reads beside the message: the read models as of now (live and dry
 * runs, readModelAdsReads), or the account's log as of a past moment (backtests).
 */
export interface AdsReads {
  entities: AdsEntities;
  /** the feeds' messages naming the campaign (provider id) that occurred since `since`, in the order received */
  hourly(feeds: readonly string[], providerCampaignId: string, since: Date): Promise<StreamRow[]>;
  /** the receipts of a campaign our own creation made (local id); null when none made it */
  created(localId: string): Promise<Receipt[] | null>;
  deals(marketplace_id: string, asins: readonly string[]): Promise<Deals>;
  /** the profiles as contexts list them, with their receipts */
  profiles(profiles: readonly ProfileView[]): Promise<unknown[]>;
}

export function readModelAdsReads(run: AdsRun): AdsReads {
  const { db, account, now } = run;
  return {
    entities: readModelAds(db, account, now),
    hourly: (feeds, providerCampaignId, since) => campaignStreamRows(db, account.id, feeds, providerCampaignId, since),
    async created(localId) {
      if (!(await resolveTarget(db, [account.id], { type: 'Campaign', id: localId }))) return null;
      return (await receiptsForTargets(db, 'Campaign', [localId])).get(localId) ?? [];
    },
    deals: (marketplace_id, asins) => dealsFor(db, account.id, marketplace_id, asins, now),
    profiles: (profiles) => advertisingProfiles(db, profiles),
  };
}

/** The profile and campaign (provider id) an ads message is about; null when the account has no profile there. */
export function campaignNamed(run: Pick<AdsRun, 'account' | 'streamType' | 'event'>) {
  const named = identitiesOf(run.streamType, run.event)[0];
  const profile = (run.account.ads?.profiles ?? []).find((p) => p.marketplace_id === named?.marketplace_id);
  return profile ? { profile, providerCampaignId: named?.campaign_id ?? null } : null;
}

const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
const text = (v: unknown): string | null => (typeof v === 'string' ? v : null);

/** `budget`: the budget-usage figures of the firing event; every key null on other events. */
function budgetOf(streamType: string, event: Json) {
  const usage = streamType === 'BUDGET_USAGE';
  return {
    amount: usage ? num(event.budget) : null,
    scopeType: usage ? text(event.budgetScopeType) : null,
    eventTime: usage ? text(event.usageUpdatedTimestamp) : null,
    percentage: usage ? num(event.budgetUsagePercentage) : null,
  };
}

/** The campaign with its children, deals and hours (spec 2.8, 2.12), observed or not yet synced. */
async function campaignOf(run: AdsRun, reads: AdsReads, profile: ProfileView, providerCampaignId: string) {
  const { account, now } = run;
  const localId = adsEntityId('campaign', account.id, profile.provider_profile_id, providerCampaignId);
  const [e, recorded] = await Promise.all([
    reads.entities.ofCampaigns([profile], [localId]),
    reads.hourly(FEEDS, providerCampaignId, new Date(now.getTime() - HOURLY_WINDOW_MS)),
  ]);
  // the firing row counts even before (or without: a dry run's sample) its own record
  const rows = FEEDS.includes(run.streamType)
    ? [...recorded, { stream_type: run.streamType, payload: run.event }]
    : recorded;
  const hourly = hourlyLists(rows, profile.currency);
  const observed = e.campaigns[0];
  if (!observed) {
    // a campaign our creation made is a target already; one we know nothing of is not
    const created = await reads.created(localId);
    return {
      campaign: {
        ...unsyncedCampaign(profile, providerCampaignId, created ? localId : null, created ?? []),
        adGroups: [],
        ads: [],
        targets: [],
        negativeTargets: [],
        deals: null,
        dealsReportedAt: null,
        ...hourly,
      },
      rows,
    };
  }
  const shape = entityShapes([profile], e.receipts);
  const asins = [...new Set(e.ads.map((a) => a.row.asin).filter((a): a is string => typeof a === 'string'))];
  const deals = await reads.deals(profile.marketplace_id, asins);
  return { campaign: { ...shape.campaign(observed), ...childLists(shape, e), ...deals, ...hourly }, rows };
}

/** The context of an advertising-stream event; null when it names no campaign of a profile the account has. */
export async function adsContext(run: AdsRun, reads: AdsReads = readModelAdsReads(run)): Promise<Json | null> {
  const named = campaignNamed(run);
  if (!named) return null;
  const { profile, providerCampaignId } = named;
  const profiles = await reads.profiles([profile]);
  const budget = budgetOf(run.streamType, run.event);
  if (run.streamType === 'BUDGET_USAGE' && budget.scopeType === 'PORTFOLIO') {
    const id = text(run.event.budgetScopeId);
    if (!id) return null;
    const inBudget = budget.percentage === null || budget.percentage < 100;
    return { budget, portfolio: { id, budgetCap: budget.amount, inBudget }, advertisingProfiles: profiles };
  }
  if (!providerCampaignId) return null;
  const { campaign, rows } = await campaignOf(run, reads, profile, providerCampaignId);
  if (run.streamType === 'BUDGET_USAGE') return { budget, campaign, advertisingProfiles: profiles };
  const { hourlyTraffic, hourlyConversions } = campaign;
  if (run.streamType === 'SP_TRAFFIC' || run.streamType === 'SP_CONVERSION')
    return {
      budget,
      campaign,
      hourlyTraffic,
      hourlyConversions,
      metrics: hourMetrics(rows, run.streamType as Feed, run.event, profile.currency),
      advertisingProfiles: profiles,
    };
  return { budget, campaign, change: run.event, hourlyTraffic, hourlyConversions, advertisingProfiles: profiles };
}
