import { expect } from 'chai';
import { couponsProjection } from '../../src/projections/observed/coupons.js';
import { economicsProjection } from '../../src/projections/observed/economics.js';
import { promotionsProjection } from '../../src/projections/observed/promotions.js';
import { searchQueryProjection } from '../../src/projections/observed/search_query.js';
import { vCouponPerformance } from '../../src/projections/views/v_coupon_performance.js';
import { vPromotionPerformance } from '../../src/projections/views/v_promotion_performance.js';
import { vSearchQueryPerformance } from '../../src/projections/views/v_search_query_performance.js';
import { vSellerEconomics } from '../../src/projections/views/v_seller_economics.js';
import { dateOfDay } from '../../src/marketplace/simulator/reports/keyed.js';
import { couponsSync, promotionsSync } from '../../src/workers/sync/reports-deals.js';
import { economicsSync } from '../../src/workers/sync/reports-economics.js';
import { searchQuerySync } from '../../src/workers/sync/reports-sqp.js';
import {
  assertApplyTwiceSameResult,
  assertBatchEqualsOneByOne,
  assertRebuildEqualsLive,
} from '../support/projections.js';
import { DAY_MS, startHarness, type Harness } from '../support/observed.js';

const SELLER = 'Atzr|demo-seller';
const US = 'ATVPDKIKX0DER';
const JP = 'A1VC38T7YXB528';

describe('seller reports: search query performance, coupons, promotions', function () {
  this.timeout(180_000);
  let h: Harness;
  let account: string;
  const today = () => Math.floor(h.clock.ms / DAY_MS);
  const rows = async (sql: string) => (await h.query([account], sql)).rows;
  const price = (marketplaceId: string, asin: string) =>
    [...h.simulator.catalog.listingsIn(marketplaceId)].find((l) => l.asin === asin)!.price;

  before(async () => {
    h = await startHarness(
      [economicsProjection, searchQueryProjection, couponsProjection, promotionsProjection],
      [vSellerEconomics, vSearchQueryPerformance, vCouponPerformance, vPromotionPerformance],
      Date.parse('2026-04-15T10:00:00Z'),
      23,
    );
    account = await h.connect('seller');
    await h.run(economicsSync, account, SELLER);
  });
  after(() => h.close());

  describe('v_search_query_performance', () => {
    it('reads the closed windows of the last year (52 weeks, 12 months, 4 quarters), one row per ASIN, query and window', async () => {
      expect(await h.run(searchQuerySync, account, SELLER)).to.be.greaterThan(0);
      const { columns, rows: all } = await h.query([account], 'select * from v_search_query_performance');
      expect(columns).to.deep.equal(vSearchQueryPerformance.columns.map((c) => c.name));
      expect(all.length).to.be.greaterThan(0);
      const windows = new Set(
        all.filter((r) => r.marketplace_id === US).map((r) => `${r.report_period}/${r.start_date}`),
      );
      expect(windows.size).to.equal(52 + 12 + 4);
      const keys = new Set(
        all.map((r) => `${r.marketplace_id}/${r.report_period}/${r.start_date}/${r.asin}/${r.search_query}`),
      );
      expect(keys.size).to.equal(all.length);
    });

    it('has closed windows only: every window ended before today; weeks run Sunday to Saturday', async () => {
      const all = await rows('select report_period, start_date, end_date from v_search_query_performance');
      for (const r of all) {
        expect(r.end_date! < dateOfDay(today()), `${r.report_period} ${r.start_date}`).to.equal(true);
        if (r.report_period === 'WEEK') {
          expect(new Date(`${r.start_date}T00:00:00Z`).getUTCDay()).to.equal(0);
          expect(Date.parse(r.end_date!) - Date.parse(r.start_date!)).to.equal(6 * DAY_MS);
        }
      }
      const asked = h.simulator.requests
        .list()
        .filter(
          (r) =>
            r.path === '/reports/2021-06-30/reports' &&
            r.method === 'POST' &&
            (r.body as { reportType: string }).reportType.includes('SEARCH_QUERY'),
        );
      expect(
        asked.every((r) => String((r.body as { dataEndTime: string }).dataEndTime) < dateOfDay(today())),
        'no open window is ever requested',
      ).to.equal(true);
    });

    it('median prices are minor units: whole yen in JP, cents in US', async () => {
      for (const marketplaceId of [JP, US]) {
        const [r] = await rows(
          `select asin, currency, asin_median_click_price from v_search_query_performance where marketplace_id = '${marketplaceId}' limit 1`,
        );
        expect(Number(r!.asin_median_click_price)).to.equal(price(marketplaceId, r!.asin!));
        expect(r!.currency).to.equal(marketplaceId === JP ? 'JPY' : 'USD');
      }
    });

    it('a second run requests nothing and records nothing: closed windows are final', async () => {
      const creates = () =>
        h.simulator.requests.list().filter((r) => r.path === '/reports/2021-06-30/reports' && r.method === 'POST')
          .length;
      const before = creates();
      expect(await h.run(searchQuerySync, account, SELLER)).to.equal(0);
      expect(creates()).to.equal(before);
    });
  });

  describe('v_coupon_performance and v_promotion_performance', () => {
    it('one row per coupon per marketplace, money in minor units (whole yen in JP)', async () => {
      expect(await h.run(couponsSync, account, SELLER)).to.be.greaterThan(0);
      const { columns, rows: all } = await h.query([account], 'select * from v_coupon_performance');
      expect(columns).to.deep.equal(vCouponPerformance.columns.map((c) => c.name));
      expect(new Set(all.map((r) => `${r.coupon_id}/${r.marketplace_id}`)).size).to.equal(all.length);
      // the run's database holds other suites' accounts too
      const raw = await h.db
        .withSchema('rm')
        .table('coupon_performance')
        .where({ account_id: account })
        .select('marketplace_id', 'coupon_id', 'raw');
      for (const [marketplaceId, factor] of [
        [JP, 1],
        [US, 100],
      ] as const) {
        const c = raw.find((r: { marketplace_id: string }) => r.marketplace_id === marketplaceId)!;
        const row = all.find((r) => r.coupon_id === c.coupon_id)!;
        expect(Number(row.budget_spent)).to.equal(Math.round(c.raw.budgetSpent * factor));
        expect(Number(row.total_discount)).to.equal(Math.round(c.raw.totalDiscount * factor));
        expect(JSON.parse(row.asins!)).to.deep.equal(c.raw.asins.map((a: { asin: string }) => a.asin));
      }
    });

    it('one row per promotion and included ASIN, and a null-asin row for a promotion without products', async () => {
      expect(await h.run(promotionsSync, account, SELLER)).to.be.greaterThan(0);
      const { columns, rows: all } = await h.query([account], 'select * from v_promotion_performance');
      expect(columns).to.deep.equal(vPromotionPerformance.columns.map((c) => c.name));
      const raw = await h.db
        .withSchema('rm')
        .table('promotion_performance')
        .where({ account_id: account })
        .distinct('promotion_id', 'marketplace_id', 'raw');
      for (const { promotion_id, marketplace_id, raw: p } of raw as {
        promotion_id: string;
        marketplace_id: string;
        raw: { includedProducts: { asin: string }[] };
      }[]) {
        const mine = all.filter((r) => r.promotion_id === promotion_id && r.marketplace_id === marketplace_id);
        expect(mine.map((r) => r.asin)).to.have.members(
          p.includedProducts.length ? p.includedProducts.map((i) => i.asin) : [null],
        );
      }
      expect(
        all.some((r) => r.asin === null),
        'the seed has a promotion without products',
      ).to.equal(true);
    });

    it('re-syncing the same day records nothing; the next day the running deals restate in place', async () => {
      expect(await h.run(couponsSync, account, SELLER)).to.equal(0);
      expect(await h.run(promotionsSync, account, SELLER)).to.equal(0);
      const before = await rows('select coupon_id, marketplace_id, clips from v_coupon_performance');
      h.clock.ms += DAY_MS;
      expect(await h.run(couponsSync, account, SELLER)).to.be.greaterThan(0);
      const after = await rows('select coupon_id, marketplace_id, clips from v_coupon_performance');
      expect(new Set(after.map((r) => `${r.coupon_id}/${r.marketplace_id}`)).size).to.equal(after.length);
      expect(
        after.some((a) => before.some((b) => b.coupon_id === a.coupon_id && Number(a.clips) > Number(b.clips))),
        'a running coupon gained clips',
      ).to.equal(true);
    });
  });

  // nested, so it runs after the suites above (mocha runs a suite's own tests first)
  describe('projections', () =>
    it('apply twice gives the same rows, a batch leaves the rows one page at a time leaves, and a rebuild equals the live tables', async () => {
      const events = (await h.allEvents()).filter(
        (e) =>
          e.type === 'PageObserved' &&
          ['search_query_performance', 'coupon_performance', 'promotion_performance'].includes(
            (e.data as { dataset: string }).dataset,
          ),
      );
      for (const projection of [searchQueryProjection, couponsProjection, promotionsProjection]) {
        await assertApplyTwiceSameResult(h.db, projection, events);
        await assertBatchEqualsOneByOne(h.db, projection, events);
        await assertRebuildEqualsLive(h.db, h.store, projection);
      }
    }));
});
