import { randomUUID } from 'node:crypto';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { expect } from 'chai';
import { addDays, datesFrom, localDate } from '../../src/domain/shared/calendar.js';
import type { Profile } from '../../src/marketplace/clients/ads-types.js';
import { createAdsClient } from '../../src/marketplace/clients/index.js';
import { generateProfileAds, type ProfileAds } from '../../src/marketplace/simulator/ads/sp-generate.js';
import {
  dailyFigures,
  positiveTargets,
  targetingFigures,
  type DailyFigures,
} from '../../src/marketplace/simulator/ads/sp-metrics.js';
import { executeMutationCommand } from '../../src/commands/mutation/execute.js';
import { adsProjection } from '../../src/projections/observed/ads.js';
import { adsEntitiesSync } from '../../src/workers/sync/ads-entities.js';
import { adsCampaignMetricsSync, adsTargetingMetricsSync } from '../../src/workers/sync/ads-metrics.js';
import type { SyncJobDefinition } from '../../src/workers/sync/job.js';
import { call, serveMcp, type McpServing } from '../support/mcp.js';
import { assertApplyTwiceSameResult, assertRebuildEqualsLive } from '../support/projections.js';
import { startHarness, type Harness } from '../support/observed.js';
import { adsEntityId } from '../../src/domain/observation/ids.js';

const ADS_TOKEN = 'Atzr|demo-advertiser';
const US = 'ATVPDKIKX0DER';
const JP = 'A1VC38T7YXB528';
const SEED = 29;
/** 13:00 on the 20th in Los Angeles, 05:00 on the 21st in Tokyo: the profiles' "today" differ. */
const START = Date.parse('2026-05-20T20:00:00Z');
/** enough synced days for a 30-day window and the one before it */
const HISTORY_DAYS = 62;
const ADS_TOOLS = ['get_ads_summary', 'list_campaigns', 'list_keywords', 'list_targets', 'list_ads_entities'];

type Row = Record<string, any>;
type Totals = { impressions: number; clicks: number; cost: number; sales: number; purchases: number };

// The ads read tools over MCP, on data synced from the simulator through the real clients, sync
// jobs and projection. Expected figures come from the simulator's own generators: the campaign's
// day (dailyFigures) and its share per keyword or target (targetingFigures), as reports generated
// today (profile-local) state them.
describe('ads read tools over MCP: get_ads_summary, list_campaigns, list_keywords, list_targets, list_ads_entities', function () {
  this.timeout(300_000);
  let h: Harness;
  let serving: McpServing;
  let client: Client;
  const user = randomUUID();
  const vendorUser = randomUUID();
  let a: string;
  let b: string;
  const run = async (job: SyncJobDefinition, account: string) => {
    await job.run({ ...h.deps(''), credentials: () => ({ ads_refresh_token: ADS_TOKEN }) }, account);
    await h.projector.whenCaughtUp();
  };
  const profile = (marketplaceId: string): Profile =>
    h.simulator.seller.profiles.find((p) => p.accountInfo.marketplaceStringId === marketplaceId)!;
  const today = (marketplaceId: string) => localDate(h.clock.ms, profile(marketplaceId).timezone);
  const generated = new Map<string, ProfileAds>();
  const sim = (marketplaceId: string): ProfileAds => {
    if (!generated.has(marketplaceId))
      generated.set(
        marketplaceId,
        generateProfileAds(h.simulator.catalog.seed, profile(marketplaceId), h.simulator.catalog),
      );
    return generated.get(marketplaceId)!;
  };
  const minor = (ads: ProfileAds, f: DailyFigures): Totals => {
    const m = (x: number) => Math.round(x * 10 ** ads.digits);
    return {
      impressions: f.impressions,
      clicks: f.clicks,
      cost: m(f.cost),
      sales: m(f.sales7d),
      purchases: f.purchases7d,
    };
  };
  const add = (t: Totals, u: Totals): Totals => ({
    impressions: t.impressions + u.impressions,
    clicks: t.clicks + u.clicks,
    cost: t.cost + u.cost,
    sales: t.sales + u.sales,
    purchases: t.purchases + u.purchases,
  });
  const ZERO: Totals = { impressions: 0, clicks: 0, cost: 0, sales: 0, purchases: 0 };
  const dayOf = (mk: string, campaignId: string, date: string) => {
    const ads = sim(mk);
    return dailyFigures(
      h.simulator.catalog.seed,
      campaignId,
      ads.metrics.get(campaignId)!,
      date,
      today(mk),
      ads.digits,
    );
  };
  /** A campaign's figures over [first, last], in minor units. */
  const campaignExpected = (mk: string, campaignId: string, first: string, last: string): Totals =>
    datesFrom(first, last).reduce((t, d) => {
      const f = dayOf(mk, campaignId, d);
      return f ? add(t, minor(sim(mk), f)) : t;
    }, ZERO);
  /** A keyword's or targeting clause's figures over [first, last], in minor units. */
  const targetExpected = (mk: string, campaignId: string, targetId: string, first: string, last: string): Totals => {
    const ids = positiveTargets(sim(mk))
      .get(campaignId)!
      .map((t) => t.id);
    return datesFrom(first, last).reduce((t, d) => {
      const f = dayOf(mk, campaignId, d);
      return f
        ? add(
            t,
            minor(
              sim(mk),
              targetingFigures(h.simulator.catalog.seed, campaignId, d, f, ids, sim(mk).digits)[ids.indexOf(targetId)]!,
            ),
          )
        : t;
    }, ZERO);
  };
  const figuresOf = (r: Row): Totals => ({
    impressions: r.impressions,
    clicks: r.clicks,
    cost: r.cost,
    sales: r.sales,
    purchases: r.purchases,
  });
  const expectAcos = (r: Row) =>
    expect(r.acos, `acos of ${JSON.stringify(figuresOf(r))}`).to.equal(
      r.sales === 0 ? null : Math.round((r.cost / r.sales) * 10_000) / 10_000,
    );
  const campaignIdOf = (account: string, mk: string, campaignId: string) =>
    adsEntityId('campaign', account, String(profile(mk).profileId), campaignId);
  const ok = async (name: string, args: Record<string, unknown> = {}, as = client) => {
    const result = await call(as, name, args);
    expect(result.isError, JSON.stringify(result.structuredContent)).to.not.equal(true);
    return result.structuredContent;
  };
  const refused = async (name: string, args: Record<string, unknown>) => {
    const result = await call(client, name, args);
    expect(result.isError).to.equal(true);
    return result.structuredContent;
  };

  before(async () => {
    h = await startHarness([adsProjection], [], START, SEED);
    a = await h.connect('seller', user);
    b = await h.connect('seller', user);
    await h.connect('vendor', vendorUser);
    await run(adsEntitiesSync, a);
    await run(adsEntitiesSync, b);
    await run(adsCampaignMetricsSync({ historyDays: HISTORY_DAYS }), a);
    await run(adsTargetingMetricsSync({ historyDays: HISTORY_DAYS }), a);
    serving = await serveMcp(h.db, () => new Date(h.clock.ms));
    client = await serving.clientFor(user);
  });
  after(async () => {
    await serving?.close();
    await h?.close();
  });

  describe('the simulator and the sync', () => {
    it("a campaign's targeting rows add up exactly to its campaign row, day by day", async () => {
      for (const mk of [US, JP]) {
        const day = addDays(today(mk), -20);
        const { rows } = await h.db.raw(
          `select c.campaign_id, c.cost, c.clicks, c.impressions, c.attributed_sales_7d, c.purchases_7d, t.cost as t_cost, t.clicks as t_clicks, t.impressions as t_impressions, t.sales as t_sales, t.purchases as t_purchases
           from rm.ads_campaign_daily c join (select campaign_id, sum(cost) as cost, sum(clicks) as clicks, sum(impressions) as impressions, sum(attributed_sales_7d) as sales, sum(purchases_7d) as purchases
             from rm.ads_targeting_daily where account_id = ? and report_date = ? group by 1) t on t.campaign_id = c.campaign_id
           where c.account_id = ? and c.report_date = ? and c.marketplace_id = ?`,
          [a, day, a, day, mk],
        );
        expect(rows.length, `${mk} campaigns served on ${day}`).to.be.greaterThan(3);
        for (const r of rows)
          expect([r.t_cost, r.t_clicks, r.t_impressions, r.t_sales, r.t_purchases].map(Number)).to.deep.equal(
            [r.cost, r.clicks, r.impressions, r.attributed_sales_7d, r.purchases_7d].map(Number),
          );
      }
    });

    it('spTargeting through the client: a SUMMARY report with a keywordType filter states the synced days summed per target', async () => {
      const ads = createAdsClient({
        endpoint: h.simulator.endpoints().adsApiUrl,
        lwa: h.deps('').lwa,
        refreshToken: ADS_TOKEN,
      });
      const profileId = String(profile(US).profileId);
      const [startDate, endDate] = [addDays(today(US), -10), addDays(today(US), -4)];
      const { reportId } = await ads.reporting.createReport(profileId, {
        startDate,
        endDate,
        configuration: {
          adProduct: 'SPONSORED_PRODUCTS',
          groupBy: ['targeting'],
          columns: ['keywordId', 'targeting', 'keywordType', 'cost', 'clicks'],
          reportTypeId: 'spTargeting',
          timeUnit: 'SUMMARY',
          format: 'GZIP_JSON',
          filters: [{ field: 'keywordType', values: ['TARGETING_EXPRESSION_PREDEFINED'] }],
        },
      });
      let report = await ads.reporting.getReport(profileId, reportId);
      while (report.status !== 'COMPLETED') report = await ads.reporting.getReport(profileId, reportId);
      const rows = (await ads.reporting.downloadReport(report.url!)) as Row[];
      expect(rows).to.not.be.empty;
      expect(new Set(rows.map((r) => r.targeting))).to.deep.equal(
        new Set(['close-match', 'loose-match', 'substitutes', 'complements']),
      );
      const { rows: synced } = await h.db.raw(
        `select provider_target_id, sum(cost) as cost, sum(clicks) as clicks from rm.ads_targeting_daily where account_id = ? and provider_profile_id = ? and report_date between ? and ? and keyword_type = 'TARGETING_EXPRESSION_PREDEFINED' group by 1`,
        [a, profileId, startDate, endDate],
      );
      expect(rows.map((r) => [String(r.keywordId), Math.round(r.cost * 100), r.clicks]).sort()).to.deep.equal(
        synced.map((r: Row) => [r.provider_target_id, Number(r.cost), Number(r.clicks)]).sort(),
      );
    });
  });

  describe('get_ads_summary', () => {
    it('one row per account and profile: default trailing 30 profile-local days, figures in minor units, acos; an account never synced reads zeros with empty freshness', async () => {
      const { rows, freshness } = await ok('get_ads_summary');
      const profiles = h.simulator.seller.profiles;
      expect(rows).to.have.length(2 * profiles.length);
      for (const p of profiles) {
        const mk = p.accountInfo.marketplaceStringId;
        const first = addDays(today(mk), -29);
        const expected = [...sim(mk).entities.campaigns.keys()].reduce(
          (t, id) => add(t, campaignExpected(mk, id, first, today(mk))),
          ZERO,
        );
        const row = rows.find((r: Row) => r.account_id === a && r.marketplace_id === mk);
        expect(row).to.include({
          account_name: await accountName(a),
          currency: p.currencyCode,
          provider_profile_id: String(p.profileId),
          since: first,
          until: today(mk),
        });
        expect(figuresOf(row), mk).to.deep.equal(expected);
        expectAcos(row);
        const other = rows.find((r: Row) => r.account_id === b && r.marketplace_id === mk);
        expect(figuresOf(other)).to.deep.equal(ZERO);
        expect(other.acos).to.equal(null);
        const fa = freshness.find((f: Row) => f.account_id === a && f.marketplace_id === mk);
        expect(fa).to.include({
          latest_report_date: addDays(today(mk), -1),
          since: first,
          until: today(mk),
          time_zone: p.timezone,
        });
        const fb = freshness.find((f: Row) => f.account_id === b && f.marketplace_id === mk);
        expect(fb.latest_report_date, 'metrics never synced').to.equal(null);
        expect(fb.entities_synced_at).to.be.a('string');
      }
      expect(today(US), 'the profiles are on different days').to.not.equal(today(JP));
    });

    it("windows cut on each profile's own report dates (an instant falls on a different day in Los Angeles and Tokyo); compare_to_previous adds the window before", async () => {
      // 02:00 UTC on the 15th: the 14th ends in Los Angeles, the 15th is under way in Tokyo
      const { rows } = await ok('get_ads_summary', {
        since: '2026-05-10',
        until: '2026-05-15T02:00:00Z',
        account: a,
        compare_to_previous: true,
      });
      expect(rows).to.have.length(h.simulator.seller.profiles.length);
      for (const [mk, last] of [
        [US, '2026-05-14'],
        [JP, '2026-05-15'],
      ] as const) {
        const row = rows.find((r: Row) => r.marketplace_id === mk);
        const days = datesFrom('2026-05-10', last).length;
        const ids = [...sim(mk).entities.campaigns.keys()];
        expect(row).to.include({ since: '2026-05-10', until: last });
        expect(figuresOf(row)).to.deep.equal(
          ids.reduce((t, id) => add(t, campaignExpected(mk, id, '2026-05-10', last)), ZERO),
        );
        expect(row.previous).to.include({ since: addDays('2026-05-10', -days), until: '2026-05-09' });
        expect(figuresOf(row.previous)).to.deep.equal(
          ids.reduce((t, id) => add(t, campaignExpected(mk, id, addDays('2026-05-10', -days), '2026-05-09')), ZERO),
        );
        expect(row.previous.cost).to.be.greaterThan(0);
      }
    });

    it('marketplace_id narrows to one profile per account; bad windows are invalid_window; unknown arguments are refused', async () => {
      const { rows } = await ok('get_ads_summary', { marketplace_id: JP });
      expect(rows.map((r: Row) => [r.account_id, r.currency])).to.have.deep.members([
        [a, 'JPY'],
        [b, 'JPY'],
      ]);
      expect((await refused('get_ads_summary', { since: '2026-05-12', until: '2026-05-10' })).code).to.equal(
        'invalid_window',
      );
      expect((await refused('get_ads_summary', { since: 'last week' })).code).to.equal('invalid_window');
      expect((await refused('list_campaigns', { until: '2026-02-30' })).code).to.equal('invalid_window');
      expect((await refused('get_ads_summary', { sku: 'X' })).code).to.equal('unknown_argument');
      expect((await refused('list_targets', { order_by: 'acos' })).code).to.equal('invalid');
    });
  });

  describe('list_campaigns', () => {
    it('every campaign of the profile with its own figures (zeros without metrics), budget in minor units, ordered by cost', async () => {
      const { rows, freshness } = await ok('list_campaigns', { marketplace_id: US, limit: 100 });
      const campaigns = [...sim(US).entities.campaigns.values()];
      expect(rows).to.have.length(2 * campaigns.length);
      const first = addDays(today(US), -29);
      for (const c of campaigns) {
        const row = rows.find((r: Row) => r.campaign_id === campaignIdOf(a, US, c.campaignId));
        expect(row).to.include({
          account_id: a,
          name: c.name,
          state: c.state.toLowerCase(),
          budget_amount: Math.round(c.budget.budget * 100),
          currency: 'USD',
          provider_campaign_id: c.campaignId,
        });
        expect(figuresOf(row)).to.deep.equal(campaignExpected(US, c.campaignId, first, today(US)));
        expectAcos(row);
        const unsynced = rows.find((r: Row) => r.campaign_id === campaignIdOf(b, US, c.campaignId));
        expect(figuresOf(unsynced), 'a campaign without metrics shows zeros').to.deep.equal(ZERO);
      }
      expect(
        rows.some((r: Row) => r.sales === 0 && r.acos === null) &&
          rows.some((r: Row) => r.sales > 0 && r.acos !== null),
      ).to.equal(true);
      expect(rows.map((r: Row) => r.cost)).to.deep.equal(
        rows.map((r: Row) => r.cost).sort((x: number, y: number) => y - x),
      );
      expect(freshness.map((f: Row) => f.account_id)).to.have.members([a, b]);
    });

    it('state, name (case-insensitive substring), and asin (campaign-level figures kept) filter; order_by sales', async () => {
      const campaigns = [...sim(JP).entities.campaigns.values()];
      const paused = (await ok('list_campaigns', { marketplace_id: JP, account: a, state: 'paused', limit: 100 })).rows;
      expect(paused.map((r: Row) => r.provider_campaign_id)).to.have.members(
        campaigns.filter((c) => c.state === 'PAUSED').map((c) => c.campaignId),
      );
      const word = campaigns[0]!.name.split(' - ')[1]!; // e.g. "SP Keywords"
      const named = (
        await ok('list_campaigns', { marketplace_id: JP, account: a, name: word.toUpperCase(), limit: 100 })
      ).rows;
      expect(named.map((r: Row) => r.provider_campaign_id)).to.have.members(
        campaigns.filter((c) => c.name.toLowerCase().includes(word.toLowerCase())).map((c) => c.campaignId),
      );
      expect((await ok('list_campaigns', { account: a, name: '%' })).rows, 'wildcards are literal').to.have.length(0);

      const ads = [...sim(JP).entities.productAds.values()];
      const asin =
        ads.find((ad) => ads.some((o) => o.campaignId !== ad.campaignId && o.asin === ad.asin))?.asin ?? ads[0]!.asin!;
      const holders = new Set(ads.filter((ad) => ad.asin === asin).map((ad) => ad.campaignId));
      const byAsin = (await ok('list_campaigns', { marketplace_id: JP, account: a, asin, limit: 100 })).rows;
      expect(byAsin.map((r: Row) => r.provider_campaign_id)).to.have.members([...holders]);
      for (const row of byAsin) {
        expect(figuresOf(row), 'the whole campaign').to.deep.equal(
          campaignExpected(JP, row.provider_campaign_id, addDays(today(JP), -29), today(JP)),
        );
        expect(row.advertised_asins).to.equal(
          new Set(ads.filter((ad) => ad.campaignId === row.provider_campaign_id).map((ad) => ad.asin)).size,
        );
      }

      const bySales = (await ok('list_campaigns', { marketplace_id: JP, account: a, order_by: 'sales', limit: 5 }))
        .rows;
      const all = campaigns
        .map((c) => campaignExpected(JP, c.campaignId, addDays(today(JP), -29), today(JP)).sales)
        .sort((x, y) => y - x);
      expect(bySales.map((r: Row) => r.sales)).to.deep.equal(all.slice(0, 5));
    });

    it('across currencies each row is ranked within its currency and the ranks interleave; limit bounds', async () => {
      const { rows } = await ok('list_campaigns', { account: a, limit: 10 });
      const currencies = new Set(h.simulator.seller.profiles.map((p) => p.currencyCode));
      expect(rows).to.have.length(10);
      expect(
        new Set(rows.slice(0, currencies.size).map((r: Row) => r.currency)),
        'the top campaign of each currency first',
      ).to.deep.equal(currencies);
      for (const currency of currencies) {
        const costs = rows.filter((r: Row) => r.currency === currency).map((r: Row) => r.cost);
        expect(costs).to.deep.equal([...costs].sort((x, y) => y - x));
      }
      expect((await ok('list_campaigns', { account: a })).rows, 'default limit').to.have.length(20);
      expect((await ok('list_campaigns', { account: a, limit: 3 })).rows).to.have.length(3);
      expect((await refused('list_campaigns', { limit: 101 })).code).to.equal('invalid');
      expect((await refused('list_campaigns', { limit: 0 })).code).to.equal('invalid');
    });
  });

  describe('list_keywords and list_targets', () => {
    /** A campaign of that kind, an enabled one when there is one. */
    const campaignOf = (mk: string, kind: 'keyword' | 'auto') => {
      const ofKind = [...sim(mk).entities.campaigns.values()].filter((c) =>
        kind === 'auto' ? c.targetingType === 'AUTO' : c.name.endsWith('SP Keywords'),
      );
      return ofKind.find((c) => c.state === 'ENABLED') ?? ofKind[0]!;
    };

    it("a keyword campaign's keywords with bid, cost, sales in minor units and their own figures; together they make the campaign's", async () => {
      const c = campaignOf(US, 'keyword');
      const first = addDays(today(US), -29);
      const { rows, freshness } = await ok('list_keywords', {
        campaign_id: campaignIdOf(a, US, c.campaignId),
        limit: 100,
      });
      const keywords = [...sim(US).entities.keywords.values()].filter((k) => k.campaignId === c.campaignId);
      expect(rows.map((r: Row) => r.provider_keyword_id)).to.have.members(keywords.map((k) => k.keywordId));
      for (const k of keywords) {
        const row = rows.find((r: Row) => r.provider_keyword_id === k.keywordId);
        expect(row).to.include({
          keyword: k.keywordText,
          match_type: k.matchType.toLowerCase(),
          state: k.state.toLowerCase(),
          bid: Math.round(k.bid! * 100),
          currency: 'USD',
          campaign_name: c.name,
          account_id: a,
        });
        expect(figuresOf(row)).to.deep.equal(targetExpected(US, c.campaignId, k.keywordId, first, today(US)));
        expectAcos(row);
      }
      expect(rows.reduce((t: Totals, r: Row) => add(t, figuresOf(r)), ZERO)).to.deep.equal(
        campaignExpected(US, c.campaignId, first, today(US)),
      );
      expect(campaignExpected(US, c.campaignId, first, today(US)).cost, 'the campaign spent').to.be.greaterThan(0);
      expect(rows.map((r: Row) => r.cost)).to.deep.equal(
        rows.map((r: Row) => r.cost).sort((x: number, y: number) => y - x),
      );
      expect(freshness.find((f: Row) => f.account_id === a && f.marketplace_id === US).latest_report_date).to.equal(
        addDays(today(US), -1),
      );
    });

    it('match_type, state and order_by clicks; keywords are the keyword subset of targets', async () => {
      const exact = (await ok('list_keywords', { account: a, marketplace_id: US, match_type: 'exact', limit: 100 }))
        .rows;
      expect(exact).to.not.be.empty;
      expect(exact.every((r: Row) => r.match_type === 'exact')).to.equal(true);
      const paused = (await ok('list_keywords', { account: a, marketplace_id: US, state: 'paused', limit: 100 })).rows;
      expect(paused.map((r: Row) => r.provider_keyword_id)).to.have.members(
        [...sim(US).entities.keywords.values()].filter((k) => k.state === 'PAUSED').map((k) => k.keywordId),
      );
      const byClicks = (await ok('list_keywords', { account: a, order_by: 'clicks', limit: 50 })).rows;
      expect(byClicks.map((r: Row) => r.clicks)).to.deep.equal(
        byClicks.map((r: Row) => r.clicks).sort((x: number, y: number) => y - x),
      );
      const keywordTargets = (
        await ok('list_targets', {
          account: a,
          marketplace_id: US,
          target_type: 'keyword',
          order_by: 'clicks',
          limit: 100,
        })
      ).rows;
      const keywords = (await ok('list_keywords', { account: a, marketplace_id: US, order_by: 'clicks', limit: 100 }))
        .rows;
      expect(keywordTargets.map((r: Row) => [r.target_id, r.clicks, r.cost])).to.deep.equal(
        keywords.map((r: Row) => [r.keyword_id, r.clicks, r.cost]),
      );
    });

    it('list_targets: the four auto buckets and product targets with their figures; target_type filters', async () => {
      const first = addDays(today(JP), -29);
      const auto = campaignOf(JP, 'auto');
      const buckets = (await ok('list_targets', { campaign_id: campaignIdOf(a, JP, auto.campaignId) })).rows;
      expect(buckets.map((r: Row) => r.text)).to.have.members([
        'close-match',
        'loose-match',
        'substitutes',
        'complements',
      ]);
      for (const row of buckets) {
        expect(row).to.include({ target_type: 'auto', currency: 'JPY', match_type: null });
        expect(figuresOf(row)).to.deep.equal(
          targetExpected(JP, auto.campaignId, row.provider_target_id, first, today(JP)),
        );
        expect(row.bid, 'whole yen').to.equal(sim(JP).entities.targets.get(row.provider_target_id)!.bid);
      }
      expect(
        buckets.reduce((n: number, r: Row) => n + r.cost, 0),
        'the auto campaign spent',
      ).to.be.greaterThan(0);
      // the product-targeting campaign that spent most over its window, in whichever profile
      const spent = (mk: string, id: string) => campaignExpected(mk, id, addDays(today(mk), -29), today(mk)).cost;
      const [mk, product] = h.simulator.seller.profiles
        .flatMap((p) =>
          [...sim(p.accountInfo.marketplaceStringId).entities.campaigns.values()]
            .filter((c) => c.name.endsWith('SP Product targeting'))
            .map((c) => [p.accountInfo.marketplaceStringId, c] as const),
        )
        .sort(([m1, c1], [m2, c2]) => spent(m2, c2.campaignId) - spent(m1, c1.campaignId))[0]!;
      const targets = (await ok('list_targets', { campaign_id: campaignIdOf(a, mk, product.campaignId), limit: 100 }))
        .rows;
      expect(new Set(targets.map((r: Row) => r.target_type))).to.deep.equal(new Set(['product', 'product_category']));
      for (const row of targets)
        expect(figuresOf(row)).to.deep.equal(
          targetExpected(mk, product.campaignId, row.provider_target_id, addDays(today(mk), -29), today(mk)),
        );
      expect(
        targets.reduce((n: number, r: Row) => n + r.cost, 0),
        'the product campaign spent',
      ).to.be.greaterThan(0);
      expect(
        targets
          .filter((r: Row) => r.target_type === 'product')
          .every((r: Row) => /^asin="B0[0-9A-Z]{8}"$/.test(r.text)),
      ).to.equal(true);
      for (const type of ['auto', 'product', 'product_category', 'keyword']) {
        const rows = (await ok('list_targets', { account: a, marketplace_id: JP, target_type: type, limit: 100 })).rows;
        expect(rows, type).to.not.be.empty;
        expect(rows.every((r: Row) => r.target_type === type)).to.equal(true);
      }
      expect((await refused('list_targets', { campaign_id: 'not-a-uuid' })).code).to.equal('invalid');
    });
  });

  describe('list_ads_entities', () => {
    it('AdvertisingProfile: local and provider ids, currency; campaign_id keeps the profile that holds it', async () => {
      const { rows } = await ok('list_ads_entities', { target_type: 'AdvertisingProfile', account: a, limit: 100 });
      expect(rows).to.have.length(h.simulator.seller.profiles.length);
      const us = rows.find((r: Row) => r.marketplace_id === US);
      expect(us).to.include({
        type: 'AdvertisingProfile',
        provider_profile_id: profile(US).profileId,
        currency: 'USD',
        account_id: a,
      });
      const c = [...sim(JP).entities.campaigns.values()][0]!;
      const held = (
        await ok('list_ads_entities', {
          target_type: 'AdvertisingProfile',
          campaign_id: campaignIdOf(a, JP, c.campaignId),
        })
      ).rows;
      expect(held.map((r: Row) => r.marketplace_id)).to.deep.equal([JP]);
    });

    it('Campaign, AdGroup, Ad: native data in major units, local ids and parents, metrics30 in major units', async () => {
      const c = [...sim(US).entities.campaigns.values()].find(
        (x) => x.state === 'ENABLED' && x.targetingType === 'MANUAL',
      )!;
      const campaignId = campaignIdOf(a, US, c.campaignId);
      const [campaign] = (await ok('list_ads_entities', { target_type: 'Campaign', campaign_id: campaignId })).rows;
      expect(campaign).to.include({
        type: 'Campaign',
        id: campaignId,
        provider_profile_id: profile(US).profileId,
        currency: 'USD',
        name: c.name,
        state: 'enabled',
      });
      expect(campaign.data, 'the native entity unchanged').to.deep.equal(c);
      expect(Number(campaign.daily_budget)).to.equal(c.budget.budget);
      const expected = campaignExpected(US, c.campaignId, addDays(today(US), -29), today(US));
      expect(campaign.metrics30).to.deep.equal({
        cost: expected.cost / 100,
        sales: expected.sales / 100,
        acos: expected.sales ? Math.round((expected.cost / expected.sales) * 10_000) / 10_000 : null,
        roas: expected.cost ? Math.round((expected.sales / expected.cost) * 10_000) / 10_000 : null,
        impressions: expected.impressions,
        clicks: expected.clicks,
        purchases: expected.purchases,
      });
      const groups = (await ok('list_ads_entities', { target_type: 'AdGroup', campaign_id: campaignId })).rows;
      expect(groups.map((g: Row) => g.data.adGroupId)).to.have.members(
        [...sim(US).entities.adGroups.values()].filter((g) => g.campaignId === c.campaignId).map((g) => g.adGroupId),
      );
      expect(
        groups.every(
          (g: Row) =>
            g.type === 'AdGroup' &&
            g.campaign_id === campaignId &&
            g.id === adsEntityId('ad_group', a, String(profile(US).profileId), g.data.adGroupId),
        ),
      ).to.equal(true);
      const adsRows = (await ok('list_ads_entities', { target_type: 'Ad', campaign_id: campaignId })).rows;
      expect(adsRows.map((r: Row) => r.data)).to.have.deep.members(
        [...sim(US).entities.productAds.values()].filter((x) => x.campaignId === c.campaignId),
      );
      expect(adsRows.every((r: Row) => r.type === 'Ad' && r.asin === r.data.asin && r.metrics30 === null)).to.equal(
        true,
      );
    });

    it('mutations: a campaign shows its pending requests and a creation inside it; a profile its campaign creations', async () => {
      const c = [...sim(US).entities.campaigns.values()][0]!;
      const campaignId = campaignIdOf(a, US, c.campaignId);
      const [profileRow] = (
        await ok('list_ads_entities', { target_type: 'AdvertisingProfile', campaign_id: campaignId })
      ).rows;
      const ctx = { store: h.store, metadata: { actor: { kind: 'worker' as const, id: 'test' } } };
      let tick = 0; // admission times one millisecond apart: receipts are ordered by created_at
      const admit = async (
        target: { type: 'Campaign' | 'AdvertisingProfile'; id: string },
        action: 'update' | 'create_ad_group' | 'create_campaign',
        payload: Record<string, unknown>,
      ) => {
        const receipt_id = randomUUID();
        const provider: Record<string, string> =
          target.type === 'Campaign'
            ? { profileId: String(profile(US).profileId), campaignId: String(c.campaignId) }
            : { profileId: String(profile(US).profileId), countryCode: 'US' };
        await executeMutationCommand(ctx, {
          type: 'AdmitMutation',
          receipt_id,
          account_id: a,
          target,
          provider,
          action,
          payload,
          idempotency: null,
          created_at: new Date(h.clock.ms + ++tick).toISOString(),
          blocked: null,
        });
        return receipt_id;
      };
      const update = await admit({ type: 'Campaign', id: campaignId }, 'update', { state: 'PAUSED' });
      const creation = await admit({ type: 'Campaign', id: campaignId }, 'create_ad_group', {
        name: 'Exact',
        state: 'ENABLED',
        defaultBid: 0.5,
      });
      const launch = await admit({ type: 'AdvertisingProfile', id: profileRow.id }, 'create_campaign', {
        name: 'Launch',
        targetingType: 'AUTO',
        state: 'ENABLED',
        budget: { budget: 10, budgetType: 'DAILY' },
      });
      await h.projector.whenCaughtUp();
      const [campaign] = (await ok('list_ads_entities', { target_type: 'Campaign', campaign_id: campaignId })).rows;
      expect(campaign.mutations.map((m: Row) => [m.id, m.action, m.status])).to.deep.equal([
        [update, 'update', 'queued'],
        [creation, 'create_ad_group', 'queued'],
      ]);
      expect(campaign.mutations[1].payload).to.deep.equal({ name: 'Exact', state: 'ENABLED', defaultBid: 0.5 });
      const [profileAgain] = (
        await ok('list_ads_entities', { target_type: 'AdvertisingProfile', campaign_id: campaignId })
      ).rows;
      expect(profileAgain.mutations.map((m: Row) => m.id)).to.deep.equal([launch]);
      const others = (await ok('list_ads_entities', { target_type: 'Campaign', account: a, limit: 100 })).rows.filter(
        (r: Row) => r.id !== campaignId,
      );
      expect(others.every((r: Row) => Array.isArray(r.mutations) && r.mutations.length === 0)).to.equal(true);
    });

    it('Target: positives with bid and metrics30, exclusions with negative, level and local parents and no metrics; JPY stays whole yen in data', async () => {
      const c = [...sim(JP).entities.campaigns.values()].find((x) => x.targetingType === 'AUTO')!;
      const campaignId = campaignIdOf(a, JP, c.campaignId);
      const { rows } = await ok('list_ads_entities', { target_type: 'Target', campaign_id: campaignId, limit: 100 });
      const e = sim(JP).entities;
      const expectedIds = [
        ...e.targets.values(),
        ...e.negativeTargets.values(),
        ...e.negativeKeywords.values(),
        ...e.campaignNegativeKeywords.values(),
      ].filter((t) => t.campaignId === c.campaignId);
      expect(rows).to.have.length(expectedIds.length);
      const campaignLevel = rows.filter((r: Row) => r.level === 'CAMPAIGN');
      expect(campaignLevel.map((r: Row) => r.text)).to.have.members(['cheap', 'diy']);
      for (const r of campaignLevel) {
        expect(r).to.include({
          type: 'Target',
          negative: true,
          campaign_id: campaignId,
          ad_group_id: null,
          target_type: 'keyword',
        });
        expect(r).to.not.have.any.keys('metrics30', 'bid');
      }
      const groupLevel = rows.filter((r: Row) => r.negative && r.level === 'AD_GROUP');
      expect(groupLevel).to.not.be.empty;
      expect(
        groupLevel.every(
          (r: Row) =>
            r.ad_group_id === adsEntityId('ad_group', a, String(profile(JP).profileId), r.data.adGroupId) &&
            r.campaign_id === campaignId,
        ),
      ).to.equal(true);
      const positives = rows.filter((r: Row) => !r.negative);
      expect(positives.map((r: Row) => r.text)).to.have.members([
        'close-match',
        'loose-match',
        'substitutes',
        'complements',
      ]);
      for (const r of positives) {
        expect(r.data).to.deep.equal(e.targets.get(r.data.targetId));
        expect(Number(r.bid)).to.equal(r.data.bid);
        const t = targetExpected(JP, c.campaignId, r.data.targetId, addDays(today(JP), -29), today(JP));
        expect(r.metrics30).to.include({
          cost: t.cost,
          sales: t.sales,
          clicks: t.clicks,
          impressions: t.impressions,
          purchases: t.purchases,
        });
      }
      const all = (await ok('list_ads_entities', { target_type: 'Target', account: a, limit: 100 })).rows;
      expect(all).to.have.length(100);
      expect((await ok('list_ads_entities', { target_type: 'Target', account: a })).rows).to.have.length(20);
      expect((await ok('list_ads_entities', { target_type: 'Target', account: a })).truncated).to.equal(true);
      expect((await refused('list_ads_entities', {})).code).to.equal('invalid');
      expect((await refused('list_ads_entities', { target_type: 'Keyword' })).code).to.equal('invalid');
    });

    it('two accounts of one user: rows carry each account id and name, with local ids of their own', async () => {
      const names = { [a]: await accountName(a), [b]: await accountName(b) };
      const rows = (await ok('list_ads_entities', { target_type: 'Campaign', limit: 100 })).rows;
      const campaigns = h.simulator.seller.profiles.reduce(
        (n, p) => n + sim(p.accountInfo.marketplaceStringId).entities.campaigns.size,
        0,
      );
      expect(rows).to.have.length(Math.min(100, 2 * campaigns));
      expect(new Set(rows.map((r: Row) => r.account_id))).to.deep.equal(new Set([a, b]));
      expect(rows.every((r: Row) => r.account_name === names[r.account_id])).to.equal(true);
      const other = (await ok('list_ads_entities', { target_type: 'Campaign', account: b, limit: 5 })).rows;
      expect(other.every((r: Row) => r.account_id === b)).to.equal(true);
      const sameCampaign = other[0]!;
      expect(sameCampaign.id).to.equal(
        adsEntityId('campaign', b, String(sameCampaign.provider_profile_id), sameCampaign.data.campaignId),
      );
      expect(sameCampaign.metrics30, 'no metrics synced for this account').to.include({
        cost: 0,
        sales: 0,
        acos: null,
        roas: null,
      });
    });
  });

  describe('a vendor account', () => {
    it('sees the ads tools; its profiles are listed, and its unsynced figures read zero with empty freshness', async () => {
      const vendor = await serving.clientFor(vendorUser);
      const names = (await vendor.listTools()).tools.map((t) => t.name);
      expect(names).to.include.members(ADS_TOOLS);
      const profiles = (await ok('list_ads_entities', { target_type: 'AdvertisingProfile', limit: 100 }, vendor)).rows;
      expect(profiles.map((p: Row) => p.provider_profile_id)).to.have.members(
        h.simulator.vendor.profiles.map((p) => p.profileId),
      );
      const { rows, freshness } = await ok('get_ads_summary', { marketplace_id: US }, vendor);
      expect(rows).to.have.length(1);
      expect(rows[0]).to.include({
        currency: 'USD',
        cost: 0,
        sales: 0,
        acos: null,
        provider_profile_id: String(
          h.simulator.vendor.profiles.find((p) => p.accountInfo.marketplaceStringId === US)!.profileId,
        ),
      });
      expect(freshness[0].latest_report_date).to.equal(null);
      expect((await ok('list_campaigns', {}, vendor)).rows).to.deep.equal([]);
    });
  });

  // last: these move the clock
  describe('the targeting sync and its projection', () => {
    it('a second run re-reads only the restated trailing 14 days; a new day arrives when the clock moves on', async () => {
      const creates = () =>
        h.simulator.requests
          .list()
          .filter(
            (r) =>
              r.method === 'POST' &&
              r.path === '/reporting/reports' &&
              (r.body as Row).configuration.reportTypeId === 'spTargeting',
          );
      const before = creates().length;
      const job = adsTargetingMetricsSync({ historyDays: HISTORY_DAYS });
      expect(await job.run({ ...h.deps(''), credentials: () => ({ ads_refresh_token: ADS_TOKEN }) }, a)).to.deep.equal({
        recorded: 0,
      });
      const again = creates().slice(before);
      expect(again).to.have.length(h.simulator.seller.profiles.length);
      for (const r of again) {
        const body = r.body as Row;
        expect([body.configuration.groupBy, body.configuration.timeUnit, addDays(body.startDate, 13)]).to.deep.equal([
          ['targeting'],
          'DAILY',
          body.endDate,
        ]);
      }
      h.clock.ms += 86_400_000;
      await run(job, a);
      const { freshness } = await ok('list_keywords', { account: a, marketplace_id: US });
      expect(freshness[0].latest_report_date).to.equal(addDays(today(US), -1));
    });

    it('apply twice gives the same rows, and a rebuild equals the live tables', async () => {
      const events = (await h.allEvents()).filter((e) => adsProjection.handles.includes(e.type));
      expect(events.some((e) => (e.data as Row).dataset === 'sp_targeting_daily')).to.equal(true);
      await assertApplyTwiceSameResult(h.db, adsProjection, events);
      await assertRebuildEqualsLive(h.db, h.store, adsProjection);
    });
  });

  async function accountName(accountId: string): Promise<string> {
    return (await h.db('rm.accounts').where({ account_id: accountId }).first('name')).name;
  }
});
