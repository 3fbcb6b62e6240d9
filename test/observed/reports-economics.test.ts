import { expect } from 'chai';
import { economicsProjection } from '../../src/projections/observed/economics.js';
import { vSellerEconomics } from '../../src/projections/views/v_seller_economics.js';
import { economicsRecords, type EconomicsRecord } from '../../src/marketplace/simulator/reports/economics.js';
import { dateOfDay } from '../../src/marketplace/simulator/reports/keyed.js';
import { economicsSync } from '../../src/workers/sync/reports-economics.js';
import { ReportNotReady } from '../../src/workers/sync/reports.js';
import {
  assertApplyTwiceSameResult,
  assertBatchEqualsOneByOne,
  assertRebuildEqualsLive,
} from '../support/projections.js';
import { DAY_MS, startHarness, type Harness } from '../support/observed.js';

const SELLER = 'Atzr|demo-seller';
const US = 'ATVPDKIKX0DER';
const JP = 'A1VC38T7YXB528';
const COLUMNS = [
  'account_id',
  'sku',
  'asin',
  'date',
  'marketplace_id',
  'currency',
  'ordered_product_sales',
  'net_product_sales',
  'referral_fee',
  'fulfillment_fee',
  'storage_fee',
  'other_fees',
  'total_fees',
  'net_proceeds',
  'net_proceeds_per_unit',
  'net_units_sold',
  'units_ordered',
  'units_refunded',
];

describe('seller economics: Data Kiosk → seller_economics → v_seller_economics', function () {
  this.timeout(120_000);
  let h: Harness;
  let account: string;
  const start = Date.parse('2026-03-10T09:00:00Z');
  const today = () => Math.floor(h.clock.ms / DAY_MS);
  /** What the simulator reports for a marketplace over the trailing year, as of now. */
  const expected = (marketplaceId: string, days = 365): EconomicsRecord[] => [
    ...economicsRecords(h.simulator.catalog, marketplaceId, today() - days, today() - 1, today(), dateOfDay),
  ];
  const viewRows = async (where = '') =>
    (await h.query([account], `select * from v_seller_economics ${where} order by marketplace_id, date, sku`)).rows;

  before(async () => {
    h = await startHarness([economicsProjection], [vSellerEconomics], start);
    account = await h.connect('seller');
  });
  after(() => h.close());

  it('a first run reads a year of every marketplace: one row per SKU per day, with the spec columns', async () => {
    expect(await h.run(economicsSync, account, SELLER)).to.be.greaterThan(0);
    const { columns, rows } = await h.query([account], 'select * from v_seller_economics');
    expect(columns).to.deep.equal(COLUMNS);
    const wanted = h.simulator.seller.participations.flatMap((p) => expected(p.marketplace.id));
    expect(rows).to.have.length(wanted.length);
    const keys = new Set(rows.map((r) => `${r.marketplace_id}/${r.sku}/${r.date}`));
    expect(keys.size, 'one row per SKU per day per marketplace').to.equal(rows.length);
    expect(rows.every((r) => r.account_id === account)).to.equal(true);
  });

  it('fees are signed and add up: net_product_sales + total_fees = net_proceeds on every row', async () => {
    const rows = await viewRows();
    const n = (v: string | null | undefined) => (v === null ? 0 : Number(v));
    for (const r of rows) {
      expect(n(r.net_product_sales) + n(r.total_fees), `${r.sku} ${r.date}`).to.equal(n(r.net_proceeds));
      expect(n(r.referral_fee) + n(r.fulfillment_fee) + n(r.storage_fee) + n(r.other_fees)).to.equal(n(r.total_fees));
      for (const fee of ['referral_fee', 'fulfillment_fee', 'storage_fee', 'other_fees'])
        if (r[fee] !== null) expect(Number(r[fee])).to.be.at.most(0);
    }
    // a named fee absent on a day is null, not 0
    expect(rows.some((r) => r.storage_fee === null) && rows.some((r) => r.storage_fee !== null)).to.equal(true);
    expect(
      rows.some((r) => r.fulfillment_fee === null),
      'merchant-fulfilled SKUs pay no FBA fee',
    ).to.equal(true);
  });

  it('money is in minor units of the row currency: whole yen for JPY, cents for USD', async () => {
    for (const [marketplaceId, currency, factor] of [
      [JP, 'JPY', 1],
      [US, 'USD', 100],
    ] as const) {
      const record = expected(marketplaceId).find((r) => r.fees.length >= 2)!;
      const [row] = await viewRows(
        `where marketplace_id = '${marketplaceId}' and sku = '${record.msku}' and date = '${record.startDate}'`,
      );
      expect(row!.currency).to.equal(currency);
      expect(Number(row!.ordered_product_sales)).to.equal(Math.round(record.sales.orderedProductSales.amount * factor));
      const referral = record.fees.find((f) => f.feeTypeName === 'ReferralFee');
      if (referral)
        expect(Number(row!.referral_fee)).to.equal(
          -Math.round(referral.charges[0]!.aggregatedDetail.totalAmount.amount * factor),
        );
      expect(Number(row!.net_proceeds)).to.equal(Math.round(record.netProceeds.total.amount * factor));
    }
  });

  it('a second run over unchanged data records nothing', async () => {
    const before = (await h.allEvents()).length;
    expect(await h.run(economicsSync, account, SELLER)).to.equal(0);
    expect((await h.allEvents()).length).to.equal(before);
  });

  it('the next day, the trailing week restates: later refunds replace the earlier figures', async () => {
    const before = await viewRows(`where date >= '${dateOfDay(today() - 8)}'`);
    h.clock.ms += DAY_MS;
    expect(await h.run(economicsSync, account, SELLER)).to.be.greaterThan(0);
    const after = await viewRows(`where date >= '${dateOfDay(today() - 9)}'`);
    const wanted = h.simulator.seller.participations.flatMap((p) => expected(p.marketplace.id, 9));
    expect(after).to.have.length(wanted.length);
    for (const record of wanted) {
      const row = after.find(
        (r) => r.marketplace_id === record.marketplaceId && r.sku === record.msku && r.date === record.startDate,
      )!;
      expect(Number(row.units_refunded), `${record.msku} ${record.startDate}`).to.equal(record.sales.unitsRefunded);
    }
    const restated = before.filter((b) =>
      after.some(
        (a) =>
          a.sku === b.sku &&
          a.date === b.date &&
          a.marketplace_id === b.marketplace_id &&
          a.units_refunded !== b.units_refunded,
      ),
    );
    expect(restated.length, 'some day of the trailing week restated').to.be.greaterThan(0);
    const changed = restated[0]!;
    const rows = await viewRows(
      `where marketplace_id = '${changed.marketplace_id}' and sku = '${changed.sku}' and date = '${changed.date}'`,
    );
    expect(rows, 'the restated day replaced its row, not added one').to.have.length(1);
  });

  it('a query not done yet makes the job fail for a later retry, which picks up the same query', async () => {
    h.clock.ms += DAY_MS;
    const base = h.simulator.endpoints().sellingApiUrl;
    await fetch(`${base}/_sim/reports/processing`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ paused: true }),
    });
    const creates = () =>
      h.simulator.requests.list().filter((r) => r.method === 'POST' && r.path === '/dataKiosk/2023-11-15/queries')
        .length;
    const createdBefore = creates();
    let error: unknown;
    try {
      await economicsSync.run(h.deps(SELLER), account);
    } catch (e) {
      error = e;
    }
    expect(error).to.be.instanceOf(ReportNotReady);
    // one query per marketplace (the first create also renewed the access token the two-day jump expired)
    const createdByFirst = creates() - createdBefore;
    expect(createdByFirst).to.be.within(5, 6);
    await fetch(`${base}/_sim/reports/processing`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ paused: false }),
    });
    expect(await h.run(economicsSync, account, SELLER)).to.be.greaterThan(0);
    expect(creates() - createdBefore, 'the retry polled the queries the first attempt created').to.equal(
      createdByFirst,
    );
  });

  it('apply twice gives the same rows, a batch leaves the rows one page at a time leaves, and a rebuild equals the live tables', async () => {
    const events = (await h.allEvents()).filter((e) => e.type === 'PageObserved');
    await assertApplyTwiceSameResult(h.db, economicsProjection, events);
    await assertBatchEqualsOneByOne(h.db, economicsProjection, events);
    await assertRebuildEqualsLive(h.db, h.store, economicsProjection);
  });
});
