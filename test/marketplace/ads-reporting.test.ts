import { expect } from 'chai';
import { addDays, localDate } from '../../src/domain/shared/calendar.js';
import {
  SP_CAMPAIGN_DAILY_COLUMNS,
  reportSchema,
  type CreateReportRequest,
} from '../../src/marketplace/clients/ads-reporting-types.js';
import { MarketplaceError } from '../../src/marketplace/clients/errors.js';
import type { Simulator } from '../../src/marketplace/simulator/app.js';
import { clientsFor, rejectionOf, startSimulator } from '../support/marketplace.js';

// Async reporting v3 through the real ads client: create, poll, download the gzip document;
// duplicates adopted; the last ~14 days restated by a report generated later.
describe('ads API: asynchronous reporting v3', function () {
  let simulator: Simulator;
  let baseUrl: string;
  let ads: ReturnType<typeof clientsFor>['ads'];
  let clock = Date.parse('2026-06-15T12:00:00Z');
  const profile = (country: string) => simulator.seller.profiles.find((p) => p.countryCode === country)!;
  const today = (country: string) => localDate(clock, profile(country).timezone);
  const daily = (startDate: string, endDate: string): CreateReportRequest => ({
    name: `campaigns ${startDate}..${endDate}`,
    startDate,
    endDate,
    configuration: {
      adProduct: 'SPONSORED_PRODUCTS',
      groupBy: ['campaign'],
      columns: [...SP_CAMPAIGN_DAILY_COLUMNS],
      reportTypeId: 'spCampaigns',
      timeUnit: 'DAILY',
      format: 'GZIP_JSON',
    },
  });
  const control = (body: object) =>
    fetch(`${baseUrl}/_sim/ads/reporting`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });

  /** Polls until COMPLETED (the simulator completes on the second poll) and downloads the rows. */
  async function rowsOf(profileId: string, reportId: string): Promise<Array<Record<string, unknown>>> {
    let report = await ads.reporting.getReport(profileId, reportId);
    for (let polls = 0; report.status !== 'COMPLETED' && polls < 5; polls++)
      report = await ads.reporting.getReport(profileId, reportId);
    expect(report.status).to.equal('COMPLETED');
    return (await ads.reporting.downloadReport(report.url!)) as Array<Record<string, unknown>>;
  }

  before(async () => {
    ({ simulator, baseUrl } = await startSimulator({ seed: 5, now: () => clock }));
    ({ ads } = clientsFor(simulator));
  });
  after(() => simulator.close());
  afterEach(() => control({ hold: false, pendingPolls: 1 }));

  it('creates a PENDING report, polls it to COMPLETED with a URL, and downloads gzip JSON rows with the asked columns', async () => {
    const us = String(profile('US').profileId);
    const end = addDays(today('US'), -1);
    const created = await ads.reporting.createReport(us, daily(addDays(end, -6), end));
    expect(created.duplicate).to.equal(false);
    const first = await ads.reporting.getReport(us, created.reportId);
    expect(first).to.include({ status: 'PROCESSING', url: null });
    const notAnInstant = reportSchema.safeParse({ ...first, createdAt: '27/11/2026 10:00' });
    expect(notAnInstant.success, 'a report time is an ISO instant').to.equal(false);
    const rows = await rowsOf(us, created.reportId);
    expect(rows).to.not.be.empty;
    const campaigns = (await ads.sp.list(us, 'campaigns')).items;
    for (const row of rows) {
      expect(Object.keys(row).sort()).to.deep.equal([...SP_CAMPAIGN_DAILY_COLUMNS].sort());
      expect((row.date as string) >= addDays(end, -6) && (row.date as string) <= end).to.equal(true);
      expect(campaigns.map((c) => Number(c.campaignId))).to.include(row.campaignId);
    }
    expect(
      rows.some((r) => !Number.isInteger(r.cost)),
      'US cost has cents',
    ).to.equal(true);
    const [download] = simulator.requests.list().filter((r) => r.path.startsWith('/reporting-documents/'));
    expect(download!.headers.authorization, 'a pre-signed URL takes no token').to.equal(undefined);
  });

  it('states JPY money in whole yen', async () => {
    const jp = String(profile('JP').profileId);
    const end = addDays(today('JP'), -1);
    const rows = await rowsOf(jp, (await ads.reporting.createReport(jp, daily(addDays(end, -13), end))).reportId);
    expect(rows.length).to.be.greaterThan(10);
    for (const row of rows)
      for (const k of ['cost', 'sales7d', 'campaignBudgetAmount'])
        expect(Number.isInteger(row[k]), `${k} ${row[k]}`).to.equal(true);
  });

  it('an identical request while one is in progress answers 425; the client adopts the running report', async () => {
    const ca = String(profile('CA').profileId);
    const end = addDays(today('CA'), -1);
    const first = await ads.reporting.createReport(ca, daily(addDays(end, -2), end));
    const again = await ads.reporting.createReport(ca, daily(addDays(end, -2), end));
    expect(again).to.deep.equal({ reportId: first.reportId, duplicate: true });
    expect(
      simulator.requests
        .list()
        .filter((r) => r.path === '/reporting/reports')
        .at(-1)!.status,
    ).to.equal(425);
    await rowsOf(ca, first.reportId);
    expect(
      (await ads.reporting.createReport(ca, daily(addDays(end, -2), end))).duplicate,
      'a finished report is not a duplicate',
    ).to.equal(false);
  });

  it('a held report stays PENDING however often it is polled', async () => {
    const de = String(profile('DE').profileId);
    await control({ hold: true });
    const { reportId } = await ads.reporting.createReport(
      de,
      daily(addDays(today('DE'), -3), addDays(today('DE'), -1)),
    );
    for (let i = 0; i < 3; i++) expect((await ads.reporting.getReport(de, reportId)).status).to.equal('PENDING');
    await control({ hold: false });
    expect(await rowsOf(de, reportId)).to.be.an('array');
  });

  it('refuses more than 31 days, unknown columns and reversed dates with 400 and the provider detail', async () => {
    const us = String(profile('US').profileId);
    const tooLong = await rejectionOf(ads.reporting.createReport(us, daily('2026-01-01', '2026-02-01')));
    expect(tooLong).to.be.instanceOf(MarketplaceError).and.include({ status: 400, retryable: false });
    expect((tooLong as Error).message).to.match(/at most 31 days/);
    const columns = daily('2026-01-01', '2026-01-02');
    columns.configuration.columns.push('bogus');
    expect(((await rejectionOf(ads.reporting.createReport(us, columns))) as Error).message).to.match(
      /invalid values: \(bogus\)/,
    );
    expect(await rejectionOf(ads.reporting.createReport(us, daily('2026-01-05', '2026-01-02')))).to.include({
      status: 400,
    });
  });

  it('restates the last ~14 days: a report generated three days later changes recent figures, not older ones', async () => {
    const gb = String(profile('UK').profileId);
    const end = addDays(today('UK'), -1);
    const start = addDays(end, -25);
    const key = (r: Record<string, unknown>) => `${r.campaignId}/${r.date}`;
    const before = new Map(
      (await rowsOf(gb, (await ads.reporting.createReport(gb, daily(start, end))).reportId)).map((r) => [key(r), r]),
    );
    clock += 3 * 86_400_000;
    const after = new Map(
      (await rowsOf(gb, (await ads.reporting.createReport(gb, daily(start, end))).reportId)).map((r) => [key(r), r]),
    );
    expect([...after.keys()]).to.deep.equal([...before.keys()]);
    let restated = 0;
    for (const [k, old] of before) {
      const now = after.get(k)!;
      const settled = (old.date as string) < addDays(end, -16);
      if (settled) expect(now, `${k} settled`).to.deep.equal(old);
      else {
        expect(now.sales7d as number, `${k} sales only mature`).to.be.at.least(old.sales7d as number);
        if (JSON.stringify(now) !== JSON.stringify(old)) restated++;
      }
    }
    expect(restated).to.be.greaterThan(0);
  });
});
