import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { issueApiToken, registerUser } from '../../src/commands/user/execute.js';
import { PAT_SCOPES } from '../../src/domain/user/scopes.js';
import { RATE_LIMITS } from '../../src/web/rate-limit.js';
import { admissionProjection } from '../../src/projections/admission/projection.js';
import { authProjection } from '../../src/projections/auth/projection.js';
import { listingsProjection } from '../../src/projections/observed/listings.js';
import { stableId } from '../../src/domain/shared/ids.js';
import type { SimListing } from '../../src/marketplace/simulator/index.js';
import { listingsSync } from '../../src/workers/sync/listings.js';
import { startHarness, type Harness } from '../support/observed.js';
import { authorizedClient, Browser, pkce, startOAuthService, type OAuthService } from '../support/oauth.js';

// Every way into /mcp through the OAuth 2.1 authorization server, over real HTTP against a
// listening server: metadata, dynamic registration, authorization code + PKCE through the sign-in
// and consent pages, the tokens' binding to the resource, expiry, revocation, refresh-token
// rotation with reuse detection, scopes, and who did it on the receipts.

const SELLER = 'Atzr|demo-seller';

interface Tokens {
  access_token: string;
  refresh_token?: string;
  scope?: string;
  token_type: string;
  expires_in: number;
}

describe('OAuth 2.1 authorization server for /mcp', function () {
  this.timeout(120_000);
  let h: Harness;
  let service: OAuthService;
  let browser: Browser;
  let listing: SimListing;
  let account: string;
  const user = randomUUID();
  const redirectUri = 'http://127.0.0.1:9/callback';

  const eventCount = async () => Number((await h.db('events').count<{ count: string }[]>())[0]!.count);
  const post = (path: string, form: Record<string, string>) =>
    fetch(`${service.base}${path}`, { method: 'POST', body: new URLSearchParams(form) });

  async function register(extra: Record<string, unknown> = {}): Promise<string> {
    const res = await fetch(`${service.base}/oauth/reg`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        client_name: 'Test agent',
        redirect_uris: [redirectUri],
        token_endpoint_auth_method: 'none',
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        ...extra,
      }),
    });
    const body = (await res.json()) as { client_id: string };
    expect(res.status, JSON.stringify(body)).to.equal(201);
    return body.client_id;
  }

  function authorizationUrl(clientId: string, params: Record<string, string>): string {
    const query = new URLSearchParams({
      client_id: clientId,
      redirect_uri: redirectUri,
      response_type: 'code',
      scope: 'mcp:read mcp:write',
      resource: `${service.base}/mcp`,
      ...params,
    });
    return `${service.oauth.issuer}/auth?${query}`;
  }

  /** the authorization code of a whole flow, and what came back with it */
  async function authorize(clientId: string, decision = 'allow', params: Record<string, string> = {}) {
    const { verifier, challenge } = pkce();
    const state = randomUUID();
    const back = await browser.authorize(
      authorizationUrl(clientId, { state, code_challenge: challenge, code_challenge_method: 'S256', ...params }),
      service.base,
      decision,
    );
    return { back, state, verifier };
  }

  async function exchange(clientId: string, code: string, verifier?: string) {
    return post('/oauth/token', {
      grant_type: 'authorization_code',
      code,
      redirect_uri: redirectUri,
      client_id: clientId,
      resource: `${service.base}/mcp`,
      ...(verifier ? { code_verifier: verifier } : {}),
    });
  }

  async function tokensFor(clientId: string, decision = 'allow'): Promise<Tokens> {
    const { back, verifier } = await authorize(clientId, decision);
    const res = await exchange(clientId, back.searchParams.get('code')!, verifier);
    const body = (await res.json()) as Tokens;
    expect(res.status, JSON.stringify(body)).to.equal(200);
    return body;
  }

  /** a raw MCP request to /mcp with this bearer token */
  const mcp = (token: string, message: Record<string, unknown>, base = service.base) =>
    fetch(`${base}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        authorization: `Bearer ${token}`,
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': message.method as string,
        ...(message.method === 'tools/call' ? { 'mcp-name': (message.params as { name: string }).name } : {}),
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        ...message,
        params: {
          ...(message.params as object),
          _meta: {
            'io.modelcontextprotocol/protocolVersion': '2026-07-28',
            'io.modelcontextprotocol/clientInfo': { name: 'oauth-test', version: '1.0.0' },
            'io.modelcontextprotocol/clientCapabilities': {},
          },
        },
      }),
    });
  const toolNames = async (token: string) => {
    const res = await mcp(token, { method: 'tools/list', params: {} });
    expect(res.status).to.equal(200);
    return ((await res.json()) as { result: { tools: Array<{ name: string }> } }).result.tools.map((t) => t.name);
  };
  const queueListingPatch = (token: string, price: number) =>
    mcp(token, {
      method: 'tools/call',
      params: {
        name: 'queue_mutations',
        arguments: {
          mutations: [
            {
              target: {
                type: 'Listing',
                id: stableId('listing', `${account}/${listing.marketplaceId}/${listing.sku}`),
              },
              action: 'update',
              payload: {
                productType: 'PRODUCT',
                patches: [
                  {
                    op: 'replace',
                    path: '/attributes/purchasable_offer',
                    value: [
                      {
                        marketplace_id: listing.marketplaceId,
                        currency: listing.currency,
                        audience: 'ALL',
                        our_price: [{ schedule: [{ value_with_tax: price }] }],
                      },
                    ],
                  },
                ],
              },
            },
          ],
        },
      },
    });

  before(async () => {
    h = await startHarness(
      [listingsProjection, admissionProjection, authProjection],
      [],
      Date.parse('2026-11-20T10:00:00Z'),
      17,
    );
    account = await h.connect('seller', user);
    await h.run(listingsSync, account, SELLER);
    listing = [...h.simulator.catalog.listingsIn('ATVPDKIKX0DER')].find((l) => l.status === 'BUYABLE')!;
    service = await startOAuthService({
      db: h.db,
      store: h.store,
      demoUserId: randomUUID(),
      now: () => new Date(h.clock.ms),
    });
    browser = await service.browserFor(user);
  });
  after(async () => {
    await service?.close();
    await h?.close();
  });

  describe('metadata', () => {
    it('the 401 names the protected resource metadata, which names the authorization server, whose metadata names it back', async () => {
      const res = await fetch(`${service.base}/mcp`, { method: 'POST', body: '{}' });
      expect(res.status).to.equal(401);
      const challenge = res.headers.get('www-authenticate')!;
      const metadataUrl = /resource_metadata="([^"]+)"/.exec(challenge)![1]!;
      expect(challenge).to.contain('scope="mcp:read mcp:write"');
      const resource = (await (await fetch(metadataUrl)).json()) as Record<string, any>;
      expect(resource).to.include({ resource: `${service.base}/mcp` });
      expect(resource.authorization_servers).to.deep.equal([`${service.base}/oauth`]);
      expect(resource.scopes_supported).to.deep.equal(['mcp:read', 'mcp:write']);
      for (const path of ['/.well-known/oauth-authorization-server/oauth', '/oauth/.well-known/openid-configuration']) {
        const as = (await (await fetch(`${service.base}${path}`)).json()) as Record<string, any>;
        expect(as.issuer, path).to.equal(resource.authorization_servers[0]);
        expect(as.code_challenge_methods_supported).to.deep.equal(['S256']);
        expect(as.token_endpoint_auth_methods_supported).to.include('none');
        expect(as.response_types_supported).to.deep.equal(['code']);
        expect(as).to.include({
          authorization_response_iss_parameter_supported: true,
          client_id_metadata_document_supported: true,
          registration_endpoint: `${service.base}/oauth/reg`,
          revocation_endpoint: `${service.base}/oauth/token/revocation`,
        });
        expect(as.scopes_supported).to.include.members(['mcp:read', 'mcp:write']);
      }
    });
  });

  describe('authorization code with PKCE', () => {
    it('a registered client gets a token through sign-in and consent; state comes back with iss; the consent page names the client, its redirect host, the scopes and the accounts', async () => {
      const clientId = await register();
      const consent = await browser.follow(
        authorizationUrl(clientId, { state: 's', code_challenge: pkce().challenge, code_challenge_method: 'S256' }),
        service.base,
      );
      const page = await consent.res.text();
      expect(consent.res.status).to.equal(200);
      for (const shown of ['Test agent', clientId, '127.0.0.1:9', 'mcp:read', 'mcp:write', 'Allow reading only'])
        expect(page).to.contain(shown);
      const names = (await h.db('rm.accounts').where({ user_id: user }).select('name')).map((r) => r.name as string);
      expect(names).to.have.length(1);
      expect(page).to.contain(names[0]);

      const { back, state, verifier } = await authorize(clientId);
      expect(back.origin + back.pathname).to.equal(redirectUri);
      expect(back.searchParams.get('state')).to.equal(state);
      expect(back.searchParams.get('iss')).to.equal(service.oauth.issuer);
      const res = await exchange(clientId, back.searchParams.get('code')!, verifier);
      const tokens = (await res.json()) as Tokens;
      expect(res.status).to.equal(200);
      expect(tokens.token_type).to.equal('Bearer');
      expect(tokens.scope!.split(' ')).to.include.members(['mcp:read', 'mcp:write']);
      expect(tokens.refresh_token).to.be.a('string');
      expect(await toolNames(tokens.access_token)).to.include.members(['list_listings', 'queue_mutations']);
    });

    it('an unknown user sent to consent is first sent to sign in', async () => {
      const clientId = await register();
      const stranger = new Browser();
      const { url } = await stranger.follow(
        authorizationUrl(clientId, { code_challenge: pkce().challenge, code_challenge_method: 'S256' }),
        service.base,
      );
      const signIn = new URL(url);
      expect(signIn.pathname).to.equal('/sign-in');
      expect(signIn.searchParams.get('return_to')).to.match(/^\/oauth\/interaction\/[\w-]+$/);
    });

    it('refuses an authorization request without a code challenge (invalid_request, back to the client with iss)', async () => {
      const clientId = await register();
      const { url } = await browser.follow(authorizationUrl(clientId, { state: 'x' }), service.base);
      const back = new URL(url);
      expect(back.searchParams.get('error')).to.equal('invalid_request');
      expect(back.searchParams.get('error_description')).to.match(/PKCE/);
      expect(back.searchParams.get('state')).to.equal('x');
      expect(back.searchParams.get('iss')).to.equal(service.oauth.issuer);
    });

    it('refuses the plain PKCE method', async () => {
      const clientId = await register();
      const { url } = await browser.follow(
        authorizationUrl(clientId, { code_challenge: 'a'.repeat(43), code_challenge_method: 'plain' }),
        service.base,
      );
      expect(new URL(url).searchParams.get('error')).to.equal('invalid_request');
    });

    it('refuses a code without its PKCE verifier, or with another one (invalid_grant / invalid_request)', async () => {
      const clientId = await register();
      const first = await authorize(clientId);
      const missing = await exchange(clientId, first.back.searchParams.get('code')!);
      expect(missing.status).to.equal(400);
      expect(((await missing.json()) as { error: string }).error).to.be.oneOf(['invalid_grant', 'invalid_request']);
      const second = await authorize(clientId);
      const wrong = await exchange(clientId, second.back.searchParams.get('code')!, pkce().verifier);
      expect(wrong.status).to.equal(400);
      expect(((await wrong.json()) as { error: string }).error).to.equal('invalid_grant');
    });

    it('a code is used once', async () => {
      const clientId = await register();
      const { back, verifier } = await authorize(clientId);
      expect((await exchange(clientId, back.searchParams.get('code')!, verifier)).status).to.equal(200);
      const again = await exchange(clientId, back.searchParams.get('code')!, verifier);
      expect(again.status).to.equal(400);
      expect(((await again.json()) as { error: string }).error).to.equal('invalid_grant');
    });

    it('never redirects to a redirect_uri the client did not register: an error page instead', async () => {
      const clientId = await register();
      const res = await browser.request(
        authorizationUrl(clientId, {
          redirect_uri: 'https://attacker.example/callback',
          code_challenge: pkce().challenge,
          code_challenge_method: 'S256',
        }),
      );
      expect(res.status).to.equal(400);
      expect(res.headers.get('location')).to.equal(null);
      expect(await res.text()).to.contain('redirect_uri');
    });

    it('refuses a resource other than this service’s /mcp (invalid_target)', async () => {
      const clientId = await register();
      const { url } = await browser.follow(
        authorizationUrl(clientId, {
          resource: 'https://other.example/mcp',
          code_challenge: pkce().challenge,
          code_challenge_method: 'S256',
        }),
        service.base,
      );
      expect(new URL(url).searchParams.get('error')).to.equal('invalid_target');
    });

    it('a user who denies sends the client access_denied', async () => {
      const clientId = await register();
      const { back } = await authorize(clientId, 'deny');
      expect(back.searchParams.get('error')).to.equal('access_denied');
      expect(back.searchParams.get('iss')).to.equal(service.oauth.issuer);
    });
  });

  describe('access tokens', () => {
    it('a token bound to another resource is refused (401 invalid_token)', async () => {
      // another deployment of the service, its own issuer and resource, on the same database
      const other = await startOAuthService({ db: h.db, store: h.store, demoUserId: randomUUID() });
      try {
        const tokens = await authorizedClient(other, user);
        expect((await mcp(tokens.access_token, { method: 'tools/list', params: {} }, other.base)).status).to.equal(200);
        const res = await mcp(tokens.access_token, { method: 'tools/list', params: {} });
        expect(res.status).to.equal(401);
        expect(res.headers.get('www-authenticate')).to.contain('error="invalid_token"');
      } finally {
        await other.close();
      }
    });

    it('an expired token is refused (401 invalid_token)', async () => {
      const brief = await startOAuthService({
        db: h.db,
        store: h.store,
        demoUserId: randomUUID(),
        accessTokenTtlSeconds: 1,
      });
      try {
        const briefBrowser = await brief.browserFor(user);
        const reg = (await (
          await fetch(`${brief.base}/oauth/reg`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ redirect_uris: [redirectUri], token_endpoint_auth_method: 'none' }),
          })
        ).json()) as { client_id: string };
        const { verifier, challenge } = pkce();
        const back = await briefBrowser.authorize(
          `${brief.oauth.issuer}/auth?${new URLSearchParams({
            client_id: reg.client_id,
            redirect_uri: redirectUri,
            response_type: 'code',
            scope: 'mcp:read',
            resource: `${brief.base}/mcp`,
            code_challenge: challenge,
            code_challenge_method: 'S256',
          })}`,
          brief.base,
        );
        const tokens = (await (
          await fetch(`${brief.base}/oauth/token`, {
            method: 'POST',
            body: new URLSearchParams({
              grant_type: 'authorization_code',
              code: back.searchParams.get('code')!,
              redirect_uri: redirectUri,
              client_id: reg.client_id,
              code_verifier: verifier,
            }),
          })
        ).json()) as Tokens;
        expect(tokens.expires_in).to.equal(1);
        expect((await mcp(tokens.access_token, { method: 'tools/list', params: {} }, brief.base)).status).to.equal(200);
        await new Promise((resolve) => setTimeout(resolve, 2_100));
        const res = await mcp(tokens.access_token, { method: 'tools/list', params: {} }, brief.base);
        expect(res.status).to.equal(401);
        expect(res.headers.get('www-authenticate')).to.contain('error="invalid_token"');
      } finally {
        await brief.close();
      }
    });

    it('a revoked token is refused (401 invalid_token)', async () => {
      const clientId = await register();
      const tokens = await tokensFor(clientId);
      expect(await toolNames(tokens.access_token)).to.include('list_listings');
      const revoked = await post('/oauth/token/revocation', { token: tokens.access_token, client_id: clientId });
      expect(revoked.status).to.equal(200);
      const res = await mcp(tokens.access_token, { method: 'tools/list', params: {} });
      expect(res.status).to.equal(401);
      expect(res.headers.get('www-authenticate')).to.contain('error="invalid_token"');
    });
  });

  describe('refresh tokens', () => {
    it('rotate on use; a used one presented again revokes the whole family (invalid_grant), its access tokens too', async () => {
      const clientId = await register();
      const first = await tokensFor(clientId);
      const refresh = (token: string) =>
        post('/oauth/token', { grant_type: 'refresh_token', refresh_token: token, client_id: clientId });
      const res = await refresh(first.refresh_token!);
      const second = (await res.json()) as Tokens;
      expect(res.status).to.equal(200);
      expect(second.refresh_token).to.be.a('string').and.not.equal(first.refresh_token);
      expect(await toolNames(second.access_token)).to.include('list_listings');

      const reused = await refresh(first.refresh_token!);
      expect(reused.status).to.equal(400);
      expect(((await reused.json()) as { error: string }).error).to.equal('invalid_grant');
      // the thief's reuse ends the family: the newest refresh token and its access token are dead too
      const after = await refresh(second.refresh_token!);
      expect(after.status).to.equal(400);
      expect(((await after.json()) as { error: string }).error).to.equal('invalid_grant');
      expect((await mcp(second.access_token, { method: 'tools/list', params: {} })).status).to.equal(401);
    });
  });

  describe('scopes and who did it', () => {
    it('a read-only token is not shown the write tools, and its write call is refused 403 insufficient_scope with nothing recorded', async () => {
      const clientId = await register();
      const tokens = await tokensFor(clientId, 'read');
      expect(tokens.scope).to.equal('mcp:read');
      const names = await toolNames(tokens.access_token);
      expect(names).to.include('list_listings');
      expect(names).to.not.include.members(['queue_mutations']);
      expect(names.filter((n) => ['patch_listing', 'create_automation', 'update_listing'].includes(n))).to.deep.equal(
        [],
      );
      const before = await eventCount();
      const res = await queueListingPatch(tokens.access_token, 12.5);
      expect(res.status).to.equal(403);
      expect(res.headers.get('www-authenticate')).to.equal(
        `Bearer error="insufficient_scope", error_description="this call needs the scope mcp:write, which the token lacks; nothing was done", scope="mcp:read mcp:write", resource_metadata="${service.base}/.well-known/oauth-protected-resource/mcp"`,
      );
      expect(((await res.json()) as { error: string }).error).to.equal('insufficient_scope');
      expect(await eventCount()).to.equal(before);
    });

    it("a write records the OAuth client that made it, shown in get_mutation's history", async () => {
      const clientId = await register();
      const tokens = await tokensFor(clientId);
      const res = await queueListingPatch(tokens.access_token, 13.25);
      expect(res.status).to.equal(200);
      const answer = await res.clone().text();
      expect(answer, answer).to.not.contain('"isError":true');
      const queued = (
        (await res.json()) as { result: { structuredContent: { results: Array<{ receipt: { id: string } }> } } }
      ).result.structuredContent;
      const id = queued.results[0]!.receipt.id;
      const read = await mcp(tokens.access_token, {
        method: 'tools/call',
        params: { name: 'get_mutation', arguments: { id } },
      });
      const receipt = (
        (await read.json()) as { result: { structuredContent: { history: Array<Record<string, any>> } } }
      ).result.structuredContent;
      expect(receipt.history[0]!.type).to.equal('MutationAdmitted');
      expect(receipt.history[0]!.data.via).to.deep.equal({ kind: 'oauth_client', client_id: clientId });
    });
  });

  describe('personal access tokens', () => {
    const ctx = () => ({ store: h.store, metadata: { actor: { kind: 'user' as const, id: 'cli' } } });
    const issue = async (scope: keyof typeof PAT_SCOPES) => {
      const issued = await issueApiToken(ctx(), user, `pat-${scope}`, PAT_SCOPES[scope]);
      await h.projector.whenCaughtUp(issued.position);
      return issued;
    };
    before(async () => {
      await h.projector.whenCaughtUp(await registerUser(ctx(), user, 'Ada'));
    });

    it('a read-only token follows the same rule: write tools hidden, a write call 403 with nothing recorded', async () => {
      const { token } = await issue('read');
      const names = await toolNames(token);
      expect(names).to.include('list_listings');
      expect(names).to.not.include('queue_mutations');
      const before = await eventCount();
      const res = await queueListingPatch(token, 14);
      expect(res.status).to.equal(403);
      expect(res.headers.get('www-authenticate')).to.match(
        /^Bearer error="insufficient_scope", .*scope="mcp:read mcp:write", resource_metadata="[^"]+"$/,
      );
      expect(await eventCount()).to.equal(before);
    });

    it("a read and write token writes, and its receipt's history names the token", async () => {
      const { token, token_id } = await issue('write');
      const res = await queueListingPatch(token, 14.5);
      const answer = (await res.json()) as {
        result: { structuredContent: { results: Array<{ receipt: { id: string } }> } };
      };
      const id = answer.result.structuredContent.results[0]!.receipt.id;
      const read = await mcp(token, { method: 'tools/call', params: { name: 'get_mutation', arguments: { id } } });
      const receipt = (
        (await read.json()) as { result: { structuredContent: { history: Array<Record<string, any>> } } }
      ).result.structuredContent;
      expect(receipt.history[0]!.data.via).to.deep.equal({ kind: 'personal_access_token', token_id });
    });
  });

  it('limits the token, registration and revocation endpoints per IP, with backoff (429 and Retry-After)', async () => {
    // a server of its own: its counters are its own, the other tests' tokens keep flowing
    const limited = await startOAuthService({ db: h.db, store: h.store, demoUserId: randomUUID() });
    try {
      const token = () =>
        fetch(`${limited.base}/oauth/token`, {
          method: 'POST',
          body: new URLSearchParams({ grant_type: 'authorization_code', code: 'forged', client_id: 'nobody' }),
        });
      for (let i = 0; i < RATE_LIMITS.token.perIp.max; i++) expect((await token()).status).to.not.equal(429);
      const refused = await token();
      expect(refused.status).to.equal(429);
      expect(Number(refused.headers.get('retry-after'))).to.be.greaterThan(0);
      const registration = await fetch(`${limited.base}/oauth/reg`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ redirect_uris: [redirectUri], token_endpoint_auth_method: 'none' }),
      });
      expect(registration.status).to.equal(429);
    } finally {
      await limited.close();
    }
  });
});
