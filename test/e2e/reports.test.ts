import { randomUUID } from 'node:crypto';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { expect } from 'chai';
import { pino } from 'pino';
import { activateAutomation } from '../../src/commands/automation/activation.js';
import { createAutomation } from '../../src/commands/automation/lifecycle.js';
import { marketplaceEventStream } from '../../src/commands/event/record.js';
import { checksumOf } from '../../src/commands/report/artifacts.js';
import { REPORT_LIMITS } from '../../src/domain/report/limits.js';
import { loadAccount, type AccountView } from '../../src/projections/accounts/queries.js';
import { automationRunsProjection } from '../../src/projections/automation-runs/projection.js';
import { automationStoreProjection } from '../../src/projections/automation-store/projection.js';
import { loadStoreSnapshot } from '../../src/projections/automation-store/queries.js';
import { automationsProjection } from '../../src/projections/automations/projection.js';
import { reportsProjection } from '../../src/projections/reports/projection.js';
import { webhooksProjection } from '../../src/projections/webhook/projection.js';
import { runBacktest } from '../../src/runtime/backtest/replay.js';
import { buildContexts } from '../../src/runtime/context/index.js';
import { CONTEXT_FIELDS } from '../../src/runtime/contracts/index.js';
import { startLiveReactor, type LiveReactor } from '../../src/runtime/live/reactor.js';
import { createSandbox, type Sandbox } from '../../src/runtime/sandbox/index.js';
import { advanceReport, completionMessageId, startReportWorker } from '../../src/workers/reports/worker.js';
import { ADS_TOKEN, requestsTo, SELLING_TOKEN } from '../support/marketplace.js';
import { contractViolations } from '../support/contract.js';
import { call, serveMcp, type McpServing, type ToolAnswer } from '../support/mcp.js';
import { GENERIC_OPERATION, selectReportCatalog } from '../support/report-catalog.js';
import { startAutomationWorld, type AutomationWorld } from '../support/automation-world.js';
import { eventually } from '../support/processes.js';

type Json = Record<string, any>;

// Report requests end to end (spec 4.9, 2.11, 6.3): request_report and get_operation_result over
// MCP, the report worker against the simulator's Reports API, the completion event, and a live
// automation of SELLING_REPORT_COMPLETED that reads its Report context and requests the next
// report until the chain stops at depth 5.

const LISTINGS_REPORT = 'sp_api:reports:2021-06-30:createReport';
const ADS_REPORT = 'ads_api:reporting:3.0:createAsyncReport';
const KIOSK_QUERY = 'sp_api:data-kiosk:2023-11-15:createQuery';
const REVISION = 'rev-reports-test';

/** What a run records of its Report context (CHAIN in its store, SEEN on its console). */
const SEEN_OF_CONTEXT = `{
    report: context.report,
    completeness: context.completeness,
    connection: context.connection,
    listings: context.listings.length,
    firstListing: context.listings[0] ? { type: context.listings[0].type, id: context.listings[0].id } : null,
    inventories: context.inventories.length,
    campaigns: context.campaigns.length,
    profiles: context.advertisingProfiles.length,
  }`;

const CHAIN = `
function handle(event, context) {
  context.store.set('seen-' + context.report.id, ${SEEN_OF_CONTEXT});
  context.mutations.push({
    target: { type: 'SellingPartner', id: context.connection.id },
    action: '${LISTINGS_REPORT}',
    payload: { reportType: 'GET_MERCHANT_LISTINGS_ALL_DATA' },
  });
}`;

/** A Data Kiosk economics query of one marketplace's days `from`..`to` days back, as the economics sync asks it. */
const economicsQuery = (now: Date, marketplaceId: string, from: number, to: number) => {
  const day = (back: number) => new Date(now.getTime() - back * 86_400_000).toISOString().slice(0, 10);
  return `query { analytics_economics_2024_03_15 { economics(startDate: "${day(from)}", endDate: "${day(to)}", aggregateBy: { date: DAY, productId: MSKU }, marketplaceIds: ["${marketplaceId}"]) { startDate endDate marketplaceId msku } } }`;
};

/** What CHAIN records of its context, logged (a backtest's runs keep their console lines). */
const SEEN = `
function handle(event, context) {
  console.log(JSON.stringify(${SEEN_OF_CONTEXT}));
}`;

// Records what each completion's run saw of its report, and pushes nothing.
const RECORD = `
function handle(event, context) {
  context.store.set('seen-' + context.report.id, { eventType: event.eventType, report: context.report, connection: context.connection });
}`;

describe('report requests (request_report, the report worker, completions)', function () {
  this.timeout(300_000);
  const user = randomUUID();
  const logger = pino({ level: process.env.TEST_LOG ?? 'silent' });
  let w: AutomationWorld;
  let account: AccountView;
  let mcp: McpServing;
  let client: Client;
  let sandbox: Sandbox;
  let reactor: LiveReactor;
  let worker: { close(): Promise<void> } | null = null;
  let first: string;
  /** the RECORD automation of SELLING_REPORT_COMPLETED (the Data Kiosk test) */
  let sellingRecorder: string;

  const deps = () => ({
    ...w.h.deps(SELLING_TOKEN),
    credentials: () => ({ selling_refresh_token: SELLING_TOKEN, ads_refresh_token: ADS_TOKEN }),
  });
  const startWorker = () => (worker ??= startReportWorker(deps(), { everyMs: 100, checkEveryMs: 0 }));
  const selling = () => ({ type: 'SellingPartner', id: account.selling!.id });
  const request = (key: string, over: Json = {}) =>
    call(client, 'request_report', {
      idempotency_key: key,
      operation: LISTINGS_REPORT,
      target: selling(),
      parameters: { reportType: 'GET_MERCHANT_LISTINGS_ALL_DATA' },
      catalog_revision: REVISION,
      ...over,
    });
  const result = (mutation_id: string, over: Json = {}) =>
    call(client, 'get_operation_result', { mutation_id, ...over });
  const completed = async (mutation_id: string): Promise<ToolAnswer> => {
    return eventually(
      async () => {
        const answer = await result(mutation_id);
        return answer.structuredContent.receipt.status === 'completed' ? answer : undefined;
      },
      `report ${mutation_id} completed`,
      60_000,
    );
  };

  /** An active automation of `stream_type` on the account, its operations pinned to the test's revision. */
  const activeAutomation = async (stream_type: string, code: string, operations: string[] = []) => {
    const by = {
      store: w.h.store,
      userId: user,
      accounts: [account],
      at: w.now(),
      correlationId: randomUUID(),
      simulate: false,
    };
    const automation = await createAutomation(by, {
      account,
      stream_type,
      title: `On ${stream_type}`,
      code,
      operation_dependencies: Object.fromEntries(
        operations.map((o) => [o, { catalog_revision: REVISION, schema_digest: 'reviewed' }]),
      ),
    });
    await activateAutomation(by, automation);
    await w.h.projector.whenCaughtUp();
    return automation;
  };
  /** What the automation's run on `mutation_id`'s completion recorded (RECORD, CHAIN). */
  const seenBy = (automation: string, mutation_id: string): Promise<Json> =>
    eventually(
      async () => {
        await w.h.projector.whenCaughtUp();
        return (await loadStoreSnapshot(w.h.db, automation, w.now()))[`seen-${mutation_id}`] as Json | undefined;
      },
      `the run on ${mutation_id}'s completion`,
      60_000,
    );
  /** The completion event recorded for a request. */
  const completionOf = async (mutation_id: string): Promise<Json> => {
    const [event] = await w.h.store.readStream(marketplaceEventStream(account.id, completionMessageId(mutation_id)));
    return event!.data as Json;
  };
  /** The whole artifact, downloaded as the caller. */
  const downloaded = async (answer: ToolAnswer): Promise<Buffer> => {
    const response = await fetch(`${mcp.base}${answer.structuredContent.download_path}`, {
      headers: { authorization: `Bearer user.${user}` },
    });
    expect(response.status).to.equal(200);
    return Buffer.from(await response.arrayBuffer());
  };

  before(async () => {
    w = await startAutomationWorld({
      deals: false,
      user,
      projections: [
        reportsProjection,
        automationsProjection,
        automationRunsProjection,
        automationStoreProjection,
        webhooksProjection,
      ],
    });
    account = (await loadAccount(w.h.db, w.account))!;
    await selectReportCatalog(w.h.db, REVISION, w.now());
    mcp = await serveMcp(w.h.db, w.now);
    client = await mcp.clientFor(user);
    sandbox = createSandbox({ runners: 2 });
    reactor = await startLiveReactor({
      db: w.h.db,
      store: w.h.store,
      sandbox,
      logger,
      enqueueWebhookPosts: async () => ({ deliveries: [] }) as never,
      name: `live-runs-reports-${randomUUID().slice(0, 8)}`,
      backoffMs: { base: 20, max: 200 },
      now: w.now,
    });
  });
  after(async () => {
    await worker?.close();
    await reactor?.close();
    await sandbox?.close();
    await mcp?.close();
    await w?.close();
  });

  it('validates like catalog admission', async () => {
    const code = async (over: Json) => (await request(randomUUID(), over)).structuredContent.code;
    expect(await code({ catalog_revision: 'rev-old' })).to.equal('schema_changed');
    expect(await code({ operation: GENERIC_OPERATION })).to.equal('operation_unavailable');
    expect(await code({ operation: 'sp_api:nothing:v0:none' })).to.equal('operation_unavailable');
    expect(await code({ target: { type: 'SellingPartner', id: randomUUID() } })).to.equal('target_not_found');
    expect(await code({ target: { type: 'Listing', id: randomUUID() } })).to.equal('target_not_found');
    expect(
      await code({ parameters: { reportType: 'GET_MERCHANT_LISTINGS_ALL_DATA', marketplaceIds: ['A1PA6795UKMFR9X'] } }),
    ).to.equal('scope_mismatch');
    const invalid = await request(randomUUID(), { parameters: { reportOptions: { a: 'b' } } });
    expect(invalid.structuredContent).to.include({ code: 'invalid_parameters' });
    expect(invalid.structuredContent.detail).to.match(/parameters\.reportType/);
    expect(await code({ continuation: 'abc' })).to.equal('invalid');
    expect(
      (await call(client, 'request_report', { idempotency_key: 'x', continuation: 'abc' })).structuredContent.code,
    ).to.equal('invalid_cursor');
    // nothing was admitted by any of them
    expect(await w.h.db.withSchema('rm').table('report_requests').count<Json[]>('* as n')).to.deep.equal([{ n: '0' }]);
  });

  it('is idempotent by key: the same input replays the receipt, another input is idempotency_conflict', async () => {
    const answer = await request('first');
    expect(answer.isError).to.not.equal(true);
    const receipt = answer.structuredContent.receipt;
    first = receipt.mutation_id;
    expect(receipt).to.include({
      status: 'queued',
      operation: LISTINGS_REPORT,
      provider_id: null,
      byte_size: null,
      media_type: null,
      checksum: null,
      expires_at: null,
      ingestion_status: null,
      has_continuation: false,
      correlation: null,
      depth: 1,
    });
    expect(receipt.marketplace_ids).to.deep.equal(account.selling!.marketplaces.map((m) => m.marketplace_id));
    expect(answer.structuredContent.replayed).to.equal(false);
    const again = await request('first');
    expect(again.structuredContent.replayed).to.equal(true);
    expect(again.structuredContent.receipt.mutation_id).to.equal(first);
    const other = await request('first', {
      parameters: { reportType: 'GET_FLAT_FILE_ALL_ORDERS_DATA_BY_ORDER_DATE_GENERAL' },
    });
    expect(other.structuredContent.code).to.equal('idempotency_conflict');
    // the receipt reads back at once, from another session
    const reader = await mcp.clientFor(user);
    expect(
      (await call(reader, 'get_operation_result', { mutation_id: first })).structuredContent.receipt.status,
    ).to.equal('queued');
    // another user's receipt reads as missing
    const stranger = await mcp.clientFor(randomUUID());
    expect((await call(stranger, 'get_operation_result', { mutation_id: first })).structuredContent.code).to.equal(
      'not_found',
    );
  });

  it('refresh schedules a status check only once the provider has the report, and never creates one', async () => {
    const before = await result(first, { refresh: true });
    expect(before.structuredContent.refresh_scheduled).to.equal(false);
    expect(await advanceReport(deps(), first)).to.equal('pending');
    await w.h.projector.whenCaughtUp();
    const submitted = (await result(first)).structuredContent.receipt;
    expect(submitted).to.include({ status: 'submitted', provider_status: 'IN_QUEUE' });
    const creates = (await requestsTo(w.baseUrl, 'POST', '/reports/2021-06-30/reports')).length;
    const checks = (await requestsTo(w.baseUrl, 'GET', `/reports/2021-06-30/reports/${submitted.provider_id}`)).length;
    // checked just now: the worker leaves it alone until a caller asks
    expect(await advanceReport(deps(), first, true)).to.equal('pending');
    expect(await requestsTo(w.baseUrl, 'GET', `/reports/2021-06-30/reports/${submitted.provider_id}`)).to.have.length(
      checks,
    );
    const refreshed = await result(first, { refresh: true });
    expect(refreshed.structuredContent.refresh_scheduled).to.equal(true);
    expect(await advanceReport(deps(), first, true)).to.equal('pending');
    expect(await requestsTo(w.baseUrl, 'GET', `/reports/2021-06-30/reports/${submitted.provider_id}`)).to.have.length(
      checks + 1,
    );
    // the worker's records reach the read model as the projector applies them
    await w.h.projector.whenCaughtUp();
    expect((await result(first)).structuredContent.receipt.provider_status).to.equal('IN_PROGRESS');
    expect(await requestsTo(w.baseUrl, 'POST', '/reports/2021-06-30/reports')).to.have.length(creates);
  });

  it(`admits at most ${REPORT_LIMITS.outstanding} outstanding requests of a caller (rate_limited)`, async () => {
    const admitted = await Promise.all(
      Array.from({ length: REPORT_LIMITS.outstanding - 1 }, (_, i) => request(`batch-${i}`)),
    );
    expect(admitted.map((a) => a.isError ?? false)).to.deep.equal(admitted.map(() => false));
    const refused = await request('one-too-many');
    expect(refused.structuredContent.code).to.equal('rate_limited');
    // a replay of an admitted one still answers
    expect((await request('batch-0')).structuredContent.replayed).to.equal(true);
  });

  it('the worker transfers each artifact (protected, with size, media type, checksum, expiry) and completes it', async () => {
    startWorker();
    const answer = await completed(first);
    const { receipt, preview, download_path } = answer.structuredContent;
    expect(receipt).to.include({
      status: 'completed',
      provider_status: 'DONE',
      ingestion_status: 'not_scheduled',
      media_type: 'text/tab-separated-values',
    });
    expect(receipt.byte_size).to.be.greaterThan(100);
    expect(receipt.checksum).to.match(/^sha256:[0-9a-f]{64}$/);
    expect(Date.parse(receipt.expires_at)).to.be.greaterThan(w.now().getTime());
    expect(preview.offset).to.equal(0);
    expect(preview.text).to.match(/^item-name\t/);
    // the preview pages through the bytes
    const next = await result(first, { cursor: answer.structuredContent.next_cursor, limit: 10 });
    expect(next.structuredContent.preview).to.include({ offset: preview.bytes, bytes: 10 });
    expect((await result(first, { cursor: 'forged' })).structuredContent.code).to.equal('invalid_cursor');
    // the whole artifact downloads with the caller's bearer token only
    const url = `${mcp.base}${download_path}`;
    const anonymous = await fetch(url);
    expect(anonymous.status).to.equal(401);
    // the challenge leads a client to the resource's metadata, as /mcp's does
    expect(anonymous.headers.get('www-authenticate')).to.match(
      /^Bearer .*resource_metadata="http:\/\/[^"]+\/\.well-known\/oauth-protected-resource/,
    );
    expect((await fetch(url, { headers: { authorization: 'Bearer user.' + randomUUID() } })).status).to.equal(404);
    const download = await fetch(url, { headers: { authorization: `Bearer user.${user}` } });
    expect(download.status).to.equal(200);
    const body = Buffer.from(await download.arrayBuffer());
    expect(body.length).to.equal(receipt.byte_size);
    expect(checksumOf(body)).to.equal(receipt.checksum);
    // the completion event, recorded once, for the account (spec 6.3)
    const [event] = await w.h.store.readStream(marketplaceEventStream(account.id, completionMessageId(first)));
    expect(event!.data).to.deep.include({ stream_type: 'SELLING_REPORT_COMPLETED', source: 'selling' });
    expect((event!.data as Json).payload).to.deep.include({ reportReceiptId: first, processingStatus: 'DONE' });
    // its Report context holds to the published contract (what describe_stream_type lists)
    const [built] = await buildContexts({
      db: w.h.db,
      store: w.h.store,
      account,
      streamType: 'SELLING_REPORT_COMPLETED',
      event: (event!.data as Json).payload,
      now: w.now(),
    });
    expect(contractViolations(CONTEXT_FIELDS.Report, built!.context)).to.deep.equal([]);
    // the other requests complete too, and free the caller's limit
    const rows = await w.h.db.withSchema('rm').table('report_requests').select('mutation_id');
    for (const { mutation_id } of rows) await completed(mutation_id);
    const after = await request('after-the-batch');
    expect(after.isError).to.not.equal(true);
    await completed(after.structuredContent.receipt.mutation_id);
  });

  it('an ads createAsyncReport: the worker transfers the gunzipped rows; ADS_REPORT_COMPLETED runs its automation with the Report context', async () => {
    startWorker();
    const automation = await activeAutomation('ADS_REPORT_COMPLETED', RECORD);
    const profile = account.ads!.profiles[0]!;
    const day = (back: number) => new Date(w.now().getTime() - back * 86_400_000).toISOString().slice(0, 10);
    const asked = await request('ads-report', {
      operation: ADS_REPORT,
      target: { type: 'AdvertisingProfile', id: profile.id },
      parameters: {
        startDate: day(7),
        endDate: day(1),
        configuration: {
          adProduct: 'SPONSORED_PRODUCTS',
          groupBy: ['campaign'],
          columns: ['date', 'campaignId', 'impressions', 'cost'],
          reportTypeId: 'spCampaigns',
          timeUnit: 'DAILY',
          format: 'GZIP_JSON',
        },
      },
    });
    expect(asked.isError).to.not.equal(true);
    const id = asked.structuredContent.receipt.mutation_id as string;
    expect(asked.structuredContent.receipt.marketplace_ids).to.deep.equal([profile.marketplace_id]);
    const answer = await completed(id);
    expect(answer.structuredContent.receipt).to.include({
      operation: ADS_REPORT,
      provider_status: 'DONE',
      media_type: 'application/json',
      has_continuation: false,
    });
    // the provider's gzip document, stored uncompressed: the rows of the columns asked for
    const rows = JSON.parse((await downloaded(answer)).toString('utf8')) as Json[];
    expect(rows.length).to.be.greaterThan(0);
    expect(Object.keys(rows[0]!).sort()).to.deep.equal(['campaignId', 'cost', 'date', 'impressions']);
    const event = await completionOf(id);
    expect(event).to.deep.include({ stream_type: 'ADS_REPORT_COMPLETED', source: 'ads' });
    expect(event.payload).to.deep.include({
      reportReceiptId: id,
      reportType: 'spCampaigns',
      processingStatus: 'DONE',
      profileId: profile.provider_profile_id,
    });
    const seen = await seenBy(automation, id);
    expect(seen.eventType).to.equal('ADS_REPORT_COMPLETED');
    expect(seen.report).to.include({
      id,
      operation: ADS_REPORT,
      providerStatus: 'DONE',
      mediaType: 'application/json',
    });
    expect(seen.connection).to.deep.equal({
      type: 'Advertiser',
      id: account.ads!.id,
      marketplaceIds: [profile.marketplace_id],
    });
  });

  it('a Data Kiosk createQuery: the worker transfers the JSON lines; SELLING_REPORT_COMPLETED runs its automation with the Report context', async () => {
    startWorker();
    const automation = (sellingRecorder = await activeAutomation('SELLING_REPORT_COMPLETED', RECORD));
    const marketplace = account.selling!.marketplaces[0]!.marketplace_id;
    const asked = await request('kiosk-query', {
      operation: KIOSK_QUERY,
      parameters: { query: economicsQuery(w.now(), marketplace, 14, 1) },
    });
    expect(asked.isError).to.not.equal(true);
    const id = asked.structuredContent.receipt.mutation_id as string;
    const answer = await completed(id);
    expect(answer.structuredContent.receipt).to.include({
      operation: KIOSK_QUERY,
      provider_status: 'DONE',
      media_type: 'application/x-ndjson',
    });
    const lines = (await downloaded(answer)).toString('utf8').trim().split('\n');
    expect(lines.length).to.be.greaterThan(0);
    for (const line of lines) expect(JSON.parse(line)).to.include({ marketplaceId: marketplace });
    const event = await completionOf(id);
    expect(event).to.deep.include({ stream_type: 'SELLING_REPORT_COMPLETED', source: 'selling' });
    expect(event.payload).to.deep.include({
      reportReceiptId: id,
      reportType: 'DATA_KIOSK_QUERY',
      processingStatus: 'DONE',
    });
    const seen = await seenBy(automation, id);
    expect(seen.eventType).to.equal('SELLING_REPORT_COMPLETED');
    expect(seen.report).to.include({
      id,
      operation: KIOSK_QUERY,
      providerStatus: 'DONE',
      mediaType: 'application/x-ndjson',
      previousPage: null,
    });
    expect(seen.connection).to.include({ type: 'SellingPartner', id: account.selling!.id });
  });

  it("a continuation followed end to end: the next page's receipt names the previous one and reads on where it ended", async () => {
    startWorker();
    const paging = (records: number | null) =>
      fetch(`${w.baseUrl}/_sim/dataKiosk/paging`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ records }),
      });
    expect((await paging(1)).status).to.equal(200);
    try {
      const query = economicsQuery(w.now(), account.selling!.marketplaces[0]!.marketplace_id, 30, 1);
      const asked = await request('kiosk-paged', { operation: KIOSK_QUERY, parameters: { query } });
      const firstId = asked.structuredContent.receipt.mutation_id as string;
      const firstPage = await completed(firstId);
      expect(firstPage.structuredContent.receipt).to.include({ has_continuation: true, previous_page: null });
      const { continuation } = firstPage.structuredContent;
      expect(continuation).to.be.a('string');
      const next = await call(client, 'request_report', { idempotency_key: 'kiosk-paged-2', continuation });
      expect(next.isError).to.not.equal(true);
      const nextId = next.structuredContent.receipt.mutation_id as string;
      expect(nextId).to.not.equal(firstId);
      expect(next.structuredContent.receipt).to.include({ operation: KIOSK_QUERY, previous_page: firstId });
      const nextPage = await completed(nextId);
      expect(nextPage.structuredContent.receipt).to.include({ previous_page: firstId, provider_status: 'DONE' });
      // the provider was asked for the page after the first: the same query with the first page's token
      const asks = (await requestsTo(w.baseUrl, 'POST', '/dataKiosk/2023-11-15/queries')).map((r) => r.body as Json);
      const tokens = asks.filter((b) => b.query === query).map((b) => b.paginationToken ?? null);
      expect(tokens).to.have.length(2);
      expect(tokens[0]).to.equal(null);
      expect(tokens[1]).to.be.a('string');
      // one record a page, each a different one
      const [one, two] = [await downloaded(firstPage), await downloaded(nextPage)].map((b) =>
        b.toString('utf8').trim().split('\n'),
      );
      expect([one!.length, two!.length]).to.deep.equal([1, 1]);
      expect(two![0]).to.not.equal(one![0]);
      // the next page's completion runs the automation with a Report context naming the previous page
      const seen = await seenBy(sellingRecorder, nextId);
      expect(seen.report).to.include({ id: nextId, previousPage: firstId, operation: KIOSK_QUERY });
      expect((await seenBy(sellingRecorder, firstId)).report).to.include({ hasContinuation: true, previousPage: null });
    } finally {
      await paging(null);
    }
  });

  it('a completion runs the live automation with the Report context; its report requests chain until depth 5', async () => {
    startWorker();
    await eventually(
      async () =>
        (await w.h.db.withSchema('rm').table('report_requests').where({ work_due: true })).length === 0
          ? true
          : undefined,
      'every earlier report completed',
      60_000,
    );
    const automation = await activeAutomation('SELLING_REPORT_COMPLETED', CHAIN, [LISTINGS_REPORT]);
    const root = (await request('chain-root')).structuredContent.receipt.mutation_id as string;
    // five reports in the chain; the run on the fifth's completion is refused its request
    const actions: Json[] = await eventually(
      async () => {
        const listed = (await call(client, 'list_automation_actions', { automation_id: automation, limit: 100 }))
          .structuredContent.actions as Json[] | undefined;
        return listed?.some((a) => a.status === 'failed') ? listed : undefined;
      },
      'the chain refused at depth 5',
      120_000,
    );
    const failed = actions.filter((a) => a.status === 'failed');
    expect(failed).to.have.length(1);
    expect(failed[0]!.error_message).to.match(/^rate_limited: .*depth 5/);
    const chained = actions.filter((a) => a.status === 'applied').map((a) => a.receipt_id as string);
    expect(chained).to.have.length(4);
    const receipts = await Promise.all(chained.map(async (id) => (await result(id)).structuredContent.receipt));
    expect(receipts.map((r) => r.depth).sort()).to.deep.equal([2, 3, 4, 5]);
    for (const r of receipts) expect(r.correlation).to.include({ root });
    const second = receipts.find((r) => r.depth === 2)!;
    expect(second.correlation).to.include({ parent: root, output: 0 });
    // a report request's action row reads like any admitted request's: its receipt_id leads to the
    // receipt (get_operation_result), whose correlation names the row's run
    const action = actions.find((a) => a.receipt_id === second.mutation_id)!;
    expect(action).to.include({
      kind: 'mutation',
      status: 'applied',
      action: LISTINGS_REPORT,
      target_type: 'SellingPartner',
      target_id: account.selling!.id,
      error_message: null,
    });
    expect(second.correlation.delivery).to.equal(action.run_id);
    // what the first run saw of its report (spec 2.11)
    const seen = await seenBy(automation, root);
    expect(seen.report).to.include({
      id: root,
      reportType: 'GET_MERCHANT_LISTINGS_ALL_DATA',
      operation: LISTINGS_REPORT,
      providerStatus: 'DONE',
      ingestionStatus: 'not_scheduled',
      mediaType: 'text/tab-separated-values',
      previousPage: null,
      hasContinuation: false,
      correlation: null,
    });
    expect(seen.report.byteSize).to.be.greaterThan(100);
    expect(seen.connection).to.deep.equal({
      type: 'SellingPartner',
      id: account.selling!.id,
      marketplaceIds: account.selling!.marketplaces.map((m) => m.marketplace_id),
    });
    expect(Object.keys(seen.completeness).sort()).to.deep.equal([
      'advertisingProfiles',
      'campaigns',
      'inventories',
      'listings',
    ]);
    const [row] = (await w.h.db
      .withSchema('rm')
      .table('listing_current')
      .where({ account_id: account.id })
      .count('* as n')) as Array<{ n: string }>;
    const listings = Number(row!.n);
    expect(listings).to.be.greaterThan(0);
    expect(seen.completeness.listings).to.deep.equal({
      returned: Math.min(listings, REPORT_LIMITS.collectionRows),
      truncated: listings > REPORT_LIMITS.collectionRows,
    });
    expect(seen.listings).to.equal(seen.completeness.listings.returned);
    expect(seen.firstListing.type).to.equal('Listing');
    expect(seen.completeness.campaigns.returned).to.equal(seen.campaigns);
    expect(seen.completeness.advertisingProfiles.returned).to.equal(seen.profiles);

    // a backtest over the completions shows each run the Report context the live run saw, folded from the log
    const backtest = await runBacktest(
      { db: w.h.db, store: w.h.store, sandbox, logger },
      {
        automation: { id: null, version: 1, code: SEEN },
        account,
        streamType: 'SELLING_REPORT_COMPLETED',
        since: new Date(w.now().getTime() - 86_400_000),
        until: new Date(Math.max(w.now().getTime(), Date.now()) + 3_600_000),
      },
    );
    const shown = new Map(
      backtest.runs.map((r) => {
        const logged = JSON.parse(r.logs[0]!.message) as Json;
        return [logged.report.id as string, logged];
      }),
    );
    for (const id of [root, ...chained]) expect(shown.get(id), id).to.deep.equal(await seenBy(automation, id));
  });
});
