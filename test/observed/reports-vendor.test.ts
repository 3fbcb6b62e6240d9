import { expect } from 'chai';
import { economicsProjection } from '../../src/projections/observed/economics.js';
import { vendorProjection } from '../../src/projections/observed/vendor.js';
import { vSellerEconomics } from '../../src/projections/views/v_seller_economics.js';
import { vVendorMetrics } from '../../src/projections/views/v_vendor_metrics.js';
import { dateOfDay } from '../../src/marketplace/simulator/reports/keyed.js';
import { economicsSync } from '../../src/workers/sync/reports-economics.js';
import { vendorMetricsSync } from '../../src/workers/sync/reports-vendor.js';
import { syncScope } from '../../src/workers/sync/scope.js';
import {
  assertApplyTwiceSameResult,
  assertBatchEqualsOneByOne,
  assertRebuildEqualsLive,
} from '../support/projections.js';
import { DAY_MS, startHarness, type Harness } from '../support/observed.js';

const VENDOR = 'Atzr|demo-vendor';
const JP = 'A1VC38T7YXB528';
const COLUMNS = [
  'account_id',
  'marketplace_id',
  'view',
  'date',
  'asin',
  'currency',
  'ordered_units',
  'ordered_revenue',
  'unfilled_ordered_units',
  'net_ordered_gms',
  'net_shipment_gms',
  'shipped_units',
  'shipped_revenue',
  'average_selling_price',
  'glance_views',
  'lost_featured_offer',
  'net_ppm',
  'shipped_cogs',
  'contra_cogs',
  'sales_discount',
  'sell_through_rate',
  'sellable_on_hand_units',
  'unsellable_on_hand_units',
  'sellable_in_transit_units',
  'sourceable_roos',
  'open_purchase_order_units',
  'confirmed_units',
  'net_received_units',
  'received_fill_rate',
  'vendor_confirmation_rate',
  'overall_vendor_lead_time',
];

describe('vendor metrics: vendor reports → vendor_metrics → v_vendor_metrics', function () {
  this.timeout(180_000);
  let h: Harness;
  let vendor: string;
  let seller: string;
  const today = () => Math.floor(h.clock.ms / DAY_MS);
  const rows = async (sql: string, accounts = [vendor]) => (await h.query(accounts, sql)).rows;

  before(async () => {
    h = await startHarness(
      [vendorProjection, economicsProjection],
      [vVendorMetrics, vSellerEconomics],
      Date.parse('2026-02-20T08:00:00Z'),
      5,
    );
    vendor = await h.connect('vendor');
    seller = await h.connect('seller');
  });
  after(() => h.close());

  it('the vendor account is a vendor: the ads profile says so and it has no selling connection', async () => {
    const row = await h.db.withSchema('rm').table('accounts').where({ account_id: vendor }).first();
    expect(row.entity_type).to.equal('vendor');
  });

  it('reads a year of both views per marketplace and day, through the day before yesterday, with the spec columns', async () => {
    expect(await h.run(vendorMetricsSync, vendor, VENDOR)).to.be.greaterThan(0);
    const { columns } = await h.query([vendor], 'select * from v_vendor_metrics limit 1');
    expect(columns).to.deep.equal(COLUMNS);
    const asins = h.simulator.vendor.asins().length;
    const [counts] = await rows(`select count(*) as n, count(distinct date) as days, max(date) as last,
      count(distinct (marketplace_id, view, date, coalesce(asin, ''))) as keys from v_vendor_metrics`);
    expect(Number(counts!.days)).to.equal(365);
    expect(counts!.last).to.equal(dateOfDay(today() - 2));
    // per marketplace, view and day: every ASIN plus the totals row, once
    expect(Number(counts!.n)).to.equal(5 * 2 * 365 * (asins + 1));
    expect(Number(counts!.keys)).to.equal(Number(counts!.n));
  });

  it('the latest two days are empty', async () => {
    expect(await rows(`select 1 from v_vendor_metrics where date > '${dateOfDay(today() - 2)}'`)).to.have.length(0);
  });

  it('the sourcing view has no orders or traffic; the manufacturing view has them', async () => {
    const sourcing = await rows(`select * from v_vendor_metrics where view = 'sourcing'`);
    for (const r of sourcing) {
      for (const column of [
        'ordered_units',
        'ordered_revenue',
        'unfilled_ordered_units',
        'average_selling_price',
        'glance_views',
        'lost_featured_offer',
        'net_ordered_gms',
      ])
        expect(r[column], column).to.equal(null);
      expect(r.shipped_units).to.not.equal(null);
      expect(r.sellable_on_hand_units).to.not.equal(null);
    }
    const manufacturing = await rows(`select * from v_vendor_metrics where view = 'manufacturing'`);
    expect(
      manufacturing.every(
        (r) => r.ordered_units !== null && r.glance_views !== null && r.unfilled_ordered_units !== null,
      ),
    ).to.equal(true);
  });

  it('the null-asin row carries the catalog-wide totals, in minor units (whole yen in JP)', async () => {
    const day = dateOfDay(today() - 10);
    const per = await rows(
      `select * from v_vendor_metrics where marketplace_id = '${JP}' and view = 'manufacturing' and date = '${day}' and asin is not null`,
    );
    const [total] = await rows(
      `select * from v_vendor_metrics where marketplace_id = '${JP}' and view = 'manufacturing' and date = '${day}' and asin is null`,
    );
    for (const column of [
      'ordered_units',
      'ordered_revenue',
      'shipped_units',
      'shipped_revenue',
      'glance_views',
      'sellable_on_hand_units',
    ]) {
      expect(Number(total![column]), column).to.equal(per.reduce((n, r) => n + Number(r[column]), 0));
    }
    expect(total!.currency).to.equal('JPY');
    // simulator prices in JP are whole tens of yen: minor units that were multiplied by 100 would end in 000
    expect(
      per.every((r) => Number(r.average_selling_price) % 10 === 0 && Number(r.average_selling_price) < 20_000),
    ).to.equal(true);
  });

  it('a second run records nothing', async () => {
    expect(await h.run(vendorMetricsSync, vendor, VENDOR)).to.equal(0);
  });

  it('vendor views hide seller accounts and seller views hide vendor accounts', async () => {
    // each account also holds a page of the other kind's dataset, and a seller its own
    const ctx = { store: h.store, metadata: { actor: { kind: 'worker' as const, id: 'test' } } };
    const record = (await import('../../src/marketplace/simulator/reports/economics.js')).economicsRecord;
    const listing = [...h.simulator.catalog.listingsIn('ATVPDKIKX0DER')][0]!;
    const economics = Array.from({ length: 60 }, (_, i) =>
      record(h.simulator.catalog, listing, dateOfDay(today() - 10 - i), 10 + i),
    )
      .filter(Boolean)
      .slice(0, 1);
    const vendorPage = [
      {
        startDate: '2026-02-01',
        endDate: '2026-02-01',
        asin: 'B0TEST0001',
        shippedUnits: 3,
        shippedRevenue: { amount: 30, currencyCode: 'USD' },
      },
    ];
    const record1 = async (account_id: string, dataset: string, scope: string, page: unknown[]) =>
      syncScope(
        ctx,
        { account_id, dataset, scope },
        (async function* () {
          yield page;
        })(),
      );
    await record1(seller, 'vendor_sales', 'ATVPDKIKX0DER/manufacturing/2026-02', vendorPage);
    await record1(vendor, 'seller_economics', `ATVPDKIKX0DER/${economics[0]!.startDate}`, economics);
    await record1(seller, 'seller_economics', `ATVPDKIKX0DER/${economics[0]!.startDate}`, economics);
    await h.projector.whenCaughtUp();
    expect(await h.db.withSchema('rm').table('seller_economics').where({ account_id: vendor })).to.have.length(1);
    expect(await h.db.withSchema('rm').table('vendor_metrics').where({ account_id: seller })).to.have.length(1);
    const vendorRows = await rows('select distinct account_id from v_vendor_metrics', [seller, vendor]);
    expect(vendorRows.map((r) => r.account_id)).to.deep.equal([vendor]);
    const sellerRows = await rows('select distinct account_id from v_seller_economics', [seller, vendor]);
    expect(sellerRows.map((r) => r.account_id)).to.deep.equal([seller]);
    // and the syncs skip accounts of the other kind
    expect(await h.run(economicsSync, vendor, VENDOR)).to.equal(0);
    expect(await h.run(vendorMetricsSync, seller, 'Atzr|demo-seller')).to.equal(0);
  });

  describe('projection', () => {
    it('apply twice gives the same rows, a batch leaves the rows one page at a time leaves, and a rebuild equals the live tables', async () => {
      const events = (await h.allEvents()).filter(
        (e) => e.type === 'PageObserved' && String((e.data as { dataset: string }).dataset).startsWith('vendor_'),
      );
      await assertApplyTwiceSameResult(h.db, vendorProjection, events);
      await assertBatchEqualsOneByOne(h.db, vendorProjection, events);
      await assertRebuildEqualsLive(h.db, h.store, vendorProjection);
    });
  });
});
