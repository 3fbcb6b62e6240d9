import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { expect } from 'chai';
import pino from 'pino';
import { DEMO_USER_ID } from '../../src/domain/shared/ids.js';
import { loadConfig } from '../../src/infra/config.js';
import {
  createLwaClient,
  createAdsClient,
  createSellingClient,
  MarketplaceError,
} from '../../src/marketplace/clients/index.js';
import { loadAccounts } from '../../src/projections/accounts/queries.js';
import { startService, type RunningService } from '../../src/service.js';
import { admin, dropRedisKeys, TEST_DB_NAME, TEST_REDIS_PREFIX, testDatabaseUrl } from '../support/env.js';
import { serveMcp, type McpServing } from '../support/mcp.js';
import { eventually } from '../support/processes.js';
import { demoSellerConnected } from '../support/service.js';
import { call } from '../support/mcp.js';

// Subscriptions through the real queue, worker, simulator and MCP client: the service's
// projector, worker and simulator roles in this process (the worker connects the demo seller),
// and /mcp as the demo user. What the simulator holds is read through the marketplace clients.

describe('stream subscriptions (worker, simulator, list_streams over MCP)', function () {
  this.timeout(180_000);
  let service: RunningService;
  let mcp: McpServing;
  let agent: Client;
  let account_id: string;
  let simBase: string;
  const handle = 'function handle(event, context) {}';
  const database = `${TEST_DB_NAME}_streams`;
  const databaseUrl = testDatabaseUrl(database);
  const prefix = `${TEST_REDIS_PREFIX}-streams`;

  const sim = (method: string, path: string, body: unknown) =>
    fetch(`${simBase}${path}`, { method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const clients = () => {
    const lwa = createLwaClient({
      tokenUrl: `${simBase}/auth/o2/token`,
      clientId: 'simulator-client',
      clientSecret: 'simulator-secret',
    });
    return {
      notifications: createSellingClient({ endpoint: simBase, lwa, refreshToken: 'Atzr|demo-seller' }).notifications,
      streams: createAdsClient({ endpoint: simBase, lwa, refreshToken: 'Atzr|demo-advertiser' }).streams,
    };
  };
  /** the seller's subscription to the type in the simulator, with its destination URL; null when none */
  const simSubscription = async (type: string) => {
    const { notifications } = clients();
    try {
      const s = await notifications.getSubscription(type);
      return { ...s, url: (await notifications.getDestination(s.destinationId)).resource.http?.url };
    } catch (err) {
      if (err instanceof MarketplaceError && err.status === 404) return null;
      throw err;
    }
  };
  const ok = async (tool: string, args: Record<string, unknown>) => {
    const r = await call(agent, tool, args);
    expect(r.isError, `${tool}: ${JSON.stringify(r.structuredContent)}`).to.not.equal(true);
    return r.structuredContent;
  };
  const stream = async (stream_type: string) =>
    ((await ok('list_streams', { account: account_id })).streams as Array<Record<string, any>>).find(
      (s) => s.stream_type === stream_type,
    )!;
  // generous: the projector is also catching up with the demo seller's first data syncs
  const streamIs = (stream_type: string, check: (s: Record<string, any>) => boolean, timeoutMs = 60_000) =>
    eventually(
      async () => {
        const s = await stream(stream_type);
        return check(s) ? s : undefined;
      },
      `${stream_type} to reach the expected state`,
      timeoutMs,
    );
  const liveAutomation = async (stream_type: string) => {
    const { automation_id } = await ok('create_automation', { stream_type, code: handle, account: account_id });
    await ok('update_automation', { automation_id, activate: true });
    return automation_id as string;
  };

  before(async () => {
    // a database of its own: the sweep subscribes every account it holds, and other tests' accounts
    // share the demo seller's credentials (the seller has one subscription per type)
    const config = loadConfig({
      ...process.env,
      DATABASE_URL: databaseUrl,
      // queues of its own too: an earlier file's job for the demo account (its id is the same in
      // every database) would otherwise stand in for this one's connection job
      REDIS_PREFIX: prefix,
      PORT: '0',
      SIMULATOR_PORT: '0',
      PUBLIC_BASE_URL: 'http://127.0.0.1:9',
      PROJECTOR_POLL_MS: '50',
      STREAMS_SWEEP_MS: '200',
      STREAMS_GRACE_MS: '2000',
      STREAMS_CONFIRM_POLL_MS: '200',
      // no demo vendor: its year of reports would only slow the projector these tests wait on
      VENDOR_SELLING_REFRESH_TOKEN: '',
      VENDOR_ADS_REFRESH_TOKEN: '',
    });
    service = await startService(
      config,
      new Set(['projector', 'worker', 'simulator'] as const),
      pino({ level: 'silent' }),
    );
    simBase = service.simulator!.endpoints().sellingApiUrl;
    mcp = await serveMcp(service.db, () => new Date(), undefined, { storeUrl: databaseUrl });
    agent = await mcp.clientFor(DEMO_USER_ID);
    account_id = await demoSellerConnected(service.db);
  });

  after(async () => {
    await mcp?.close();
    await service?.stop();
    await dropRedisKeys(`${prefix}:*`);
    await admin((c) => c.query(`drop database if exists "${database}" with (force)`));
  });

  it('connecting an account subscribes its always types at the simulator, pointing at its ingestion URL', async () => {
    const row = await streamIs('ORDER_CHANGE', (s) => s.status === 'active');
    expect(row).to.include({ policy: 'always', source: 'selling', subscription: 'active', error: null });
    expect(row.account_name).to.be.a('string').and.not.empty;
    const subscription = await simSubscription('ORDER_CHANGE');
    expect(subscription?.url).to.equal(`http://127.0.0.1:9/ingest/${account_id}`);
    expect(row.provider_subscription_ids).to.deep.equal([subscription!.subscriptionId]);
    // a while_needed type nobody needs stays unsubscribed; a local type needs no subscription
    expect(await stream('ANY_OFFER_CHANGED')).to.include({ status: 'inactive', policy: 'while_needed' });
    expect(await simSubscription('ANY_OFFER_CHANGED')).to.equal(null);
    expect(await stream('SELLING_REPORT_COMPLETED')).to.include({ status: 'active', subscription: 'not_required' });
  });

  it('activating an ANY_OFFER_CHANGED automation subscribes the type; the automation shows it active', async () => {
    const automation_id = await liveAutomation('ANY_OFFER_CHANGED');
    const row = await streamIs('ANY_OFFER_CHANGED', (s) => s.status === 'active');
    expect(row.live_automation_id).to.equal(automation_id);
    expect(await simSubscription('ANY_OFFER_CHANGED')).to.include({ payloadVersion: '1.0' });
    const got = await ok('get_automation', { automation_id });
    expect(got).to.include({ state: 'live', subscription: 'active' });
  });

  it('an ads type is pending until the marketplace confirms it, then active', async () => {
    // long enough that a lagging projector still shows the wait
    await sim('PUT', '/_sim/streams', { confirmDelayMs: 20_000 });
    const automation_id = await liveAutomation('BUDGET_USAGE');
    const pending = await streamIs('BUDGET_USAGE', (s) => s.subscription === 'pending');
    expect(pending).to.include({ status: 'pending', source: 'ads' });
    expect((await ok('get_automation', { automation_id })).subscription).to.equal('none');
    const active = await streamIs('BUDGET_USAGE', (s) => s.status === 'active');
    const profiles = (await loadAccounts(service.db, DEMO_USER_ID)).find((a) => a.id === account_id)!.ads!.profiles;
    expect(active.provider_subscription_ids).to.have.length(profiles.length);
    const { streams } = clients();
    for (const p of profiles) {
      const mine = (await streams.list(p.provider_profile_id)).filter((s) => s.dataSetId === 'budget-usage');
      expect(mine.map((s) => s.status)).to.deep.equal(['ACTIVE']);
    }
    expect((await ok('get_automation', { automation_id })).subscription).to.equal('active');
  });

  it('a subscribe the marketplace refuses leaves the automation live, showing the failure', async () => {
    await sim('POST', '/_sim/faults', {
      route: 'POST /notifications/v1/subscriptions/PRICING_HEALTH',
      kind: 'reject',
      status: 400,
    });
    const automation_id = await liveAutomation('PRICING_HEALTH');
    const row = await streamIs('PRICING_HEALTH', (s) => s.subscription === 'failed');
    expect(row.status).to.equal('pending');
    expect(row.error).to.match(/^400 /);
    expect(await ok('get_automation', { automation_id })).to.include({ state: 'live', subscription: 'failed' });
    expect(await simSubscription('PRICING_HEALTH')).to.equal(null);
  });

  it('archiving the last automation of a while_needed type unsubscribes it after the grace period', async () => {
    const { automations } = await ok('list_automations', { stream_type: 'ANY_OFFER_CHANGED', account: account_id });
    await ok('archive_automation', { automation_id: automations[0].id });
    // within the grace period it stays subscribed (the live slot is already empty)
    const held = await streamIs('ANY_OFFER_CHANGED', (s) => s.live_automation_id === null);
    expect(held.status).to.equal('active');
    expect(await simSubscription('ANY_OFFER_CHANGED')).to.not.equal(null);
    await streamIs('ANY_OFFER_CHANGED', (s) => s.status === 'inactive' && s.subscription === 'inactive');
    expect(await simSubscription('ANY_OFFER_CHANGED')).to.equal(null);
    // the always types stay
    expect(await simSubscription('ORDER_CHANGE')).to.not.equal(null);
  });
});
