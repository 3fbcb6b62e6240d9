import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { expect } from 'chai';
import pino from 'pino';
import { DEMO_USER_ID } from '../../src/domain/shared/ids.js';
import { loadConfig, type Config } from '../../src/infra/config.js';
import { createLwaClient, createSellingClient } from '../../src/marketplace/clients/index.js';
import { createSimulator, eventsOptionsFrom, type Simulator } from '../../src/marketplace/simulator/index.js';
import { startService, type RunningService } from '../../src/service.js';
import { admin, dropRedisKeys, TEST_DB_NAME, TEST_REDIS_PREFIX, testDatabaseUrl } from '../support/env.js';
import { call, serveMcp, type McpServing } from '../support/mcp.js';
import { eventually } from '../support/processes.js';
import { demoSellerConnected } from '../support/service.js';

// What the worker wants subscribed against what the marketplace says it has: the simulator
// restarted under a running service (forgetting every subscription and destination), then one
// subscription deleted behind the service's back. Each time the worker finds the loss, records
// it, subscribes again, and events flow again within 30 s; list_streams shows the new
// subscriptions. The service's api, projector, worker and simulator roles run in this process;
// events are raised through the simulator's control routes and counted in the event log.

const WITHIN_MS = 30_000;

describe('stream subscriptions: the marketplace forgets, the worker resubscribes', function () {
  this.timeout(240_000);
  let config: Config;
  let service: RunningService;
  let simulator: Simulator;
  let mcp: McpServing;
  let agent: Client;
  let account_id: string;
  let simBase: string;
  const database = `${TEST_DB_NAME}_streams_resubscribe`;
  const databaseUrl = testDatabaseUrl(database);
  const prefix = `${TEST_REDIS_PREFIX}-streams-resubscribe`;

  const raise = (type: string) =>
    fetch(`${simBase}/_sim/events`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ type }),
    });
  /** How many events of the type the service recorded since `since`. */
  const received = async (stream_type: string, since: Date) => {
    const [row] = await service.db
      .table('events')
      .where({ type: 'MarketplaceEventReceived' })
      .whereRaw(`data->>'stream_type' = ?`, [stream_type])
      .where('created_at', '>', since)
      .count<{ n: string }[]>('* as n');
    return Number(row!.n);
  };
  /** Raises the type every second until the service has recorded one since `since`; how long that took. */
  const flowsAgain = async (stream_type: string, since: Date) => {
    await eventually(
      async () => {
        if ((await received(stream_type, since)) > 0) return true;
        expect((await raise(stream_type)).status).to.equal(202);
        await new Promise((r) => setTimeout(r, 1_000));
        return undefined;
      },
      `${stream_type} events to reach the service again`,
      WITHIN_MS,
    );
    return Date.now() - since.getTime();
  };
  const streamRow = async (stream_type: string) => {
    const r = await call(agent, 'list_streams', { account: account_id });
    expect(r.isError).to.not.equal(true);
    return (r.structuredContent!.streams as Array<Record<string, any>>).find((s) => s.stream_type === stream_type)!;
  };
  const activeWith = (stream_type: string, check: (ids: string[]) => boolean = () => true) =>
    eventually(
      async () => {
        const s = await streamRow(stream_type);
        return s.status === 'active' && check(s.provider_subscription_ids) ? s : undefined;
      },
      `${stream_type} to be active`,
      60_000,
    );
  const startSimulator = async (port: number) => {
    const sim = createSimulator({
      seed: config.SIMULATOR_SEED,
      lwaClients: [{ clientId: config.LWA_CLIENT_ID, clientSecret: config.LWA_CLIENT_SECRET }],
      events: eventsOptionsFrom(config),
    });
    await sim.listen({ port });
    return sim;
  };

  before(async () => {
    await admin((c) => c.query(`create database "${database}"`));
    config = loadConfig({
      ...process.env,
      DATABASE_URL: databaseUrl,
      REDIS_PREFIX: prefix,
      PORT: '0',
      SIMULATOR_PORT: '0',
      PROJECTOR_POLL_MS: '50',
      STREAMS_SWEEP_MS: '200',
      STREAMS_CONFIRM_POLL_MS: '200',
      STREAMS_VERIFY_MS: '2000',
      // the events this test raises, and no others
      SIMULATOR_MARKET_PACE_MS: '0',
      SIMULATOR_STREAM_CONFIRM_MS: '100',
      VENDOR_SELLING_REFRESH_TOKEN: '',
      VENDOR_ADS_REFRESH_TOKEN: '',
    });
    service = await startService(
      config,
      new Set(['api', 'projector', 'worker', 'simulator'] as const),
      pino({ level: 'silent' }),
    );
    simulator = service.simulator!;
    simBase = simulator.endpoints().sellingApiUrl;
    mcp = await serveMcp(service.db, () => new Date(), undefined, { storeUrl: databaseUrl });
    agent = await mcp.clientFor(DEMO_USER_ID);
    account_id = await demoSellerConnected(service.db);
    // an ads type too: it is subscribed while an automation for it is live
    const created = await call(agent, 'create_automation', {
      stream_type: 'BUDGET_USAGE',
      code: 'function handle(event, context) {}',
      account: account_id,
    });
    const { automation_id } = created.structuredContent as { automation_id: string };
    expect((await call(agent, 'update_automation', { automation_id, activate: true })).isError).to.not.equal(true);
  });

  after(async () => {
    await mcp?.close();
    await service?.stop();
    // the simulator this test started in place of the service's own
    if (simulator !== service?.simulator) await simulator?.close();
    await dropRedisKeys(`${prefix}:*`);
    await admin((c) => c.query(`drop database if exists "${database}" with (force)`));
  });

  it('resubscribes everything a restarted marketplace forgot: events flow again within 30 s', async () => {
    const before = {
      order: (await activeWith('ORDER_CHANGE')).provider_subscription_ids as string[],
      budget: (await activeWith('BUDGET_USAGE')).provider_subscription_ids as string[],
    };
    const start = new Date();
    await flowsAgain('ORDER_CHANGE', start);

    const port = Number(new URL(simBase).port);
    await simulator.close();
    simulator = await startSimulator(port);
    const restarted = new Date();
    const took = {
      ORDER_CHANGE: await flowsAgain('ORDER_CHANGE', restarted),
      BUDGET_USAGE: await flowsAgain('BUDGET_USAGE', restarted),
    };
    console.log(`      events again after the simulator's restart: ${JSON.stringify(took)} ms`);
    // the truth in list_streams: active, with the subscriptions the new marketplace gave
    const order = await activeWith('ORDER_CHANGE', (ids) => ids.length === 1);
    const budget = await activeWith('BUDGET_USAGE');
    expect(order.error).to.equal(null);
    expect(budget.provider_subscription_ids).to.not.have.members(before.budget);
    expect(before.order).to.have.length(1);
  });

  it('resubscribes a subscription deleted behind its back', async () => {
    const {
      provider_subscription_ids: [id],
    } = await activeWith('ORDER_CHANGE');
    const lwa = createLwaClient({
      tokenUrl: `${simBase}/auth/o2/token`,
      clientId: config.LWA_CLIENT_ID,
      clientSecret: config.LWA_CLIENT_SECRET,
    });
    const { notifications } = createSellingClient({ endpoint: simBase, lwa, refreshToken: 'Atzr|demo-seller' });
    await notifications.deleteSubscriptionById('ORDER_CHANGE', id);
    const deleted = new Date();
    const took = await flowsAgain('ORDER_CHANGE', deleted);
    console.log(`      ORDER_CHANGE events again after the deletion: ${took} ms`);
    const row = await activeWith('ORDER_CHANGE', (ids) => ids[0] !== id);
    expect(row.provider_subscription_ids).to.have.length(1);
    // the loss is in the subscription's history
    const [lost] = await service.db
      .table('events')
      .where({ type: 'SubscriptionLost', stream_id: `subscription-${account_id}.ORDER_CHANGE` })
      .orderBy('global_position', 'desc')
      .select('data');
    expect(lost.data.error).to.equal('the marketplace has no ORDER_CHANGE subscription');
  });

  it('calls no advertising stream lost while no profile of the account is known', async () => {
    await activeWith('BUDGET_USAGE');
    const since = new Date();
    // as while the ads read model is rebuilt: the marketplace still has the stream
    await service.db.withSchema('rm').table('advertising_profiles').where({ account_id }).delete();
    await new Promise((r) => setTimeout(r, 3 * 2_000)); // three verifications (STREAMS_VERIFY_MS)
    const [row] = await service.db
      .table('events')
      .where({ type: 'SubscriptionLost', stream_id: `subscription-${account_id}.BUDGET_USAGE` })
      .where('created_at', '>', since)
      .count<{ n: string }[]>('* as n');
    expect(Number(row!.n)).to.equal(0);
  });
});
