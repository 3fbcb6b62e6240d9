import { expect } from 'chai';
import { createAdsClient } from '../../src/marketplace/clients/ads.js';
import { MarketplaceError } from '../../src/marketplace/clients/errors.js';
import { createReportsClient, type ReportsClient } from '../../src/marketplace/clients/reports.js';
import { createSellingClient } from '../../src/marketplace/clients/selling.js';
import type { Simulator } from '../../src/marketplace/simulator/app.js';
import {
  clientsFor,
  injectFault,
  QUICK_RETRY,
  rejectionOf,
  requestsTo,
  startSimulator,
} from '../support/marketplace.js';

// The Reports API and Data Kiosk through the real client: the job lifecycle, gzip documents,
// the report types' rules, and the vendor account's tokens.
describe('reports API and the vendor account in the simulator', function () {
  let simulator: Simulator;
  let baseUrl: string;
  let seller: ReportsClient;
  let vendor: ReportsClient;
  const now = Date.parse('2026-05-20T12:00:00Z');
  const US = 'ATVPDKIKX0DER';

  before(async () => {
    ({ simulator, baseUrl } = await startSimulator({ seed: 3, now: () => now }));
    const { lwa } = clientsFor(simulator);
    seller = createReportsClient({ endpoint: baseUrl, lwa, refreshToken: 'Atzr|demo-seller', retry: QUICK_RETRY });
    vendor = createReportsClient({ endpoint: baseUrl, lwa, refreshToken: 'Atzr|demo-vendor', retry: QUICK_RETRY });
  });
  after(() => simulator.close());

  const statuses = async (client: ReportsClient, id: string) => {
    const seen = [];
    for (let i = 0; i < 3; i++) seen.push(await client.getReport(id));
    return seen;
  };

  it('a report goes IN_QUEUE → IN_PROGRESS → DONE; its document is gzip-compressed JSON', async () => {
    const id = await seller.createReport({
      reportType: 'GET_COUPON_PERFORMANCE_REPORT',
      marketplaceIds: [US],
      reportOptions: { couponStartDateFrom: '2026-01-01T00:00:00Z', couponStartDateTo: '2026-05-20T00:00:00Z' },
    });
    const seen = await statuses(seller, id);
    expect(seen.map((r) => r.processingStatus)).to.deep.equal(['IN_QUEUE', 'IN_PROGRESS', 'DONE']);
    const document = await seller.getReportDocument(seen[2]!.reportDocumentId!);
    expect(document.compressionAlgorithm).to.equal('GZIP');
    const raw = Buffer.from(await (await fetch(document.url)).arrayBuffer());
    expect([raw[0], raw[1]], 'gzip magic bytes').to.deep.equal([0x1f, 0x8b]);
    const content = (await seller.downloadReport(document)) as { coupons: { marketplaceId: string }[] };
    expect(content.coupons.length).to.be.greaterThan(0);
    expect(content.coupons.every((c) => c.marketplaceId === US)).to.equal(true);
  });

  it('a download that fails with a 5xx is retried', async () => {
    const id = await seller.createReport({
      reportType: 'GET_PROMOTION_PERFORMANCE_REPORT',
      marketplaceIds: [US],
      reportOptions: { promotionStartDateFrom: '2026-01-01T00:00:00Z', promotionStartDateTo: '2026-05-20T00:00:00Z' },
    });
    const document = await seller.getReportDocument((await statuses(seller, id))[2]!.reportDocumentId!);
    await injectFault(baseUrl, { route: 'GET /report-documents/*', kind: '5xx', status: 503 });
    expect(((await seller.downloadReport(document)) as { promotions: unknown[] }).promotions.length).to.be.greaterThan(
      0,
    );
    expect((await requestsTo(baseUrl, 'GET', new URL(document.url).pathname)).map((r) => r.status)).to.deep.equal([
      503, 200,
    ]);
  });

  it('search query performance: a misaligned window is FATAL, an open one is CANCELLED (no data)', async () => {
    const asin = [...simulator.catalog.listingsIn(US)][0]!.asin;
    const sqp = (start: string, end: string) =>
      seller.createReport({
        reportType: 'GET_BRAND_ANALYTICS_SEARCH_QUERY_PERFORMANCE_REPORT',
        marketplaceIds: [US],
        dataStartTime: start,
        dataEndTime: end,
        reportOptions: { reportPeriod: 'WEEK', asin },
      });
    expect(
      (await statuses(seller, await sqp('2026-05-04', '2026-05-10')))[2]!.processingStatus,
      'Monday to Sunday',
    ).to.equal('FATAL');
    expect(
      (await statuses(seller, await sqp('2026-05-17', '2026-05-23')))[2]!.processingStatus,
      'the current week',
    ).to.equal('CANCELLED');
    const closed = (await statuses(seller, await sqp('2026-05-10', '2026-05-16')))[2]!;
    expect(closed.processingStatus).to.equal('DONE');
    const content = (await seller.downloadReport(await seller.getReportDocument(closed.reportDocumentId!))) as {
      dataByAsin: { asin: string; endDate: string }[];
    };
    expect(content.dataByAsin.length).to.be.greaterThan(0);
    expect(content.dataByAsin.every((r) => r.asin === asin && r.endDate === '2026-05-16')).to.equal(true);
  });

  it('Data Kiosk: a query is DONE with a JSON-lines document, or DONE without one when there is no data', async () => {
    const query = (from: string, to: string) =>
      `query { analytics_economics_2024_03_15 { economics(startDate: "${from}", endDate: "${to}", aggregateBy: { date: DAY, productId: MSKU }, marketplaceIds: ["${US}"]) { msku } } }`;
    const poll = async (id: string) => {
      let q = await seller.getQuery(id);
      for (let i = 0; i < 2; i++) q = await seller.getQuery(id);
      return q;
    };
    const done = await poll(await seller.createQuery(query('2026-05-01', '2026-05-10')));
    expect(done.processingStatus).to.equal('DONE');
    const records = (await seller.downloadQueryDocument(await seller.getQueryDocument(done.dataDocumentId!))) as {
      startDate: string;
      marketplaceId: string;
    }[];
    expect(records.length).to.be.greaterThan(0);
    expect(
      records.every((r) => r.marketplaceId === US && r.startDate >= '2026-05-01' && r.startDate <= '2026-05-10'),
    ).to.equal(true);
    const future = await poll(await seller.createQuery(query('2026-06-01', '2026-06-10')));
    expect(future.processingStatus).to.equal('DONE');
    expect(future.dataDocumentId).to.equal(undefined);
  });

  it('Data Kiosk pages: with records per page set, each page names the next; together they are the whole answer', async () => {
    const query = `query { analytics_economics_2024_03_15 { economics(startDate: "2026-05-01", endDate: "2026-05-10", aggregateBy: { date: DAY, productId: MSKU }, marketplaceIds: ["${US}"]) { msku startDate } } }`;
    const finished = async (id: string) => {
      let q = await seller.getQuery(id);
      for (let i = 0; i < 2; i++) q = await seller.getQuery(id);
      return q;
    };
    const lines = async (q: { dataDocumentId?: string }) =>
      (await seller.downloadQueryDocument(await seller.getQueryDocument(q.dataDocumentId!))) as unknown[];
    const whole = await lines(await finished(await seller.createQuery(query)));
    expect(whole.length).to.be.greaterThan(3);
    const paging = (records: number | null) =>
      fetch(`${baseUrl}/_sim/dataKiosk/paging`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ records }),
      });
    await paging(3);
    try {
      const pages: unknown[][] = [];
      let token: string | undefined;
      do {
        const q = await finished(await seller.createQuery(query, token));
        pages.push(await lines(q));
        token = q.pagination?.nextToken;
      } while (token && pages.length <= whole.length);
      expect(pages.flat()).to.deep.equal(whole);
      expect(pages.every((p) => p.length <= 3)).to.equal(true);
      const first = await finished(await seller.createQuery(query));
      const next = first.pagination!.nextToken!;
      expect(((await rejectionOf(seller.createQuery(query, 'forged'))) as MarketplaceError).status).to.equal(400);
      expect(
        ((await rejectionOf(seller.createQuery(query.replace('msku startDate', 'msku'), next))) as MarketplaceError)
          .status,
      ).to.equal(400);
    } finally {
      await paging(null);
    }
  });

  it("the vendor reads vendor reports; each side is refused the other side's report types", async () => {
    const sales = {
      reportType: 'GET_VENDOR_SALES_REPORT',
      marketplaceIds: [US],
      dataStartTime: '2026-05-01',
      dataEndTime: '2026-05-19',
      reportOptions: { reportPeriod: 'DAY', distributorView: 'MANUFACTURING', sellingProgram: 'RETAIL' },
    };
    const report = (await statuses(vendor, await vendor.createReport(sales)))[2]!;
    expect(report.processingStatus).to.equal('DONE');
    const content = (await vendor.downloadReport(await vendor.getReportDocument(report.reportDocumentId!))) as {
      reportSpecification: { dataEndTime: string };
      salesByAsin: unknown[];
    };
    expect(content.reportSpecification.dataEndTime, 'data lands two days late').to.equal('2026-05-18');
    expect(content.salesByAsin).to.have.length(simulator.vendor.asins().length * 18);
    const refused = (await rejectionOf(seller.createReport(sales))) as MarketplaceError;
    expect(refused.status).to.equal(403);
    const coupons = {
      reportType: 'GET_COUPON_PERFORMANCE_REPORT',
      marketplaceIds: [US],
      reportOptions: { couponStartDateFrom: '2026-01-01T00:00:00Z', couponStartDateTo: '2026-05-20T00:00:00Z' },
    };
    expect(((await rejectionOf(vendor.createReport(coupons))) as MarketplaceError).status).to.equal(403);
    expect(
      ((await rejectionOf(vendor.getReport(report.reportId.replace(/.$/, '0')))) as MarketplaceError).status,
    ).to.equal(404);
  });

  it('the vendor token reads the sellers API as the vendor, its ads token lists vendor profiles, and seller routes refuse it', async () => {
    const { lwa } = clientsFor(simulator);
    const selling = createSellingClient({
      endpoint: baseUrl,
      lwa,
      refreshToken: 'Atzr|demo-vendor',
      retry: QUICK_RETRY,
    });
    expect((await selling.getAccount()).business?.name).to.equal(simulator.vendor.name);
    expect((await selling.getMarketplaceParticipations()).map((p) => p.storeName)).to.include(simulator.vendor.name);
    const profiles = await createAdsClient({
      endpoint: baseUrl,
      lwa,
      refreshToken: 'Atzr|demo-vendor-advertiser',
      retry: QUICK_RETRY,
    }).listProfiles();
    expect(profiles.length).to.be.greaterThan(0);
    expect(
      profiles.every((p) => p.accountInfo.type === 'vendor' && p.accountInfo.id === simulator.vendor.entityId),
    ).to.equal(true);
    const token = await lwa.getAccessToken('Atzr|demo-vendor');
    const sku = [...simulator.catalog.listingsIn(US)][0]!.sku;
    const listing = await fetch(
      `${baseUrl}/listings/2021-08-01/items/${simulator.seller.merchantId}/${encodeURIComponent(sku)}?marketplaceIds=${US}`,
      { headers: { 'x-amz-access-token': token } },
    );
    expect(listing.status).to.equal(403);
    const orders = await fetch(`${baseUrl}/orders/v0/orders?MarketplaceIds=${US}&CreatedAfter=2026-05-01T00:00:00Z`, {
      headers: { 'x-amz-access-token': token },
    });
    expect(orders.status).to.equal(403);
  });
});
