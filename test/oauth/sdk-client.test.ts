import { randomUUID } from 'node:crypto';
import {
  auth,
  Client,
  type OAuthClientMetadata,
  type OAuthClientProvider,
  type OAuthDiscoveryState,
  type StoredOAuthClientInformation,
  type StoredOAuthTokens,
  StreamableHTTPClientTransport,
} from '@modelcontextprotocol/client';
import { expect } from 'chai';
import { registerUser } from '../../src/commands/user/execute.js';
import { deleteAccount } from '../../src/identity/deletion.js';
import { authProjection } from '../../src/projections/auth/projection.js';
import { startHarness, type Harness } from '../support/observed.js';
import { createTestCa, serveHttps, startOAuthService, type OAuthService, type TestCa } from '../support/oauth.js';

// The MCP SDK 2.x client's own OAuth flow (`auth()`) against the service over real HTTP: it
// discovers the authorization server from the 401, registers dynamically or presents a Client ID
// Metadata Document served over https (a test CA the service trusts under test configuration),
// sends the user through sign-in and consent (here a browser by plain HTTP), redeems the code with
// PKCE and the resource, and then its transport calls tools with the token.

const REDIRECT = 'http://127.0.0.1:9/callback';

/** What a client application keeps, in memory; the authorization URL it would open is remembered. */
class MemoryProvider implements OAuthClientProvider {
  private info: StoredOAuthClientInformation | undefined;
  private saved: StoredOAuthTokens | undefined;
  private verifier = '';
  private discovered: OAuthDiscoveryState | undefined;
  opened: URL | undefined;
  constructor(readonly clientMetadataUrl?: string) {}
  get redirectUrl() {
    return REDIRECT;
  }
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'SDK test client',
      redirect_uris: [REDIRECT],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  clientInformation() {
    return this.info;
  }
  saveClientInformation(info: StoredOAuthClientInformation) {
    this.info = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: StoredOAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.opened = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
  saveDiscoveryState(state: OAuthDiscoveryState) {
    this.discovered = state;
  }
  discoveryState() {
    return this.discovered;
  }
}

describe('the MCP SDK client signs in through its own OAuth flow', function () {
  this.timeout(120_000);
  let h: Harness;
  let ca: TestCa;
  let service: OAuthService;
  const user = randomUUID();

  before(async () => {
    h = await startHarness([authProjection], [], Date.parse('2026-11-20T10:00:00Z'));
    // registered as sign-up registers a seller: an account deletion closes the user it names
    await registerUser({ store: h.store, metadata: { actor: { kind: 'user', id: user } } }, user, 'seller');
    await h.connect('seller', user);
    ca = createTestCa();
    service = await startOAuthService({ db: h.db, store: h.store, demoUserId: randomUUID(), testCa: ca });
  });
  after(async () => {
    await service?.close();
    await h?.close();
    ca?.remove();
  });

  /** The whole flow: auth() until it redirects, the user consents, auth() with the code; then tools over MCP. */
  async function signInAndList(provider: MemoryProvider) {
    const serverUrl = `${service.base}/mcp`;
    expect(await auth(provider, { serverUrl })).to.equal('REDIRECT');
    const opened = provider.opened!;
    expect(opened.searchParams.get('resource')).to.equal(serverUrl);
    expect(opened.searchParams.get('code_challenge_method')).to.equal('S256');
    const browser = await service.browserFor(user);
    const back = await browser.authorize(opened.href, service.base);
    expect(back.searchParams.get('iss')).to.equal(service.oauth.issuer);
    const result = await auth(provider, {
      serverUrl,
      authorizationCode: back.searchParams.get('code')!,
      iss: back.searchParams.get('iss')!,
    });
    expect(result).to.equal('AUTHORIZED');
    const client = new Client({ name: 'sdk-oauth-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(serverUrl), { authProvider: provider }));
    try {
      return {
        names: (await client.listTools()).tools.map((t) => t.name),
        clientId: opened.searchParams.get('client_id')!,
      };
    } finally {
      await client.close();
    }
  }

  it('with dynamic registration', async () => {
    const { names, clientId } = await signInAndList(new MemoryProvider());
    expect(names).to.include.members(['list_listings', 'queue_mutations']);
    expect(clientId).to.not.match(/^https:/);
  });

  it('with a Client ID Metadata Document served over https', async () => {
    let fetched = 0;
    const documents = await serveHttps(ca, (req, res) => {
      fetched++;
      const clientId = `${documents.origin}${req.url}`;
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          client_id: clientId,
          client_name: 'SDK test client (CIMD)',
          redirect_uris: [REDIRECT],
          grant_types: ['authorization_code', 'refresh_token'],
          response_types: ['code'],
          token_endpoint_auth_method: 'none',
        }),
      );
    });
    try {
      const url = `${documents.origin}/oauth/client.json`;
      const { names, clientId } = await signInAndList(new MemoryProvider(url));
      expect(clientId).to.equal(url);
      expect(fetched).to.be.greaterThan(0);
      expect(names).to.include('list_listings');
    } finally {
      await documents.close();
    }
  });

  it("deleting the user's account ends its grants: the client's token is refused", async () => {
    const provider = new MemoryProvider();
    await signInAndList(provider);
    const token = (await provider.tokens())!.access_token;
    const list = () =>
      fetch(`${service.base}/mcp`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          authorization: `Bearer ${token}`,
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
      });
    expect((await list()).status).to.not.equal(401);
    await deleteAccount({ db: h.db, store: h.store, userId: user });
    expect((await list()).status).to.equal(401);
  });
});
