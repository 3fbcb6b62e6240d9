import { expect } from 'chai';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { createSimulator } from '../../src/marketplace/simulator/index.js';
import { cli, eventually, runEntry, type Spawned } from '../support/processes.js';
import { admin, dropRedisKeys, TEST_DB_NAME, TEST_REDIS_PREFIX } from '../support/env.js';
import { answerOf } from '../support/mcp.js';
import { connectMcp, createUserWithToken, killIfRunning, startServiceProcess, serviceEnv } from '../support/service.js';

interface AccountOut {
  id: string;
  name: string;
  entity_type: string;
  selling: {
    connected: boolean;
    active: boolean;
    id: string;
    type: string;
    marketplaces: Array<{ marketplace_id: string; currency: string }>;
  } | null;
  ads: {
    connected: boolean;
    active: boolean;
    id: string;
    type: string;
    profiles: Array<{ id: string; country_code: string; currency: string; timezone: string }>;
  } | null;
}
interface StatusOut {
  accounts: AccountOut[];
  changelog: unknown[];
}

async function status(client: Client, args: Record<string, unknown> = {}) {
  return client.callTool({ name: 'connection_status', arguments: args });
}

// The service as `npm start` runs it on a fresh checkout: a separate process with every role, the
// built-in simulator, a new database and Redis prefix of its own (not the run's, which earlier
// files fill: the demo's year must be there as soon after start as on a fresh clone), spoken to
// by the SDK's client.
describe('service end to end (npm start)', function () {
  this.timeout(90000);
  let service: Spawned;
  let base: string;
  let env: Record<string, string>;
  // what the service's built-in simulator serves (the default seed, not listening)
  const sim = createSimulator({ seed: 42 });

  const database = `${TEST_DB_NAME}_e2e_service`;
  const prefix = `${TEST_REDIS_PREFIX}-e2e-service`;

  before(async () => {
    await admin((c) => c.query(`create database "${database}"`));
    env = serviceEnv(database, prefix);
    ({ spawned: service, base } = await startServiceProcess(env));
    expect(base).to.match(/^http:\/\/127\.0\.0\.1:\d+$/);
  });

  after(async () => {
    await killIfRunning(service);
    await dropRedisKeys(`${prefix}:*`);
    if (!process.env.KEEP_TEST_DB) await admin((c) => c.query(`drop database if exists "${database}" with (force)`));
  });

  it('lists the tools on /demo/mcp and shows the fictional seller, its one account, from projections', async () => {
    const client = await connectMcp(`${base}/demo/mcp`);
    const { tools } = await client.listTools();
    const tool = tools.find((t) => t.name === 'connection_status');
    expect(tool, 'connection_status is listed').to.exist;
    expect(tool!.inputSchema.additionalProperties).to.equal(false);
    // the demo account is connected by the worker's first syncs, then projected
    const out = await eventually(async () => {
      const body = (await status(client)).structuredContent as unknown as StatusOut;
      return body.accounts.some((a) => a.selling?.marketplaces.length && a.ads?.profiles.length) ? body : undefined;
    }, 'the demo account to be connected');
    expect(out.accounts, 'the demo serves one account: the fictional seller').to.have.length(1);
    const seller = out.accounts[0]!;
    expect(seller).to.include({ entity_type: 'seller', name: sim.seller.account.business!.name });
    expect(seller.selling).to.include({ connected: true, active: true, type: 'SellingPartner' });
    expect(seller.ads).to.include({ connected: true, active: true, type: 'Advertiser' });
    const currencies = seller.selling!.marketplaces.map((m) => m.currency).sort();
    expect(currencies).to.deep.equal(['CAD', 'EUR', 'GBP', 'JPY', 'USD']);
    const jp = seller.ads!.profiles.find((p) => p.country_code === 'JP');
    expect(jp).to.include({ currency: 'JPY', timezone: 'Asia/Tokyo' });
    expect(out.changelog).to.be.an('array').that.is.not.empty;
    await client.close();
  });

  it('fills the vendor views for a /mcp user who connects the vendor credentials, and only for that account', async function () {
    this.timeout(400000);
    const { userId, token } = await createUserWithToken(env, 'Vera');
    const vendorId = (await cli(['accounts', 'connect', '--user', userId, '--credentials', 'vendor'], env)).trim();
    const client = await connectMcp(`${base}/mcp`, token);
    const sql =
      'select account_id, count(distinct asin) as asins, count(distinct date) as days from v_vendor_metrics group by account_id';
    const rows = await eventually(
      async () => {
        const res = await client.callTool({ name: 'query_data', arguments: { sql } });
        if (res.isError) throw new Error(`query_data refused: ${JSON.stringify(res.structuredContent)}`);
        const body = res.structuredContent as { rows: unknown[][] };
        // a year of days is read in one run: done once its days are all there
        if (body.rows.length > 0 && Number(body.rows[0]![2]) === 365) return body.rows;
        // query_data allows 300 calls an hour per user: poll gently
        await new Promise((r) => setTimeout(r, 3000));
        return undefined;
      },
      'the vendor metrics of the vendor account',
      390000,
    ).catch((err: Error) => {
      // what the service's vendor syncs did, to tell a failed sync from one that read nothing
      const syncs = service.logs.filter((l) => l.job === 'vendor-metrics' || l.sync === 'vendor-metrics');
      throw new Error(`${err.message}; the service's vendor-metrics log: ${JSON.stringify(syncs.slice(-10))}`);
    });
    expect(rows).to.deep.equal([[vendorId, sim.vendor.asins().length, 365]]);
    const vendor = ((await status(client)).structuredContent as unknown as StatusOut).accounts;
    expect(vendor.map((a) => [a.id, a.entity_type, a.name])).to.deep.equal([[vendorId, 'vendor', sim.vendor.name]]);
    expect(
      (await client.listTools()).tools.map((t) => t.name),
      'seller tools hidden',
    ).to.not.include('list_listings');
    await client.close();
  });

  it('answers an extra argument with unknown_argument and keeps serving', async () => {
    const client = await connectMcp(`${base}/demo/mcp`);
    const bad = await status(client, { foo: 1 });
    expect(bad.isError).to.equal(true);
    const error = answerOf(bad).structuredContent;
    expect(error).to.include({ code: 'unknown_argument' });
    expect(error.detail).to.contain('foo');
    const good = await status(client);
    expect(good.isError).to.not.equal(true);
    await client.close();
  });

  it('refuses /mcp without a valid token with 401 and WWW-Authenticate', async () => {
    for (const headers of [{}, { authorization: 'Bearer mas_not-a-real-token' }] as Array<Record<string, string>>) {
      const res = await fetch(`${base}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
      expect(res.status).to.equal(401);
      expect(res.headers.get('www-authenticate')).to.match(
        /^Bearer .*resource_metadata="[^"]+\/\.well-known\/oauth-protected-resource/,
      );
    }
    const meta = (await (await fetch(`${base}/.well-known/oauth-protected-resource`)).json()) as { resource: string };
    expect(meta.resource).to.equal(`${base}/mcp`);
  });

  it("serves a CLI-made user on /mcp with a token, and only that user's accounts", async function () {
    this.timeout(180_000);
    const { userId, token } = await createUserWithToken(env, 'Ada');
    const client = await connectMcp(`${base}/mcp`, token);
    const empty = (await status(client)).structuredContent as unknown as StatusOut;
    expect(empty.accounts, 'a new user has no accounts, and never sees the demo account').to.deep.equal([]);

    const accountId = (await cli(['accounts', 'connect', '--user', userId], env)).trim();
    // the projector may still be working through the demo account's year of data (tens of seconds)
    const connected = await eventually(
      async () => {
        const body = (await status(client)).structuredContent as unknown as StatusOut;
        return body.accounts[0]?.selling?.marketplaces.length && body.accounts[0].ads?.profiles.length
          ? body
          : undefined;
      },
      "the user's account to be connected",
      120_000,
    );
    expect(connected.accounts.map((a) => a.id)).to.deep.equal([accountId]);
    expect(connected.accounts[0]!.selling!.marketplaces).to.have.length(5);
    await client.close();

    const tokenId = /token id: (\S+)/.exec(
      await cli(['tokens', 'list', '--user', userId], env).then((out) => `token id: ${out.split(' ')[0]}`),
    )![1]!;
    await cli(['tokens', 'revoke', '--user', userId, '--token', tokenId], env);
    const res = await fetch(`${base}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(res.status, 'a revoked token is refused').to.equal(401);
  });

  it('drains on SIGTERM and exits 0', async () => {
    service.child.kill('SIGTERM');
    expect(await service.exit).to.equal(0);
    expect(service.logs.some((r) => r.msg === 'stopped cleanly')).to.equal(true);
    expect(service.stderr()).to.equal('');
  });
});

describe('start-up with a service down', function () {
  this.timeout(30000);
  const redisDown = /^cannot start: Redis unreachable at redis:\/\/127\.0\.0\.1:1.*start it with: redis-server/;
  const cases: Array<{ name: string; env: Record<string, string>; roles?: string[]; line: RegExp }> = [
    {
      name: 'PostgreSQL',
      env: { DATABASE_URL: 'postgres://postgres@127.0.0.1:1/marketplace' },
      line: /^cannot start: PostgreSQL unreachable at postgres:\/\/postgres@127\.0\.0\.1:1\/postgres .*start it with: pg_ctlcluster/,
    },
    { name: 'Redis', env: { REDIS_URL: 'redis://127.0.0.1:1' }, line: redisDown },
    // the api adds the dispatch jobs of the receipts it admits
    {
      name: 'Redis (the api role alone)',
      env: { REDIS_URL: 'redis://127.0.0.1:1' },
      roles: ['--role', 'api'],
      line: redisDown,
    },
    {
      name: 'EventStoreDB',
      env: { EVENTSTORE_URL: 'esdb://127.0.0.1:1?tls=false' },
      line: /^cannot start: EventStoreDB unreachable at esdb:\/\/127\.0\.0\.1:1\?tls=false .*unset EVENTSTORE_URL/,
    },
  ];
  for (const c of cases) {
    it(`stops with one line naming ${c.name}, the address and how to start it`, async () => {
      const s = runEntry('main.js', c.roles ?? [], {
        DATABASE_URL: process.env.DATABASE_URL!,
        PORT: '0',
        SIMULATOR_PORT: '0',
        ...c.env,
      });
      expect(await s.exit).to.equal(1);
      const lines = s.stderr().trim().split('\n');
      expect(lines, s.stderr()).to.have.length(1);
      expect(lines[0]).to.match(c.line);
    });
  }
});
