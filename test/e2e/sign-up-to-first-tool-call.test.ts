import { randomBytes } from 'node:crypto';
import { Client, InsufficientScopeError, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { createDb, type Knex } from '../../src/infra/db.js';
import { createVault, parseKeyring } from '../../src/secrets/vault.js';
import { launchChromium, type ChromiumSession } from '../support/chromium.js';
import { answerOf, type ToolAnswer } from '../support/mcp.js';
import { loopbackCallback, TestOAuthClient, type LoopbackCallback } from '../support/mcp-oauth-client.js';
import { createTestCa, serveHttps, type TestCa } from '../support/oauth.js';
import { eventually, freePort } from '../support/processes.js';
import { startOwnService, type OwnService } from '../support/service.js';

// A seller's first hour, through the front door only, as `npm start` runs the service: sign up in a
// real browser (chromium), connect the selling and advertising accounts through the marketplace's
// consent pages (the simulator's), then let MCP clients in through the SDK 2.x client's own OAuth
// flow — one known by its Client ID Metadata Document (served over https under a test CA), one
// that registers dynamically and signs in with the password — and call tools on /mcp. A client
// granted reading only is refused the write. Afterwards no secret the run handled may be found in
// the event log, the service's logs or any tool answer.

type Row = Record<string, any>;

const CIMD_PATH = '/clients/e2e-agent.json';

describe('from sign-up to the first tool call (browser, OAuth, MCP)', function () {
  // about a minute on a quiet machine; the bound leaves room for a loaded one
  this.timeout(180_000);
  let ca: TestCa;
  let cimdServer: { origin: string; close(): Promise<void> };
  let callback: LoopbackCallback;
  let own: OwnService;
  let db: Knex;
  let browser: ChromiumSession;
  let page: Page;
  let cimdClient: TestOAuthClient;
  let dcrClient: TestOAuthClient;
  let readClient: TestOAuthClient;
  const clients: Client[] = [];

  const email = `seller-${randomBytes(4).toString('hex')}@example.com`;
  const password = `ample meadow ${randomBytes(8).toString('hex')}`;
  const secretsKeys = `e2e:${randomBytes(32).toString('base64')}`;
  /** every tool answer a client received */
  const answers: ToolAnswer[] = [];
  /** every URL the browser asked for (the marketplace's redirects back carry the seller and its codes) */
  const visited: string[] = [];
  /** every /mcp answer's status and challenge */
  const mcpAnswers: Array<{ status: number; challenge: string | null; body: string }> = [];
  let account: string;
  let partner: string;

  const mcpUrl = () => `${own.base}/mcp`;

  /** the browser's way through the service's pages for an authorization request: sign in if asked, then consent */
  const through =
    (decision: 'Allow' | 'Allow reading only', signIn = false) =>
    async (authorizationUrl: URL) => {
      await page.goto(authorizationUrl.href);
      if (signIn) {
        await page.waitForURL((u) => u.pathname === '/sign-in');
        await page.getByLabel('Email').fill(email);
        await page.getByLabel('Password').fill(password);
        await page.getByRole('button', { name: 'Sign in' }).click();
      }
      await page.waitForURL((u) => u.pathname.startsWith('/oauth/interaction/'));
      await page.getByRole('heading', { name: 'Allow access to your marketplace accounts?' }).waitFor();
      // the consent names the accounts the client will reach
      expect(await page.locator('main').innerText()).to.match(/The accounts it will reach\s+\S/);
      expect(await page.locator('main').innerText()).to.not.include('no connected marketplace account');
      await page.getByRole('button', { name: decision, exact: true }).click();
      await page.waitForURL((u) => u.href.startsWith(callback.url));
    };

  /** an MCP client of /mcp signed in through `provider`, recording every HTTP answer */
  async function connect(provider: TestOAuthClient): Promise<Client> {
    const client = new Client({ name: 'e2e-first-tool-call', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(mcpUrl()), {
        authProvider: provider,
        // a refusal is what step 4 looks for: no step-up authorization behind the test's back
        onInsufficientScope: 'throw',
        fetch: async (url, init) => {
          const res = await fetch(url, init);
          if (String(url).startsWith(mcpUrl()))
            mcpAnswers.push({
              status: res.status,
              challenge: res.headers.get('www-authenticate'),
              body: res.ok ? '' : await res.clone().text(),
            });
          return res;
        },
      }),
    );
    clients.push(client);
    return client;
  }

  async function tool(client: Client, name: string, args: Row = {}): Promise<Row> {
    const answer = answerOf(await client.callTool({ name, arguments: args }));
    answers.push(answer);
    expect(answer.isError, `${name}: ${JSON.stringify(answer.structuredContent)}`).to.not.equal(true);
    return answer.structuredContent;
  }

  const admittedCount = async () =>
    Number((await db('events').where({ type: 'MutationAdmitted' }).count<{ count: string }[]>())[0]!.count);

  /** a price change of one of the connected seller's listings, as queue_mutations takes it */
  let listing: Row;
  const priceChange = (price: number) => ({
    target: { type: 'Listing', id: listing.id },
    action: 'update',
    payload: {
      productType: listing.product_type,
      patches: [
        {
          op: 'replace',
          path: '/attributes/purchasable_offer',
          value: [
            {
              marketplace_id: listing.marketplace_id,
              currency: listing.currency,
              audience: 'ALL',
              our_price: [{ schedule: [{ value_with_tax: price / 100 }] }],
            },
          ],
        },
      ],
    },
  });

  before(async () => {
    ca = createTestCa();
    callback = await loopbackCallback();
    cimdServer = await serveHttps(ca, (req, res) => {
      if (req.url !== CIMD_PATH) return res.writeHead(404).end();
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(cimdClient.metadataDocument()));
    });
    cimdClient = new TestOAuthClient({
      name: 'E2E agent (metadata document)',
      callback,
      clientMetadataUrl: `${cimdServer.origin}${CIMD_PATH}`,
      redirect: through('Allow'),
    });
    // confidential: registration issues it a secret, which the sweep then looks for
    dcrClient = new TestOAuthClient({
      name: 'E2E agent (registered)',
      callback,
      tokenEndpointAuthMethod: 'client_secret_basic',
      redirect: through('Allow', true),
    });
    readClient = new TestOAuthClient({ name: 'E2E reader', callback, redirect: through('Allow reading only') });

    // the issuer and the resource are named by the service's address, so the port is chosen first;
    // no demo seller (its year of data would only slow the syncs this seller's calls wait for)
    own = await startOwnService('first_tool_call', {
      PORT: String(await freePort()),
      OAUTH_TEST_CA_FILE: ca.caFile,
      SECRETS_KEYS: secretsKeys,
      SELLING_REFRESH_TOKEN: '',
      ADS_REFRESH_TOKEN: '',
    });
    db = createDb(own.env.DATABASE_URL!);
    browser = await launchChromium();
    page = browser.context.pages()[0] ?? (await browser.context.newPage());
    page.on('request', (r) => visited.push(r.url()));
  });

  after(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await browser?.close();
    await db?.destroy();
    await own?.stop();
    await callback?.close();
    await cimdServer?.close();
    ca?.remove();
  });

  it('signs up on the sign-up page and lands signed in', async () => {
    await page.goto(`${own.base}/sign-up`);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.waitForURL((u) => u.pathname === '/account');
    expect(await page.locator('main').innerText()).to.include(`Signed in as ${email}`);
  });

  it('connects the selling and the advertising account through the consent pages and shows both connected', async () => {
    await page.getByRole('navigation').getByRole('link', { name: 'Marketplace connections' }).click();
    await page.waitForURL((u) => u.pathname === '/connections');
    await page.getByRole('link', { name: 'Connect selling account' }).click();
    await page.waitForURL((u) => u.pathname === '/apps/authorize/consent');
    // the simulator's consent signs in as a new fictional seller unless told otherwise
    expect(await page.getByLabel('a new fictional seller').isChecked()).to.equal(true);
    await page.getByRole('button', { name: 'Confirm' }).click();
    await page.waitForURL((u) => u.pathname === '/connections' && u.searchParams.has('connected'));
    account = new URL(page.url()).searchParams.get('connected')!;
    const sellingBack = visited.map((v) => new URL(v)).find((u) => u.pathname === '/connections/selling/callback');
    partner = sellingBack!.searchParams.get('selling_partner_id')!;
    expect(partner, 'the consent named the seller').to.be.a('string').and.not.equal('');

    // advertising for the same account, consenting as the same seller: the account is offered once
    // the worker has made it (the page says its data arrives over the next minutes)
    await eventually(
      async () => {
        await page.reload();
        return (await page.locator(`#account option[value="${account}"]`).count()) ? true : undefined;
      },
      'the new account to be offered for advertising',
      60_000,
    );
    await page.getByLabel('Connect advertising account to').selectOption(account);
    await page.getByRole('button', { name: 'Connect advertising account' }).click();
    await page.waitForURL((u) => u.pathname === '/ap/oa');
    await page.locator(`input[name="seller"][value="${partner}"]`).check();
    await page.getByRole('button', { name: 'Allow' }).click();
    await page.waitForURL((u) => u.pathname === '/connections' && u.searchParams.get('connected') === account);

    // the page shows both connections in use once the worker has made them
    const row = page.locator('li', { hasText: account });
    let shown = '';
    await eventually(
      async () => {
        await page.reload();
        shown = (await row.count()) ? await row.innerText() : '';
        const connected = shown.includes(`selling ${partner}`) && /advertising (?!not connected)\S+/.test(shown);
        return connected && !shown.includes('disconnected or inactive') ? true : undefined;
      },
      'the connections page to show selling and advertising connected',
      60_000,
    ).catch((err: Error) => {
      throw new Error(`${err.message}; the page said: ${shown}`);
    });
  });

  it('signs an MCP client in with its Client ID Metadata Document; it reads connection_status and queues a change', async () => {
    const tokens = await cimdClient.signIn(mcpUrl());
    expect(tokens.scope?.split(' ')).to.include.members(['mcp:read', 'mcp:write']);
    const client = await connect(cimdClient);

    const status = await eventually(
      async () => {
        const s = await tool(client, 'connection_status');
        const mine = (s.accounts as Row[]).find((a) => a.id === account);
        return mine?.selling?.active && mine.ads?.profiles.length ? mine : undefined;
      },
      'connection_status to show the accounts just connected',
      60_000,
    );
    expect(status.selling.provider_id).to.equal(partner);
    expect(status.ads.connected).to.equal(true);

    // the connected seller's listings arrive through its first sync
    listing = await eventually(
      async () =>
        ((await tool(client, 'list_listings', { account })).listings as Row[]).find(
          (l) => l.status === 'BUYABLE' && l.currency && l.product_type,
        ),
      "the seller's listings",
      60_000,
    );
    const queued = await tool(client, 'queue_mutations', {
      mutations: [priceChange(1999)],
      idempotency_key: 'e2e-cimd-price',
    });
    expect(queued.admitted, JSON.stringify(queued)).to.equal(1);
    const admitted = queued.results[0].receipt;
    expect(admitted.status).to.equal('queued');
    const replay = await tool(client, 'queue_mutations', {
      mutations: [priceChange(1999)],
      idempotency_key: 'e2e-cimd-price',
    });
    expect(replay.replayed).to.equal(true);
    expect(replay.results[0].receipt.id).to.equal(admitted.id);
    const receipt = await tool(client, 'get_mutation', { id: admitted.id });
    expect(receipt.history[0].data.via).to.deep.equal({
      kind: 'oauth_client',
      client_id: cimdClient.clientMetadataUrl,
    });
  });

  it('signs a dynamically registered client in with the password; its write is admitted as its own', async () => {
    // signed out: the authorization request then goes through the sign-in page
    await page.goto(`${own.base}/account`);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL((u) => u.pathname === '/sign-in');

    await dcrClient.signIn(mcpUrl());
    const registered = dcrClient.clientInformation()!;
    expect(registered.client_id).to.not.equal(cimdClient.clientMetadataUrl);
    expect(registered.client_secret, 'a confidential client registered with a secret').to.be.a('string');
    const client = await connect(dcrClient);
    const status = await tool(client, 'connection_status');
    expect((status.accounts as Row[]).map((a) => a.id)).to.include(account);
    const queued = await tool(client, 'queue_mutations', {
      mutations: [priceChange(2099)],
      idempotency_key: 'e2e-dcr-price',
    });
    expect(queued.admitted, JSON.stringify(queued)).to.equal(1);
    const receipt = await tool(client, 'get_mutation', { id: queued.results[0].receipt.id });
    expect(receipt.history[0].data.via).to.deep.equal({ kind: 'oauth_client', client_id: registered.client_id });
  });

  it('refuses the write of a client granted reading only with 403 insufficient_scope, admitting nothing', async () => {
    const tokens = await readClient.signIn(mcpUrl());
    expect(tokens.scope?.split(' ')).to.include('mcp:read').and.not.include('mcp:write');
    const client = await connect(readClient);
    const listed = (await client.listTools()).tools.map((t) => t.name);
    expect(listed).to.include('connection_status').and.not.include('queue_mutations');
    await tool(client, 'connection_status');

    const before = await admittedCount();
    const refusal = await client
      .callTool({ name: 'queue_mutations', arguments: { mutations: [priceChange(2199)], idempotency_key: 'e2e-read' } })
      .then(
        () => undefined,
        (err: unknown) => err,
      );
    expect(refusal, 'the write was refused').to.be.instanceOf(InsufficientScopeError);
    expect((refusal as InsufficientScopeError).requiredScope?.split(' ')).to.include('mcp:write');
    const last = mcpAnswers.at(-1)!;
    expect(last.status).to.equal(403);
    expect(last.challenge).to.match(/^Bearer error="insufficient_scope"/);
    expect(JSON.parse(last.body).error).to.equal('insufficient_scope');
    expect(await admittedCount()).to.equal(before);
  });

  it('leaves no secret in the event log, the logs or a tool answer', async () => {
    const vault = createVault(db, parseKeyring(secretsKeys));
    const sealed = await vault.credentials(`vault:${account}`);
    const [keys] = await db('oauth.keys').select('value');
    const { jwks, cookieKeys } = keys.value as { jwks: Row[]; cookieKeys: string[] };
    const secrets: Record<string, string> = {
      password,
      'selling refresh token': sealed!.selling_refresh_token!,
      'ads refresh token': sealed!.ads_refresh_token!,
      'the vault key': secretsKeys.slice(secretsKeys.indexOf(':') + 1),
      // the marketplace's authorization codes, as its consent pages sent them back through the browser
      ...Object.fromEntries(
        visited
          .map((v) => new URL(v))
          .filter((u) => u.pathname.startsWith('/connections/') && u.pathname.endsWith('/callback'))
          .map((u, i) => [
            `marketplace code ${i}`,
            u.searchParams.get('spapi_oauth_code') ?? u.searchParams.get('code')!,
          ]),
      ),
      ...Object.fromEntries(
        Object.entries({ cimd: cimdClient, dcr: dcrClient, read: readClient }).flatMap(([client, c]) =>
          Object.entries(c.secrets()).map(([name, s]) => [`${client} client's ${name}`, s]),
        ),
      ),
      ...Object.fromEntries(
        jwks.flatMap((k, i) =>
          ['d', 'p', 'q', 'dp', 'dq', 'qi'].filter((f) => k[f]).map((f) => [`signing key ${i}.${f}`, k[f] as string]),
        ),
      ),
      ...Object.fromEntries(cookieKeys.map((k, i) => [`cookie key ${i}`, k])),
    };
    expect(Object.keys(secrets)).to.include.members([
      'selling refresh token',
      'ads refresh token',
      'marketplace code 0',
      'marketplace code 1',
      "dcr client's access token",
      "dcr client's refresh token",
      "dcr client's client secret",
      "dcr client's authorization code 0",
      'signing key 0.d',
      'cookie key 0',
    ]);
    for (const [name, secret] of Object.entries(secrets))
      expect(secret, `${name} is known to the test`).to.be.a('string').with.length.above(7);

    const events = (await db.raw(`select e::text as row from events e`)).rows.map((r: Row) => r.row as string);
    const places: Record<string, string> = {
      'the event log': events.join('\n'),
      "the service's logs": own.service.logs.map((l) => JSON.stringify(l)).join('\n') + own.service.stderr(),
      'the tool answers': answers.map((a) => JSON.stringify(a)).join('\n'),
    };
    expect(events.length, 'the log holds the run').to.be.greaterThan(10);
    expect(answers.length).to.be.greaterThan(5);
    const found = Object.entries(places).flatMap(([place, text]) =>
      Object.entries(secrets)
        .filter(([, secret]) => text.includes(secret))
        .map(([name]) => `${name} in ${place}`),
    );
    expect(found).to.deep.equal([]);
  });
});
