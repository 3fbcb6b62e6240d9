import { expect } from 'chai';
import { addDays, localDate } from '../../src/domain/shared/calendar.js';
import { SP_CAMPAIGN_DAILY_COLUMNS } from '../../src/marketplace/clients/ads-reporting-types.js';
import { SP_RESOURCE_NAMES } from '../../src/marketplace/clients/ads-sp-types.js';
import { createAdsClient } from '../../src/marketplace/clients/index.js';
import { adsProjection } from '../../src/projections/observed/ads.js';
import { vAdPerformance } from '../../src/projections/views/v_ad_performance.js';
import { vAdvertisedProducts } from '../../src/projections/views/v_advertised_products.js';
import { adsEntitiesSync } from '../../src/workers/sync/ads-entities.js';
import { adsCampaignMetricsSync } from '../../src/workers/sync/ads-metrics.js';
import type { SyncDeps, SyncJobDefinition } from '../../src/workers/sync/job.js';
import { ReportNotReady } from '../../src/workers/sync/reports.js';
import {
  assertApplyTwiceSameResult,
  assertBatchEqualsOneByOne,
  assertRebuildEqualsLive,
} from '../support/projections.js';
import { DAY_MS, startHarness, type Harness } from '../support/observed.js';
import { SP_CAMPAIGN_DAILY } from '../../src/domain/observation/datasets.js';
import { adsEntityId } from '../../src/domain/observation/ids.js';

const ADS_TOKEN = 'Atzr|demo-advertiser';
const US = 'ATVPDKIKX0DER';
const JP = 'A1VC38T7YXB528';
const PERFORMANCE_COLUMNS = [
  'account_id',
  'campaign_id',
  'campaign_name',
  'campaign_state',
  'advertising_profile_id',
  'marketplace_id',
  'currency',
  'report_date',
  'impressions',
  'clicks',
  'cost',
  'attributed_sales_7d',
];
const PRODUCT_COLUMNS = [
  'account_id',
  'campaign_id',
  'asin',
  'sku',
  'state',
  'advertising_profile_id',
  'marketplace_id',
];

// Advertising observed data end to end: the simulator over HTTP, the real ads client, the real
// sync jobs, the event store, the ads projection and the two views as query_data reads them.
describe('advertising: SP entities and daily campaign metrics → rm.ads_* → v_ad_performance, v_advertised_products', function () {
  this.timeout(180_000);
  let h: Harness;
  let account: string;
  const metrics = adsCampaignMetricsSync();
  const deps = (): SyncDeps => ({ ...h.deps(''), credentials: () => ({ ads_refresh_token: ADS_TOKEN }) });
  const run = async (job: SyncJobDefinition) => {
    const { recorded } = await job.run(deps(), account);
    await h.projector.whenCaughtUp();
    return recorded;
  };
  const client = () =>
    createAdsClient({ endpoint: h.simulator.endpoints().adsApiUrl, lwa: deps().lwa, refreshToken: ADS_TOKEN });
  const profile = (marketplaceId: string) =>
    h.simulator.seller.profiles.find((p) => p.accountInfo.marketplaceStringId === marketplaceId)!;
  const yesterday = (marketplaceId: string) => addDays(localDate(h.clock.ms, profile(marketplaceId).timezone), -1);
  const performance = async (where = '') =>
    (
      await h.query(
        [account],
        `select * from v_ad_performance ${where} order by marketplace_id, campaign_id, report_date`,
      )
    ).rows;
  const reportCreates = () =>
    h.simulator.requests.list().filter((r) => r.method === 'POST' && r.path === '/reporting/reports');

  before(async () => {
    h = await startHarness(
      [adsProjection],
      [vAdPerformance, vAdvertisedProducts],
      Date.parse('2026-05-20T15:00:00Z'),
      23,
    );
    account = await h.connect('seller');
  });
  after(() => h.close());

  describe('entities', () => {
    it('records every resource of every profile and projects campaigns with local ids, native data and minor units', async () => {
      expect(await run(adsEntitiesSync)).to.be.greaterThan(0);
      for (const marketplaceId of [US, JP]) {
        const profileId = String(profile(marketplaceId).profileId);
        const listed = (
          await client().sp.list(profileId, 'campaigns', {
            stateFilter: { include: ['ENABLED', 'PAUSED', 'ARCHIVED'] },
          })
        ).items;
        const rows = await h
          .db('rm.ads_campaigns')
          .where({ account_id: account, provider_profile_id: profileId })
          .orderBy('provider_id');
        expect(rows.map((r) => r.provider_id)).to.deep.equal(listed.map((c) => c.campaignId).sort());
        for (const campaign of listed) {
          const row = rows.find((r) => r.provider_id === campaign.campaignId);
          expect(row.id).to.equal(adsEntityId('campaign', account, profileId, campaign.campaignId));
          expect(row.data, 'native entity unchanged').to.deep.equal(campaign);
          const factor = marketplaceId === JP ? 1 : 100;
          expect(Number(row.budget_amount), `${marketplaceId} budget in minor units`).to.equal(
            Math.round(campaign.budget.budget * factor),
          );
          expect(row.currency).to.equal(marketplaceId === JP ? 'JPY' : 'USD');
        }
      }
      const jpBudget = await h.db('rm.ads_campaigns').where({ account_id: account, currency: 'JPY' }).first();
      expect(Number(jpBudget.budget_amount), 'whole yen').to.equal(jpBudget.data.budget.budget);
      const scopes = await h
        .db('rm.observed_scopes')
        .where({ account_id: account })
        .whereLike('dataset', 'sp\\_%')
        .count<{ count: string }[]>();
      expect(Number(scopes[0]!.count)).to.equal(SP_RESOURCE_NAMES.length * h.simulator.seller.profiles.length);
    });

    it('keeps keywords, auto buckets, product targets and exclusions in one targets table, with level, negative flag and parents', async () => {
      const targets = await h.db('rm.ads_targets').where({ account_id: account });
      expect(new Set(targets.map((t) => t.category))).to.deep.equal(
        new Set(['keyword', 'auto', 'product', 'product_category']),
      );
      expect(new Set(targets.filter((t) => t.category === 'auto').map((t) => t.text))).to.deep.equal(
        new Set(['close-match', 'loose-match', 'substitutes', 'complements']),
      );
      expect(targets.find((t) => t.category === 'product')!.text).to.match(/^asin="B0[0-9A-Z]{8}"$/);
      const keyword = targets.find((t) => t.kind === 'keyword')!;
      expect(keyword).to.include({
        negative: false,
        level: 'AD_GROUP',
        text: keyword.data.keywordText,
        match_type: keyword.data.matchType.toLowerCase(),
      });
      const campaignLevel = targets.filter((t) => t.level === 'CAMPAIGN');
      expect(campaignLevel).to.not.be.empty;
      expect(
        campaignLevel.every((t) => t.negative && t.ad_group_id === null && t.campaign_id !== null && t.bid === null),
      ).to.equal(true);
      expect(
        targets
          .filter((t) => t.negative && t.level === 'AD_GROUP')
          .every((t) => t.ad_group_id !== null && t.bid === null),
      ).to.equal(true);
      const campaignIds = new Set(
        (await h.db('rm.ads_campaigns').where({ account_id: account }).select('id')).map((r) => r.id),
      );
      const adGroupIds = new Set(
        (await h.db('rm.ads_ad_groups').where({ account_id: account }).select('id')).map((r) => r.id),
      );
      expect(
        targets.every(
          (t) => campaignIds.has(t.campaign_id) && (t.ad_group_id === null || adGroupIds.has(t.ad_group_id)),
        ),
        'parents are local ids of observed entities',
      ).to.equal(true);
      const jpKeyword = targets.find((t) => t.kind === 'keyword' && t.currency === 'JPY')!;
      expect(Number(jpKeyword.bid)).to.equal(jpKeyword.data.bid);
      const usKeyword = targets.find((t) => t.kind === 'keyword' && t.currency === 'USD')!;
      expect(Number(usKeyword.bid)).to.equal(Math.round(usKeyword.data.bid * 100));
    });

    it('v_advertised_products: exactly the spec columns, one row per product ad, with local campaign and profile ids', async () => {
      const { columns, rows } = await h.query([account], 'select * from v_advertised_products');
      expect(columns).to.deep.equal(PRODUCT_COLUMNS);
      const ads = await h.db('rm.ads_product_ads').where({ account_id: account });
      expect(rows).to.have.length(ads.length);
      const profiles = await h.db('rm.advertising_profiles').where({ account_id: account });
      const key = (r: Record<string, unknown>) => JSON.stringify(PRODUCT_COLUMNS.map((c) => r[c]));
      const expected = ads.map((a) => {
        const p = profiles.find((x) => x.provider_profile_id === a.provider_profile_id)!;
        return {
          account_id: account,
          campaign_id: a.campaign_id,
          asin: a.asin,
          sku: a.sku,
          state: a.state.toLowerCase(),
          advertising_profile_id: p.profile_id,
          marketplace_id: p.marketplace_id,
        };
      });
      expect(rows.map(key).sort()).to.deep.equal(expected.map(key).sort());
      for (const row of rows)
        expect(
          h.simulator.catalog.findListing(row.sku!, row.marketplace_id!),
          'a catalog SKU of that marketplace',
        ).to.not.equal(undefined);
      expect(new Set(rows.map((r) => r.state))).to.deep.equal(new Set(['enabled', 'paused']));
      expect(
        (await h.query([], 'select * from v_advertised_products')).rows,
        'another caller sees nothing',
      ).to.have.length(0);
    });

    it('a second run over unchanged entities records nothing; a change made through the API is recorded and projected', async () => {
      expect(await run(adsEntitiesSync)).to.equal(0);
      const us = String(profile(US).profileId);
      const enabled = (await client().sp.list(us, 'campaigns', { stateFilter: { include: ['ENABLED'] } })).items[0]!;
      const update = await client().sp.update(us, 'campaigns', [{ campaignId: enabled.campaignId, state: 'PAUSED' }]);
      expect(update.success).to.have.length(1);
      expect(await run(adsEntitiesSync)).to.equal(1);
      const row = await h
        .db('rm.ads_campaigns')
        .where({ account_id: account, provider_id: enabled.campaignId })
        .first();
      expect(row.state).to.equal('PAUSED');
    });
  });

  describe('daily campaign metrics', () => {
    it('a first run reads a year of every profile, one day scope each, through yesterday in the profile time zone', async () => {
      const before = (await h.allEvents()).length;
      const recorded = await run(metrics);
      expect(recorded, 'what the run says it recorded').to.equal((await h.allEvents()).length - before);
      for (const p of h.simulator.seller.profiles) {
        const scopes = (
          await h
            .db('rm.observed_scopes')
            .where({ account_id: account, dataset: SP_CAMPAIGN_DAILY })
            .whereLike('scope', `${p.profileId}/%`)
            .orderBy('scope')
        ).map((r) => r.scope.split('/')[1]);
        const last = yesterday(p.accountInfo.marketplaceStringId);
        expect(scopes).to.have.length(365);
        expect([scopes[0], scopes.at(-1)]).to.deep.equal([addDays(last, -364), last]);
      }
      // reports of at most 31 days
      expect(
        reportCreates().every(
          (r) =>
            (r.body as { startDate: string; endDate: string }).endDate <=
            addDays((r.body as { startDate: string }).startDate, 30),
        ),
      ).to.equal(true);
    });

    it('v_ad_performance: exactly the spec columns, one row per campaign per day, local ids', async () => {
      const { columns } = await h.query([account], 'select * from v_ad_performance limit 1');
      expect(columns).to.deep.equal(PERFORMANCE_COLUMNS);
      const rows = await performance();
      expect(rows.length).to.be.greaterThan(1000);
      expect(
        new Set(rows.map((r) => `${r.campaign_id}/${r.report_date}`)).size,
        'one row per campaign per day',
      ).to.equal(rows.length);
      const campaigns = await h.db('rm.ads_campaigns').where({ account_id: account });
      const profiles = await h.db('rm.advertising_profiles').where({ account_id: account });
      for (const row of rows.slice(0, 200)) {
        const c = campaigns.find((x) => x.id === row.campaign_id)!;
        expect(row).to.include({ campaign_name: c.name, campaign_state: c.state.toLowerCase(), currency: c.currency });
        expect(profiles.find((p) => p.profile_id === row.advertising_profile_id)!.marketplace_id).to.equal(
          row.marketplace_id,
        );
      }
      expect(new Set(rows.map((r) => r.campaign_state))).to.include.members(['enabled', 'paused', 'archived']);
    });

    it('money is in minor units of the profile currency: whole yen for JPY, cents for USD, as the report states it', async () => {
      for (const [marketplaceId, currency, factor] of [
        [JP, 'JPY', 1],
        [US, 'USD', 100],
      ] as const) {
        const profileId = String(profile(marketplaceId).profileId);
        const day = addDays(yesterday(marketplaceId), -30);
        const { reportId } = await client().reporting.createReport(profileId, {
          startDate: day,
          endDate: day,
          configuration: {
            adProduct: 'SPONSORED_PRODUCTS',
            groupBy: ['campaign'],
            columns: [...SP_CAMPAIGN_DAILY_COLUMNS],
            reportTypeId: 'spCampaigns',
            timeUnit: 'DAILY',
            format: 'GZIP_JSON',
          },
        });
        let report = await client().reporting.getReport(profileId, reportId);
        while (report.status !== 'COMPLETED') report = await client().reporting.getReport(profileId, reportId);
        const expected = (await client().reporting.downloadReport(report.url!)) as Array<{
          campaignId: number;
          cost: number;
          sales7d: number;
          clicks: number;
        }>;
        expect(expected).to.not.be.empty;
        const rows = await performance(`where marketplace_id = '${marketplaceId}' and report_date = '${day}'`);
        expect(rows).to.have.length(expected.length);
        for (const e of expected) {
          const row = rows.find(
            (r) => r.campaign_id === adsEntityId('campaign', account, profileId, String(e.campaignId)),
          )!;
          expect(row.currency).to.equal(currency);
          expect(Number(row.cost)).to.equal(Math.round(e.cost * factor));
          expect(Number(row.attributed_sales_7d)).to.equal(Math.round(e.sales7d * factor));
          expect(Number(row.clicks)).to.equal(e.clicks);
        }
      }
    });

    it('a second run re-reads only the restated trailing 14 days and records nothing when nothing changed', async () => {
      const before = reportCreates().length;
      const events = (await h.allEvents()).length;
      expect(await run(metrics)).to.equal(0);
      const created = reportCreates().slice(before);
      expect(created).to.have.length(h.simulator.seller.profiles.length);
      for (const r of created) {
        const body = r.body as { startDate: string; endDate: string };
        expect(addDays(body.startDate, 13)).to.equal(body.endDate);
      }
      expect((await h.allEvents()).length).to.equal(events);
    });

    it('when the clock moves on, restated days replace the earlier figures', async () => {
      const from = addDays(yesterday(US), -12);
      const before = await performance(`where marketplace_id = '${US}' and report_date >= '${from}'`);
      const settledBefore = await performance(
        `where marketplace_id = '${US}' and report_date < '${addDays(from, -20)}'`,
      );
      h.clock.ms += 2 * DAY_MS;
      expect(await run(metrics)).to.be.greaterThan(0);
      const after = await performance(`where marketplace_id = '${US}' and report_date >= '${from}'`);
      let grew = 0;
      for (const old of before) {
        const now = after.filter((r) => r.campaign_id === old.campaign_id && r.report_date === old.report_date);
        expect(now, 'the restated day replaced its row').to.have.length(1);
        expect(Number(now[0]!.attributed_sales_7d)).to.be.at.least(Number(old.attributed_sales_7d));
        if (Number(now[0]!.attributed_sales_7d) > Number(old.attributed_sales_7d)) grew++;
      }
      expect(grew, 'maturing sales were restated upwards').to.be.greaterThan(0);
      expect(
        after.some((r) => r.report_date === yesterday(US)),
        'the new days arrived',
      ).to.equal(true);
      expect(
        await performance(`where marketplace_id = '${US}' and report_date < '${addDays(from, -20)}'`),
        'settled days unchanged',
      ).to.deep.equal(settledBefore);
    });

    it("the rollup per profile-day holds each day scope's campaign rows of its last complete read summed, restated days included", async () => {
      const metricsOf = (table: string) => `sum(m.impressions)::bigint as impressions, sum(m.clicks)::bigint as clicks,
        sum(m.cost)::bigint as cost, sum(m.attributed_sales_7d)::bigint as sales, sum(m.purchases_7d)::bigint as purchases
        from rm.${table} m`;
      const order = 'order by 1, 2, 3';
      const rolled = await h.db.raw(
        `select m.provider_profile_id, m.scope, m.report_date::text as day, ${metricsOf('ads_profile_days')} group by 1, 2, 3 ${order}`,
      );
      const summed = await h.db.raw(
        `select m.provider_profile_id, m.scope, m.report_date::text as day, ${metricsOf('ads_campaign_daily')}
         join rm.observed_scopes s on s.account_id = m.account_id and s.dataset = ? and s.scope = m.scope and m.page < s.pages
         group by 1, 2, 3 ${order}`,
        [SP_CAMPAIGN_DAILY],
      );
      expect(summed.rows.length, 'a year of days of every profile').to.be.greaterThan(700);
      expect(rolled.rows).to.deep.equal(summed.rows);
    });

    it('a report still PENDING fails the run with ReportNotReady at once; the retry adopts the same report', async () => {
      const quick = adsCampaignMetricsSync({ pollPausesMs: [0] });
      const control = (hold: boolean) =>
        fetch(`${h.simulator.endpoints().adsApiUrl}/_sim/ads/reporting`, {
          method: 'PUT',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ hold }),
        });
      h.clock.ms += DAY_MS;
      await control(true);
      const before = reportCreates().length;
      const error = await quick.run(deps(), account).then(
        () => null,
        (e: unknown) => e,
      );
      expect(error).to.be.instanceOf(ReportNotReady);
      const first = reportCreates().slice(before);
      expect(first.filter((r) => r.status === 200)).to.have.length(h.simulator.seller.profiles.length);
      await control(false);
      expect(await run(metrics)).to.be.greaterThan(0);
      const retry = reportCreates().slice(before + first.length);
      expect(
        retry.map((r) => r.status),
        'identical requests answered 425 and were adopted',
      ).to.deep.equal(retry.map(() => 425));
      expect(await performance(`where report_date = '${yesterday(US)}' and marketplace_id = '${US}'`)).to.not.be.empty;
    });
  });

  // in a suite of its own: mocha runs a suite's own tests before its child suites
  describe('projection', () => {
    it('apply twice gives the same rows, a batch leaves the rows one event at a time leaves, and a rebuild equals the live tables', async () => {
      const events = (await h.allEvents()).filter((e) => adsProjection.handles.includes(e.type));
      expect(
        events.filter((e) => e.type === 'PageObserved').length,
        'a year of days and the entities',
      ).to.be.greaterThan(1825);
      await assertApplyTwiceSameResult(h.db, adsProjection, events);
      // the profiles and entities first, then restated days: pages of one scope observed again
      await assertBatchEqualsOneByOne(h.db, adsProjection, events);
      await assertRebuildEqualsLive(h.db, h.store, adsProjection);
    });
  });
});
