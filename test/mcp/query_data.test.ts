import { createHash } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { expect } from 'chai';
import { parse } from 'csv-parse/sync';
import knexFactory, { type Knex } from 'knex';
import { pino } from 'pino';
import { buildHttpServer } from '../../src/mcp/server.js';
import { QUERY_LIMIT } from '../../src/mcp/throttle.js';
import { call } from '../support/mcp.js';
import { startWorld, type World } from '../support/query-world.js';

// query_data end to end through the SDK client over HTTP: the views, the inline/download
// threshold, the CSV export and who may download it, value types, engine errors, the
// throttle, and an unreachable database.

const MARKETPLACE_IDS = [
  'A2EUQ1WTGCTBG2',
  'ATVPDKIKX0DER',
  'A1AM78C64UM0Y8',
  'A2Q3Y263D00KWC',
  'A28R8C7NBKEWEA',
  'A1RKKUPIHCS9HS',
  'A1F83G8C2ARO7P',
  'A13V1IB3VIYZZH',
  'AMEN7PMS3EDWL',
  'A1805IZSGTT6HS',
  'A1PA6795UKMFR9',
  'APJ6JRA9NG5V4',
  'A2NODRKZP88ZB9',
  'AE08WJ6YKNBMC',
  'A1C3SOZRARQ6R3',
  'ARBP9OOSHTCHU',
  'A33AVAJ2PDY3EV',
  'A17E79C6D8DWNP',
  'A2VIGQ35RCS4UG',
  'A21TJRUUN4KGV',
  'A19VAU5U5O7RUS',
  'A39IBJ37TRP1C6',
  'A1VC38T7YXB528',
];

describe('query_data over HTTP', () => {
  let world: World;
  let asA: Client;

  before(async () => {
    // as behind a reverse proxy on loopback: X-Forwarded-For names the client
    world = await startWorld({ trustProxy: ['loopback'] });
    asA = await world.connect('/mcp', world.tokens.a);
  });
  after(async () => world?.close());

  const query = (args: Record<string, unknown>, client = asA) => call(client, 'query_data', args);
  const download = (path: string, token?: string) =>
    fetch(`${world.base}${path}`, { headers: token ? { authorization: `Bearer ${token}` } : {} });

  it('is listed, read-only, with sql, export and account arguments', async () => {
    const { tools } = await asA.listTools();
    const tool = tools.find((t) => t.name === 'query_data')!;
    expect(tool.annotations).to.include({ readOnlyHint: true });
    expect(Object.keys(tool.inputSchema.properties!)).to.have.members(['sql', 'export', 'account']);
  });

  it('v_marketplaces has the 23 marketplaces with their real ids', async () => {
    const result = await query({ sql: 'select * from v_marketplaces order by country_code' });
    expect(result.isError).to.not.equal(true);
    const { columns, rows, row_count } = result.structuredContent;
    expect(columns).to.deep.equal(
      ['marketplace_id', 'name', 'country_code', 'domain_name', 'currency'].map((name) => ({ name, type: 'text' })),
    );
    expect(row_count).to.equal(23);
    expect(rows.map((r: string[]) => r[0])).to.have.members(MARKETPLACE_IDS);
    expect(rows).to.deep.include(['ATVPDKIKX0DER', 'Amazon.com', 'US', 'www.amazon.com', 'USD']);
    expect(rows).to.deep.include(['A1F83G8C2ARO7P', 'Amazon.co.uk', 'GB', 'www.amazon.co.uk', 'GBP']);
    expect(rows).to.deep.include(['A1VC38T7YXB528', 'Amazon.co.jp', 'JP', 'www.amazon.co.jp', 'JPY']);
    expect(new Set(rows.map((r: string[]) => r[2])).size).to.equal(23);
  });

  it('answers missing_sql without sql or with blank sql, and invalid for sql of another type', async () => {
    for (const args of [{}, { export: true }, { sql: '  \n ' }]) {
      const result = await query(args);
      expect(result.isError).to.equal(true);
      expect(result.structuredContent, JSON.stringify(args)).to.include({ code: 'missing_sql' });
      expect(result.structuredContent.detail).to.contain('pass sql');
    }
    expect((await query({ sql: 42 })).structuredContent).to.include({ code: 'invalid', argument: 'sql' });
  });

  it('names an unknown argument', async () => {
    const result = await query({ sql: 'select 1', limit: 3 });
    expect(result.structuredContent).to.include({ code: 'unknown_argument' });
  });

  it("confines rows to the caller's accounts, hides a seller view from vendor accounts and the reverse, and narrows by account", async () => {
    const { accounts } = world;
    const seller = await query({ sql: 'select account_id, count(*)::int from v_test_lines group by 1' });
    expect(seller.structuredContent.rows).to.deep.equal([[accounts.a1, world.rows.a1]]);
    const vendor = await query({ sql: 'select account_id, count(*)::int from v_test_vendor_lines group by 1' });
    expect(vendor.structuredContent.rows).to.deep.equal([[accounts.a2, world.rows.a2]]);
    const narrowed = await query({ sql: 'select count(*)::int from v_test_vendor_lines', account: accounts.a1 });
    expect(narrowed.structuredContent.rows).to.deep.equal([[0]]);
    expect(narrowed.structuredContent.notice, 'the empty-result notice').to.equal(undefined);
    const empty = await query({ sql: 'select * from v_test_lines', account: accounts.a2 });
    expect(empty.structuredContent.row_count).to.equal(0);
    expect(empty.structuredContent.notice).to.contain('not synced');
    // a registered seller or vendor view is hidden from the other kind's account: refused as absent
    const vendorView = await query({ sql: 'select count(*) from v_vendor_metrics', account: accounts.a1 });
    expect(vendorView.structuredContent).to.include({ code: 'query_failed', rule: 'views_only' });
    expect(vendorView.structuredContent.detail).to.contain(
      'v_vendor_metrics is a vendor view, hidden from seller accounts',
    );
    const sellerView = await query({
      sql: 'with l as (select * from v_listings) select count(*) from l',
      account: accounts.a2,
    });
    expect(sellerView.structuredContent.detail).to.contain('v_listings is a seller view, hidden from vendor accounts');
    const foreign = await query({ sql: 'select 1', account: accounts.b1 });
    expect(foreign.structuredContent.code).to.equal('account_not_found');
  });

  it('returns 499 rows inline, in the order asked', async () => {
    const result = await query({ sql: 'select n from v_test_lines order by n desc limit 499' });
    const body = result.structuredContent;
    expect(body.row_count).to.equal(499);
    expect(body.rows).to.have.length(499);
    expect(body.rows[0]).to.deep.equal([1200]);
    expect(body.rows[498]).to.deep.equal([702]);
    expect(body).to.not.have.property('download_url');
  });

  it('returns 500 rows as a download with columns and a 5-row preview; the CSV has every row', async () => {
    const result = await query({ sql: 'select n, sold_on, amount, note from v_test_lines order by n limit 500' });
    const body = result.structuredContent;
    expect(body).to.not.have.property('rows');
    expect(body.row_count).to.equal(500);
    expect(body.columns).to.deep.equal([
      { name: 'n', type: 'integer' },
      { name: 'sold_on', type: 'date' },
      { name: 'amount', type: 'bigint' },
      { name: 'note', type: 'text' },
    ]);
    expect(body.preview).to.deep.equal(
      [1, 2, 3, 4, 5].map((n) => [n, `2024-01-${String(n + 1).padStart(2, '0')}`, n * 100, 'A']),
    );
    expect(body.download_url).to.match(/^\/exports\/[A-Za-z0-9_-]{32}\.csv\.gz$/);
    expect(Date.parse(body.expires_at) - Date.now()).to.be.within(3500_000, 3600_000);

    const res = await download(body.download_url, world.tokens.a);
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.equal('application/gzip');
    expect(res.headers.get('cache-control')).to.equal('private, no-store');
    const records: string[][] = parse(gunzipSync(Buffer.from(await res.arrayBuffer())));
    expect(records[0]).to.deep.equal(['n', 'sold_on', 'amount', 'note']);
    expect(records).to.have.length(501);
    expect(records[1]).to.deep.equal(['1', '2024-01-02', '100', 'A']);
    expect(records[500]).to.deep.equal(['500', '2024-05-15', '50000', 'A']);

    const columns = await download(body.columns_url, world.tokens.a);
    expect(await columns.json()).to.deep.equal({ columns: body.columns });
  });

  it('export: true gives the download form for a small result too', async () => {
    const body = (await query({ sql: 'select n from v_test_lines order by n limit 3', export: true }))
      .structuredContent;
    expect(body).to.include({ row_count: 3 });
    expect(body.preview).to.deep.equal([[1], [2], [3]]);
    const csv = gunzipSync(
      Buffer.from(await (await download(body.download_url, world.tokens.a)).arrayBuffer()),
    ).toString();
    expect(csv).to.equal('n\n1\n2\n3\n');
  });

  it("refuses a download without the token (401), with a bad one (401) and with another user's (404)", async () => {
    const body = (await query({ sql: 'select 1 as x', export: true })).structuredContent;
    const none = await download(body.download_url);
    expect(none.status).to.equal(401);
    expect(none.headers.get('www-authenticate')).to.match(/^Bearer/);
    expect((await download(body.download_url, 'not-a-token')).status).to.equal(401);
    expect((await download(body.download_url, world.tokens.b)).status).to.equal(404);
    expect((await download(body.columns_url, world.tokens.b)).status).to.equal(404);
    expect(
      (await download(body.download_url.replace(/[A-Za-z0-9_-]{4}\.csv/, 'AAAA.csv'), world.tokens.a)).status,
    ).to.equal(404);
    expect((await download(body.download_url, world.tokens.a)).status).to.equal(200);
  });

  it('on the demo endpoint the unguessable URL needs no token, and stops working when it expires', async () => {
    const demo = await world.connect('/demo/mcp');
    const body = (await query({ sql: 'select account_id, n from v_test_lines order by n' }, demo)).structuredContent;
    expect(body.row_count).to.equal(world.rows.d1);
    const res = await download(body.download_url);
    expect(res.status).to.equal(200);
    const records: string[][] = parse(gunzipSync(Buffer.from(await res.arrayBuffer())));
    expect(records.slice(1).every((r) => r[0] === world.accounts.d1)).to.equal(true);
    expect(records).to.have.length(world.rows.d1 + 1);

    const id = /\/exports\/(.+)\.csv\.gz$/.exec(body.download_url)![1]!;
    await world
      .db('query_data.exports')
      .where({ id_hash: createHash('sha256').update(id).digest('hex') })
      .update({ expires_at: world.db.raw(`now() - interval '1 second'`) });
    expect((await download(body.download_url)).status).to.equal(404);
  });

  it('gives values their JSON types, keeps exact big numbers as strings, and writes NULL and empty text apart in the CSV', async () => {
    const sql = `select true as b, 7::int2 as s, 12::int as i, 9007199254740993::bigint as big, 42::bigint as small, 1.50::numeric as num,
      0.1::float8 as f, '{"a":[1]}'::jsonb as j, date '2024-02-29' as d, timestamptz '2024-03-01 12:00:00+02' as ts,
      null::text as nothing, '' as empty, 'x,"y"' as quoted, 1 as dup, 2 as dup`;
    const inline = (await query({ sql })).structuredContent;
    expect(inline.columns.map((c: { type: string }) => c.type)).to.deep.equal([
      'boolean',
      'smallint',
      'integer',
      'bigint',
      'bigint',
      'numeric',
      'double precision',
      'jsonb',
      'date',
      'timestamp with time zone',
      'text',
      'text',
      'text',
      'integer',
      'integer',
    ]);
    expect(inline.rows).to.deep.equal([
      [
        true,
        7,
        12,
        '9007199254740993',
        42,
        1.5,
        0.1,
        { a: [1] },
        '2024-02-29',
        '2024-03-01 10:00:00+00',
        null,
        '',
        'x,"y"',
        1,
        2,
      ],
    ]);
    const exported = (await query({ sql, export: true })).structuredContent;
    const csv = gunzipSync(
      Buffer.from(await (await download(exported.download_url, world.tokens.a)).arrayBuffer()),
    ).toString();
    expect(csv.split('\n')[1]).to.equal(
      't,7,12,9007199254740993,42,1.50,0.1,"{""a"": [1]}",2024-02-29,2024-03-01 10:00:00+00,,"","x,""y""",1,2',
    );
  });

  it("passes the engine's message on for errors about the caller's own statement", async () => {
    const unknown = await query({ sql: 'select nope from v_test_lines' });
    expect(unknown.structuredContent).to.include({ code: 'query_failed', sqlstate: '42703' });
    expect(unknown.structuredContent.detail).to.contain('column "nope" does not exist');
    const division = await query({ sql: 'select n / 0 from v_test_lines' });
    expect(division.structuredContent).to.include({ code: 'query_failed', detail: 'division by zero' });
    const refused = await query({ sql: 'select * from rm.accounts' });
    expect(refused.structuredContent).to.include({ code: 'query_failed', rule: 'views_only' });
    expect(refused.structuredContent.detail).to.match(/^refused by rule views_only: rm\.accounts is outside the views/);
  });

  it(`throttles after ${QUERY_LIMIT.calls} calls in ${QUERY_LIMIT.windowSeconds} seconds, counting only calls inside the window`, async () => {
    const asC = await world.connect('/mcp', world.tokens.c);
    const calls = (count: number, at: string) =>
      world.db.raw(`insert into query_data.calls select ?::uuid, ${at} from generate_series(1, ?)`, [
        world.users.c,
        count,
      ]);
    await calls(QUERY_LIMIT.calls - 1, `now() - interval '10 minutes'`);
    await calls(50, `now() - interval '2 hours'`); // outside the window: not counted
    const last = await query({ sql: 'select 1' }, asC);
    expect(last.isError).to.not.equal(true);
    const throttled = await query({ sql: 'select 1' }, asC);
    expect(throttled.isError).to.equal(true);
    expect(throttled.structuredContent.code).to.equal('throttled');
    // the oldest call in the window leaves it in 50 minutes
    expect(throttled.structuredContent.retry_after_seconds).to.be.within(2990, 3000);
    expect(throttled.structuredContent.detail).to.match(/retry in \d+ seconds/);
    // another user is not throttled by C's calls
    expect((await query({ sql: 'select 1' })).isError).to.not.equal(true);
  });

  it(`throttles each demo visitor on its own: a second caller keeps its ${QUERY_LIMIT.calls} calls when the first has spent them`, async function () {
    this.timeout(60_000);
    const visitor = (address: string) => world.connect('/demo/mcp', undefined, { 'x-forwarded-for': address });
    const [first, second] = [await visitor('203.0.113.7'), await visitor('2001:db8:1:2::9')];
    // the first visitor's hour, spent through the tool, a few calls at a time
    for (let spent = 0; spent < QUERY_LIMIT.calls; spent += 10) {
      const answers = await Promise.all(Array.from({ length: 10 }, () => query({ sql: 'select 1' }, first)));
      expect(answers.filter((a) => a.isError)).to.deep.equal([]);
    }
    const throttled = await query({ sql: 'select 1' }, first);
    expect(throttled.isError).to.equal(true);
    expect(throttled.structuredContent.code).to.equal('throttled');
    expect(throttled.structuredContent.detail).to.match(
      new RegExp(
        `^${QUERY_LIMIT.calls} query_data calls per ${QUERY_LIMIT.windowSeconds} seconds: retry in \\d+ seconds$`,
      ),
    );
    expect(throttled.structuredContent.retry_after_seconds).to.be.within(3500, 3600);
    const fresh = await query({ sql: 'select note from v_test_lines limit 1' }, second);
    expect(fresh.isError).to.not.equal(true);
    expect(fresh.structuredContent.rows).to.deep.equal([['DEMO']]);
    // the same host from another address of its /64 is the same visitor
    const sameHost = await query({ sql: 'select 1' }, await visitor('2001:db8:1:2:ffff::1'));
    expect(sameHost.isError).to.not.equal(true);
    const { rows } = await world.db.raw(
      `select caller, count(*)::int as calls from query_data.calls where user_id = ? and caller <> '127.0.0.1' group by caller order by caller`,
      [world.users.demo],
    );
    expect(rows).to.deep.equal([
      { caller: '2001:db8:1:2::/64', calls: 2 },
      { caller: '203.0.113.7', calls: QUERY_LIMIT.calls },
    ]);
  });

  it('believes X-Forwarded-For only from trusted proxies: without any, the peer address is the demo caller', async () => {
    const callsBy = async () =>
      (
        await world.db.raw(
          `select count(*) filter (where caller = '127.0.0.1')::int as peer, count(*) filter (where caller = '198.51.100.23')::int as named from query_data.calls where user_id = ?`,
          [world.users.demo],
        )
      ).rows[0];
    const before = await callsBy();
    await onOwnDemoServer(world.db, { 'x-forwarded-for': '198.51.100.23' }, async (client) => {
      expect((await call(client, 'query_data', { sql: 'select 1' })).isError).to.not.equal(true);
    });
    expect(await callsBy()).to.deep.equal({ peer: before.peer + 1, named: 0 });
  });

  it('answers unavailable when the database is unreachable', async () => {
    const db = knexFactory({
      client: 'pg',
      connection: 'postgres://postgres@127.0.0.1:1/none',
      pool: { min: 0, max: 1 },
      acquireConnectionTimeout: 1000,
      log: { warn() {} },
    });
    try {
      await onOwnDemoServer(db, {}, async (client) => {
        const result = await call(client, 'query_data', { sql: 'select 1' });
        expect(result.isError).to.equal(true);
        expect(result.structuredContent.code).to.equal('unavailable');
      });
    } finally {
      await db.destroy();
    }
  });

  /** A server of the test's own on `db` (trusting no proxy), and a demo client sending `headers`. */
  async function onOwnDemoServer(db: Knex, headers: Record<string, string>, fn: (client: Client) => Promise<void>) {
    const app = buildHttpServer({
      db,
      logger: pino({ level: 'silent' }),
      authenticate: async () => null,
      demoUserId: world.users.demo,
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const client = new Client({ name: 't', version: '1' });
    try {
      const url = new URL(`http://127.0.0.1:${(app.server.address() as AddressInfo).port}/demo/mcp`);
      await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers } }));
      await fn(client);
    } finally {
      await client.close();
      await app.close();
    }
  }
});
