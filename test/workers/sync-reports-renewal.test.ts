import { expect } from 'chai';
import { couponsProjection } from '../../src/projections/observed/coupons.js';
import { COUPONS_DATASET } from '../../src/domain/observation/datasets.js';
import { couponsSync } from '../../src/workers/sync/reports-deals.js';
import { ReportNotReady, reportsClientFor } from '../../src/workers/sync/reports.js';
import { completeScopes } from '../../src/workers/sync/scope.js';
import { startHarness, type Harness } from '../support/observed.js';

// A report sync whose requests the marketplace no longer answers for: one it forgot (as a
// restarted marketplace does: 404), one cancelled before it began. Each is requested afresh in
// the same run, its row saying so, and the run then records every marketplace's report as if
// nothing had happened.

const SELLER = 'Atzr|demo-seller';
/** An id the simulator never gives: its ids are above 50000000000. */
const FORGOTTEN = '49999999999';

interface Row {
  request_key: string;
  provider_id: string;
  requests: number;
  renewed_because: string | null;
}

describe('report syncs: requests the marketplace forgot or cancelled', function () {
  this.timeout(60_000);
  let h: Harness;
  let account: string;

  const setPaused = (paused: boolean) =>
    fetch(`${h.simulator.endpoints().sellingApiUrl}/_sim/reports/processing`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ paused }),
    });
  const rows = async (): Promise<Row[]> =>
    h.db
      .withSchema('sync')
      .table('report_requests')
      .where({ account_id: account })
      .orderBy('request_key')
      .select('request_key', 'provider_id', 'requests', 'renewed_because');
  const creates = () =>
    h.simulator.requests.list().filter((r) => r.method === 'POST' && r.path === '/reports/2021-06-30/reports').length;

  before(async function () {
    this.timeout(120_000);
    h = await startHarness([couponsProjection], [], Date.parse('2026-03-10T09:00:00Z'));
    account = await h.connect('seller');
  });
  after(async () => {
    await setPaused(false);
    await h?.close();
  });

  it('requests them afresh at once, says so in their rows, and records every report', async () => {
    const marketplaces = h.simulator.seller.participations.map((p) => p.marketplace.id).sort();
    await setPaused(true);
    const deps = h.deps(SELLER);
    await couponsSync.run(deps, account).then(
      () => expect.fail('the paused reports should not be done'),
      (err: unknown) => expect(err).to.be.instanceOf(ReportNotReady),
    );
    const first = await rows();
    expect(first.map((r) => r.requests)).to.deep.equal(marketplaces.map(() => 1));

    // the first marketplace's report forgotten, the second's cancelled before it began
    const [forgotten, cancelled] = first;
    const client = reportsClientFor(deps, SELLER);
    const toCancel = await client.createReport({
      reportType: 'GET_COUPON_PERFORMANCE_REPORT',
      marketplaceIds: [marketplaces[1]!],
    });
    const token = await deps.lwa.getAccessToken(SELLER);
    const cancel = await fetch(`${h.simulator.endpoints().sellingApiUrl}/reports/2021-06-30/reports/${toCancel}`, {
      method: 'DELETE',
      headers: { 'x-amz-access-token': token },
    });
    expect(cancel.status).to.equal(200);
    const table = () => h.db.withSchema('sync').table('report_requests').where({ account_id: account });
    await table().clone().where({ request_key: forgotten!.request_key }).update({ provider_id: FORGOTTEN });
    await table().clone().where({ request_key: cancelled!.request_key }).update({ provider_id: toCancel });

    const createdBefore = creates();
    await couponsSync.run(deps, account).catch((err: unknown) => expect(err).to.be.instanceOf(ReportNotReady));
    expect(creates() - createdBefore, 'one new request for each of the two, no more').to.equal(2);
    const renewed = await rows();
    const byKey = new Map(renewed.map((r) => [r.request_key, r]));
    expect(byKey.get(forgotten!.request_key)).to.include({
      requests: 2,
      renewed_because: 'unknown to the marketplace',
    });
    expect(byKey.get(cancelled!.request_key)).to.include({ requests: 2, renewed_because: 'cancelled before it began' });
    expect(byKey.get(forgotten!.request_key)!.provider_id).to.not.be.oneOf([FORGOTTEN, forgotten!.provider_id]);
    expect(byKey.get(cancelled!.request_key)!.provider_id).to.not.equal(toCancel);
    // the others untouched
    for (const r of first.slice(2)) expect(byKey.get(r.request_key)).to.deep.equal(r);

    await setPaused(false);
    expect(await h.run(couponsSync, account, SELLER)).to.be.greaterThan(0);
    expect(await rows(), 'every request handled is forgotten').to.deep.equal([]);
    expect((await completeScopes(h.db, account, COUPONS_DATASET)).sort()).to.deep.equal(marketplaces);
  });
});
