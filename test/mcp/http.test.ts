import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { expect } from 'chai';
import { pino } from 'pino';
import { answerOf } from '../support/mcp.js';
import type { AccountEvent } from '../../src/domain/account/events.js';
import { stableId } from '../../src/domain/shared/ids.js';
import { createDb, type Knex } from '../../src/infra/db.js';
import { tokenAuthenticator } from '../../src/mcp/auth.js';
import { CHANGELOG } from '../../src/mcp/changelog.js';
import { buildHttpServer } from '../../src/mcp/server.js';
import { generateApiToken, hashToken } from '../../src/domain/user/token.js';
import { prepareReadModels, project } from '../support/seed.js';

type Line = Record<string, unknown>;

const userA = randomUUID();
const userB = randomUUID();
const demoUser = randomUUID();
const [a1, a2, b1, d1] = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
const tokens = { a: generateApiToken(), b: generateApiToken(), revoked: generateApiToken() };
const tokenIds = { a: randomUUID(), b: randomUUID(), revoked: randomUUID() };

const us = {
  marketplace_id: 'ATVPDKIKX0DER',
  country_code: 'US',
  name: 'Amazon.com',
  currency: 'USD',
  domain_name: 'www.amazon.com',
  participating: true,
};
const jpProfile = {
  id: stableId(`profile:${a1}`, '3001'),
  provider_profile_id: '3001',
  marketplace_id: 'A1VC38T7YXB528',
  country_code: 'JP',
  currency: 'JPY',
  timezone: 'Asia/Tokyo',
  account_name: 'North JP',
  account_id: 'ENTITY1',
  valid_payment_method: true,
};

function accountEvents(
  account_id: string,
  user_id: string,
  name: string,
  entity_type: 'seller' | 'vendor',
  connect: { selling?: boolean; ads?: boolean },
): AccountEvent[] {
  const events: AccountEvent[] = [{ type: 'AccountRegistered', data: { account_id, user_id, name, entity_type } }];
  if (connect.selling) {
    events.push({
      type: 'SellingConnected',
      data: { account_id, connection_id: stableId(`selling:${account_id}`, 'S'), provider_id: `SELLER-${name}` },
    });
    events.push({ type: 'SellingParticipationsObserved', data: { account_id, marketplaces: [us] } });
  }
  if (connect.ads)
    events.push({
      type: 'AdvertisingConnected',
      data: { account_id, connection_id: stableId(`ads:${account_id}`, 'A'), provider_id: `ADV-${name}` },
    });
  return events;
}

describe('MCP over HTTP', () => {
  let db: Knex;
  let app: ReturnType<typeof buildHttpServer>;
  let base: string;
  let logs: Line[];
  const clients: Client[] = [];

  async function connect(path: string, headers: Record<string, string> = {}): Promise<Client> {
    const client = new Client({ name: 'mcp-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${base}${path}`), { requestInit: { headers } }));
    clients.push(client);
    return client;
  }

  const callStatus = async (client: Client, args?: Record<string, unknown>) =>
    (await client.callTool({ name: 'connection_status', arguments: args })) as CallToolResult;

  const accountIds = (result: CallToolResult) =>
    (result.structuredContent!.accounts as Array<{ id: string }>).map((a) => a.id).sort();

  before(async () => {
    db = createDb(process.env.DATABASE_URL!);
    await prepareReadModels(db);
    await project(db, [
      { type: 'UserRegistered', data: { user_id: userA, name: 'A' } },
      { type: 'UserRegistered', data: { user_id: userB, name: 'B' } },
      ...accountEvents(a1, userA, 'North', 'seller', { selling: true, ads: true }),
      { type: 'AdvertisingProfilesObserved', data: { account_id: a1, profiles: [jpProfile] } },
      ...accountEvents(a2, userA, 'South', 'vendor', { ads: true }),
      ...accountEvents(b1, userB, 'Other', 'seller', { selling: true }),
      ...accountEvents(d1, demoUser, 'Demo Seller', 'seller', { selling: true, ads: true }),
      ...(['a', 'b', 'revoked'] as const).map((k) => ({
        type: 'ApiTokenIssued' as const,
        data: { user_id: k === 'a' ? userA : userB, token_id: tokenIds[k], token_hash: hashToken(tokens[k]), label: k },
      })),
      { type: 'ApiTokenRevoked', data: { user_id: userB, token_id: tokenIds.revoked } },
    ]);
    logs = [];
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        logs.push(JSON.parse(chunk.toString()) as Line);
        done();
      },
    });
    app = buildHttpServer({
      db,
      logger: pino({ level: 'info' }, sink),
      authenticate: tokenAuthenticator(db),
      demoUserId: demoUser,
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  });

  after(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await app?.close();
    await db?.destroy();
  });

  it('lists connection_status on /demo/mcp with a strict input schema and read-only annotation', async () => {
    const { tools } = await (await connect('/demo/mcp')).listTools();
    const tool = tools.find((t) => t.name === 'connection_status');
    expect(tool, 'connection_status listed').to.exist;
    expect(tool!.inputSchema).to.deep.equal({ type: 'object', properties: {}, additionalProperties: false });
    expect(tool!.annotations).to.include({ readOnlyHint: true });
  });

  it('connection_status on /demo/mcp returns the demo accounts with connections and the changelog', async () => {
    const result = await callStatus(await connect('/demo/mcp'));
    expect(result.isError).to.not.equal(true);
    const { accounts, changelog } = result.structuredContent as {
      accounts: Array<Record<string, any>>;
      changelog: unknown[];
    };
    expect(accounts).to.have.length(1);
    const demo = accounts[0]!;
    expect(demo).to.include({ id: d1, name: 'Demo Seller', entity_type: 'seller' });
    expect(demo.selling).to.include({
      connected: true,
      active: true,
      type: 'SellingPartner',
      id: stableId(`selling:${d1}`, 'S'),
    });
    expect(demo.ads).to.include({ connected: true, type: 'Advertiser', id: stableId(`ads:${d1}`, 'A') });
    expect(changelog).to.deep.equal(CHANGELOG.slice(0, 5));
    expect(JSON.parse((result.content as Array<{ text: string }>)[0]!.text)).to.deep.equal(result.structuredContent);
  });

  it('an argument to connection_status is unknown_argument naming it', async () => {
    const result = await callStatus(await connect('/demo/mcp'), { foo: 1 });
    expect(result.isError).to.equal(true);
    // an error's body is its text: structured content would be checked against the tool's outputSchema
    expect(result.structuredContent).to.equal(undefined);
    const error = answerOf(result).structuredContent;
    expect(error).to.include({ code: 'unknown_argument' });
    expect(error.detail).to.contain('foo');
  });

  it('serves the changelog resource', async () => {
    const { contents } = await (await connect('/demo/mcp')).readResource({ uri: 'resource://service/changelog.md' });
    expect(contents[0]).to.include({ uri: 'resource://service/changelog.md', mimeType: 'text/markdown' });
    expect((contents[0] as { text: string }).text).to.contain(CHANGELOG[0]!.text);
  });

  describe('/mcp bearer tokens', () => {
    const initialize = (headers: Record<string, string>) =>
      fetch(`${base}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
        }),
      });

    it('refuses a request without a token: 401, WWW-Authenticate pointing at the metadata', async () => {
      const res = await initialize({});
      expect(res.status).to.equal(401);
      expect(res.headers.get('www-authenticate')).to.equal(
        `Bearer scope="mcp:read mcp:write", resource_metadata="${base}/.well-known/oauth-protected-resource/mcp"`,
      );
      expect(await res.json()).to.deep.include({ error: 'invalid_token' });
    });

    for (const [name, header] of [
      ['an unknown token', () => `Bearer nope-${randomUUID()}`],
      ['a revoked token', () => `Bearer ${tokens.revoked}`],
      ['a malformed header', () => 'Basic dXNlcjpwYXNz'],
    ] as const) {
      it(`refuses ${name}: 401 with error="invalid_token"`, async () => {
        const res = await initialize({ authorization: header() });
        expect(res.status).to.equal(401);
        const challenge = res.headers.get('www-authenticate')!;
        expect(challenge).to.match(/^Bearer /);
        expect(challenge).to.contain('error="invalid_token"');
        expect(challenge).to.contain(`resource_metadata="${base}/.well-known/oauth-protected-resource/mcp"`);
        const body = (await res.json()) as Record<string, string>;
        expect(body.error).to.equal('invalid_token');
        expect(body.error_description).to.be.a('string').that.is.not.empty;
      });
    }

    it('refuses GET and DELETE without a token too', async () => {
      for (const method of ['GET', 'DELETE']) expect((await fetch(`${base}/mcp`, { method })).status).to.equal(401);
    });

    it('the SDK client fails to connect without a valid token', async () => {
      const client = new Client({ name: 'mcp-test', version: '1.0.0' });
      const transport = new StreamableHTTPClientTransport(new URL(`${base}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${tokens.revoked}` } },
      });
      let failed = false;
      await client.connect(transport).catch(() => (failed = true));
      expect(failed).to.equal(true);
      await client.close();
    });

    it("a good token sees only its user's accounts", async () => {
      const asA = await callStatus(await connect('/mcp', { authorization: `Bearer ${tokens.a}` }));
      expect(accountIds(asA)).to.deep.equal([a1, a2].sort());
      const north = (asA.structuredContent!.accounts as Array<Record<string, any>>).find((a) => a.id === a1)!;
      expect(north.ads.profiles).to.deep.equal([
        {
          id: jpProfile.id,
          provider_profile_id: '3001',
          marketplace_id: 'A1VC38T7YXB528',
          country_code: 'JP',
          currency: 'JPY',
          timezone: 'Asia/Tokyo',
          account_name: 'North JP',
          account_id: 'ENTITY1',
        },
      ]);
      const south = (asA.structuredContent!.accounts as Array<Record<string, any>>).find((a) => a.id === a2)!;
      expect(south).to.include({ entity_type: 'vendor', selling: null });
      const asB = await callStatus(await connect('/mcp', { authorization: `Bearer ${tokens.b}` }));
      expect(accountIds(asB)).to.deep.equal([b1]);
    });

    it('answers GET on a stateless endpoint with 405 once authenticated', async () => {
      const res = await fetch(`${base}/mcp`, {
        headers: { authorization: `Bearer ${tokens.a}`, accept: 'text/event-stream' },
      });
      expect(res.status).to.equal(405);
      expect(res.headers.get('allow')).to.equal('POST');
    });
  });

  it('serves the RFC 9728 protected resource document at both well-known paths', async () => {
    for (const path of ['/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/mcp']) {
      const res = await fetch(`${base}${path}`);
      expect(res.status).to.equal(200);
      const doc = (await res.json()) as Record<string, unknown>;
      expect(doc).to.include({ resource: `${base}/mcp`, resource_documentation: `${base}/docs/authentication` });
      expect(doc.bearer_methods_supported).to.deep.equal(['header']);
      expect(doc.authorization_servers).to.deep.equal([]);
      expect(doc.resource_name).to.be.a('string');
    }
    const docs = await fetch(`${base}/docs/authentication`);
    expect(await docs.text()).to.contain('CLI');
  });

  it('echoes an incoming x-request-id and logs each tool call with it, its duration and outcome', async () => {
    const requestId = `req-${randomUUID()}`;
    const client = await connect('/demo/mcp', { 'x-request-id': requestId });
    await callStatus(client);
    await callStatus(client, { foo: 1 });
    const calls = logs.filter((l) => l.reqId === requestId && l.tool === 'connection_status');
    expect(calls.map((l) => [l.outcome, l.code])).to.deep.equal([
      ['ok', undefined],
      ['error', 'unknown_argument'],
    ]);
    for (const l of calls) expect(l.duration_ms).to.be.a('number');
    const res = await fetch(`${base}/healthz`, { headers: { 'x-request-id': requestId } });
    expect(res.headers.get('x-request-id')).to.equal(requestId);
    const mcp = await fetch(`${base}/demo/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'x-request-id': requestId,
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
      }),
    });
    expect(mcp.status).to.equal(200);
    expect(mcp.headers.get('x-request-id')).to.equal(requestId);
  });

  it('makes up a request id when none (or a malformed one) is given', async () => {
    const res = await fetch(`${base}/healthz`, { headers: { 'x-request-id': 'bad id with spaces' } });
    expect(res.headers.get('x-request-id')).to.match(/^[0-9a-f-]{36}$/);
  });

  // a suite of its own so that mocha runs it after every test above, nested suites included
  describe('after all the bad calls', () => {
    it('keeps serving', async () => {
      expect(await (await fetch(`${base}/healthz`)).json()).to.deep.equal({ status: 'ok' });
      const result = await callStatus(await connect('/mcp', { authorization: `Bearer ${tokens.a}` }));
      expect(accountIds(result)).to.deep.equal([a1, a2].sort());
    });
  });
});
