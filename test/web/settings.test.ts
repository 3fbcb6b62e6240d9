import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { vaultReference } from '../../src/commands/account/marketplace-connections.js';
import { setAdmissions } from '../../src/commands/admission/switch.js';
import { automationsPaused } from '../../src/commands/automation/pause.js';
import { aggregateStream } from '../../src/commands/shared/handler.js';
import { alertDecider } from '../../src/domain/alert/decide.js';
import { currentWebhook } from '../../src/commands/webhook/settings.js';
import { hashToken } from '../../src/domain/user/token.js';
import { webhookSecret } from '../../src/domain/webhook/secret.js';
import { credentialsByEmail } from '../../src/identity/credentials.js';
import { createLwaClient } from '../../src/marketplace/clients/index.js';
import { DEFAULT_LWA_CLIENT } from '../../src/marketplace/simulator/index.js';
import { runOperatorsCommand } from '../../src/operators-cli.js';
import { loadAccounts } from '../../src/projections/accounts/queries.js';
import { admissionProjection } from '../../src/projections/admission/projection.js';
import { admissionsPaused } from '../../src/projections/admission/queries.js';
import { alertsProjection } from '../../src/projections/alerts/projection.js';
import { authProjection } from '../../src/projections/auth/projection.js';
import { findActiveToken } from '../../src/projections/auth/queries.js';
import { UsageError } from '../../src/projections/rebuild-command.js';
import { webhookDeliveriesProjection } from '../../src/projections/webhook/deliveries.js';
import { webhooksProjection } from '../../src/projections/webhook/projection.js';
import { listWebhooks } from '../../src/projections/webhook/queries.js';
import { syncConnections } from '../../src/workers/connections-sync.js';
import { startWebhookDelivery, webhookNotifier, type RunningWebhooks } from '../../src/workers/webhook/queue.js';
import { TEST_REDIS_PREFIX } from '../support/env.js';
import { rejectionOf } from '../support/marketplace.js';
import { call, serveMcp } from '../support/mcp.js';
import { authorizedClient, startOAuthService, type OAuthService } from '../support/oauth.js';
import { startHarness, type Harness } from '../support/observed.js';
import { eventually } from '../support/processes.js';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { Browser, serveSite, type Site } from './browser.js';

// The console's Settings over HTTP, as a browser without scripts uses it: each section's writes
// go through the command layer (the log and the read models show them), a secret or token is
// shown once, a header value never; every POST without its CSRF token changes nothing; each bad
// value is refused beside its field with 400; destructive actions want their box ticked.

const SIGNING_KEY = 'settings-test-key';
const PASSWORD = 'ample meadow lantern';
const HOSTILE = '<b>got</b> it';

describe('the console Settings page over HTTP', function () {
  this.timeout(180_000);
  let h: Harness;
  let redis: Redis;
  let workers: RunningWebhooks;
  let receiver: Receiver;
  /** private networks allowed (the local receiver), as tests and local runs have it */
  let site: Site;
  /** production's setting: https only, no private addresses */
  let strict: Site;
  let seller: Browser;
  let userId: string;
  let account: string;

  const settingsOf = (allowPrivateNetworks: boolean) => ({
    signingKey: SIGNING_KEY,
    allowPrivateNetworks,
    notifier: webhookNotifier(workers.queue),
    firstAttemptWaitMs: 20_000,
  });
  const signUp = async (base: string) => {
    const browser = new Browser(base);
    const email = `settings.${randomUUID()}@example.com`;
    expect((await browser.submit('/sign-up', '/sign-up', { email, password: PASSWORD })).status).to.equal(303);
    return { browser, email, userId: (await credentialsByEmail(h.db, email))!.user_id };
  };
  const webhooks = () => listWebhooks(h.db, account);
  /** a form's problem beside a field, as the page renders it (the field described by it) */
  const fieldProblem = (text: string, id: string) => {
    const m = new RegExp(`<p id="${id}-problem" class="field-error">([^<]*)</p>`).exec(text);
    expect(m, `a problem beside ${id}`).to.not.equal(null);
    expect(text, `${id} is described by its problem`).to.match(
      new RegExp(`id="${id}"[^>]*aria-describedby="[^"]*${id}-problem`),
    );
    return m![1]!;
  };
  const add = (fields: Record<string, string>, browser = seller) =>
    browser.submit('/console/settings', '/console/settings/webhooks/add', {
      account,
      type: 'json',
      headers: '',
      ...fields,
    });

  before(async () => {
    h = await startHarness(
      [webhooksProjection, webhookDeliveriesProjection, authProjection, admissionProjection, alertsProjection],
      [],
      Date.now(),
    );
    redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', { maxRetriesPerRequest: null });
    workers = startWebhookDelivery({
      connection: redis,
      prefix: `${TEST_REDIS_PREFIX}:settings`,
      db: h.db,
      store: h.store,
      signingKey: SIGNING_KEY,
      allowPrivateNetworks: true,
      sweepEveryMs: 60_000,
      logger: pino({ level: 'silent' }),
    });
    receiver = await startReceiver((_n, response) => response.writeHead(201).end(HOSTILE));
    site = await serveSite(h.db, { settings: settingsOf(true) });
    strict = await serveSite(h.db, { settings: settingsOf(false) });
    ({ browser: seller, userId } = await signUp(site.base));
    account = await h.connect('seller', userId);
  });
  after(async () => {
    await site?.close();
    await strict?.close();
    await workers?.close();
    redis?.disconnect();
    await receiver?.close();
    await h?.close();
  });

  it('keeps Settings behind sign-in, and links it from the console', async () => {
    const anonymous = new Browser(site.base);
    const { status, location } = await anonymous.get('/console/settings');
    expect(status).to.equal(303);
    expect(location).to.equal('/sign-in?return_to=%2Fconsole%2Fsettings');
    const settings = await seller.get('/console/settings');
    expect(settings.status).to.equal(200);
    for (const link of ['/console', '/console/activity', '/console/settings'])
      expect(settings.text).to.contain(`<a href="${link}">`);
  });

  it('adds a webhook: its secret shown once, its header values never', async () => {
    const added = await add({
      name: 'alerts',
      url: receiver.url,
      type: 'chat',
      headers: 'Authorization: Bearer hush-hush-value\nX-Team: ops',
    });
    expect(added.status).to.equal(200);
    const secret = /<code>(whsec_[^<]+)<\/code>/.exec(added.text)?.[1];
    expect(secret, added.text).to.be.a('string');
    const stored = (await currentWebhook(h, account, 'alerts'))!;
    expect(secret).to.equal(webhookSecret(SIGNING_KEY, stored.webhook_id, stored.secret_nonce));
    expect(added.text).to.contain('shown this once');
    expect(stored).to.include({ url: receiver.url, kind: 'chat', enabled: true });
    expect(stored.headers).to.deep.equal({ Authorization: 'Bearer hush-hush-value', 'X-Team': 'ops' });
    // the next page waits for the read model: the webhook is listed at once, its header names without values
    const page = await seller.get('/console/settings');
    expect(page.status).to.equal(200);
    expect(page.text).to.contain('<h4>alerts</h4>');
    expect(page.text).to.contain('headers: Authorization, X-Team (values hidden)');
    expect(page.text).to.not.contain('hush-hush-value');
    expect(page.text).to.not.contain(secret!);
    // the edit form shows the names, never a value
    const edit = await seller.get(`/console/settings/webhooks/edit?account=${account}&webhook=alerts`);
    expect(edit.status).to.equal(200);
    expect(edit.text).to.contain('(Authorization, X-Team)');
    expect(edit.text).to.not.contain('hush-hush-value');
  });

  it('refuses each bad value beside its field with 400, and changes nothing', async () => {
    const strictSeller = new Browser(strict.base);
    // the same seller's session: both sites share the database
    for (const [name, value] of seller.cookies) strictSeller.cookies.set(name, value);
    const before = (await webhooks()).length;
    const cases: Array<[Record<string, string>, string, RegExp, Browser?]> = [
      [{ name: '', url: 'https://hooks.example.com/x' }, 'webhook-add-name', /Enter a name/],
      [{ name: '2fast', url: 'https://hooks.example.com/x' }, 'webhook-add-name', /not a valid JavaScript identifier/],
      [{ name: 'alerts', url: 'https://hooks.example.com/x' }, 'webhook-add-name', /already has a webhook named/],
      [{ name: 'plain', url: 'http://hooks.example.com/x' }, 'webhook-add-url', /must use https/, strictSeller],
      [{ name: 'inside', url: 'https://10.1.2.3/hook' }, 'webhook-add-url', /private, loopback/, strictSeller],
      [{ name: 'nourl', url: '' }, 'webhook-add-url', /Enter the receiver/],
      [{ name: 'kinded', url: 'https://hooks.example.com/x', type: 'xml' }, 'webhook-add-type', /Choose JSON or Chat/],
      [
        { name: 'headed', url: 'https://hooks.example.com/x', headers: 'no colon here' },
        'webhook-add-headers',
        /Name: value/,
      ],
      [
        { name: 'hosted', url: 'https://hooks.example.com/x', headers: 'Host: x' },
        'webhook-add-headers',
        /set by the service/,
      ],
      [
        { name: 'elsewhere', url: 'https://hooks.example.com/x', account: randomUUID() },
        'webhook-add-account',
        /one of your accounts/,
      ],
    ];
    for (const [fields, id, why, browser] of cases) {
      const answer = await add(fields, browser);
      expect(answer.status, `${JSON.stringify(fields)}: ${answer.text}`).to.equal(400);
      expect(fieldProblem(answer.text, id)).to.match(why);
      expect(answer.text).to.contain('Nothing was changed');
    }
    expect((await webhooks()).length).to.equal(before);
    // the strict site, with a valid https URL, adds
    expect((await add({ name: 'outside', url: 'https://hooks.example.com/x' }, strictSeller)).status).to.equal(200);
  });

  it('changes nothing on a POST without its CSRF token (403)', async () => {
    await h.projector.whenCaughtUp();
    const before = await webhooks();
    const refused = await seller.post('/console/settings/webhooks/add', {
      _csrf: '',
      account,
      name: 'forged',
      url: 'https://hooks.example.com/x',
      type: 'json',
    });
    expect(refused.status).to.equal(403);
    const token = await seller.post('/console/settings/tokens/create', {
      _csrf: 'wrong',
      label: 'forged',
      scope: 'write',
    });
    expect(token.status).to.equal(403);
    const removal = await seller.post('/console/settings/webhooks/remove', {
      _csrf: '',
      account,
      webhook: 'alerts',
      confirm: 'yes',
    });
    expect(removal.status).to.equal(403);
    expect(await webhooks()).to.deep.equal(before);
    expect((await seller.get('/console/settings')).text, 'no token was made').to.not.contain('forged');
  });

  it('edits, disables and enables a webhook; rotating and removing want the box ticked', async () => {
    const post = (path: string, fields: Record<string, string>) =>
      seller.submit('/console/settings', `/console/settings/webhooks/${path}`, { account, ...fields });
    await add({ name: 'spare', url: 'https://hooks.example.com/spare', headers: 'X-Key: keep-me' });
    // headers left empty are kept
    const edited = await post('edit', {
      webhook: 'spare',
      name: 'backup',
      url: 'https://hooks.example.com/b',
      type: 'json',
    });
    expect(edited.status).to.equal(303);
    expect(edited.location).to.equal('/console/settings?done=saved#webhooks');
    expect((await seller.get(edited.location!)).text).to.contain('<p role="status">The webhook is saved.</p>');
    expect((await seller.get('/console/settings?done=Call+0800')).text).to.not.contain('Call 0800');
    let now = (await currentWebhook(h, account, 'backup'))!;
    expect(now).to.include({ url: 'https://hooks.example.com/b' });
    expect(now.headers).to.deep.equal({ 'X-Key': 'keep-me' });
    const badEdit = await post('edit', { webhook: 'backup', name: 'backup', url: 'ftp://x', type: 'json' });
    expect(badEdit.status).to.equal(400);
    expect(fieldProblem(badEdit.text, 'webhook-edit-url')).to.match(/must use https/);

    expect((await post('enabled', { webhook: 'backup', enabled: 'no' })).status).to.equal(303);
    expect((await currentWebhook(h, account, 'backup'))!.enabled).to.equal(false);
    expect((await seller.get('/console/settings')).text).to.contain('Enable backup');
    expect((await post('enabled', { webhook: 'backup', enabled: 'yes' })).status).to.equal(303);
    expect((await currentWebhook(h, account, 'backup'))!.enabled).to.equal(true);

    const nonce = now.secret_nonce;
    const unticked = await post('rotate', { webhook: 'backup' });
    expect(unticked.status).to.equal(400);
    expect(fieldProblem(unticked.text, 'rotate-confirm')).to.match(/Tick the box/);
    expect((await currentWebhook(h, account, 'backup'))!.secret_nonce).to.equal(nonce);
    const rotated = await post('rotate', { webhook: 'backup', confirm: 'yes' });
    expect(rotated.status).to.equal(200);
    expect(rotated.text).to.contain('shown this once');
    now = (await currentWebhook(h, account, 'backup'))!;
    expect(now.secret_nonce).to.not.equal(nonce);

    const keep = await post('remove', { webhook: 'backup' });
    expect(keep.status).to.equal(400);
    expect(fieldProblem(keep.text, 'remove-confirm')).to.match(/Tick the box/);
    expect(await currentWebhook(h, account, 'backup')).to.not.equal(null);
    expect((await post('remove', { webhook: 'backup', confirm: 'yes' })).status).to.equal(303);
    expect(await currentWebhook(h, account, 'backup')).to.equal(null);
    expect((await seller.get('/console/settings')).text).to.not.contain('<h4>backup</h4>');
    // another seller cannot touch this seller's webhooks
    const other = (await signUp(site.base)).browser;
    const foreign = await other.submit('/console/settings', '/console/settings/webhooks/remove', {
      account,
      webhook: 'alerts',
      confirm: 'yes',
    });
    expect(foreign.status).to.equal(404);
    expect(await currentWebhook(h, account, 'alerts')).to.not.equal(null);
  });

  it("sends a test through the delivery worker and shows the receiver's answer, linking to it in Activity", async () => {
    const sent = await seller.submit('/console/settings', '/console/settings/webhooks/test', {
      account,
      webhook: 'alerts',
    });
    expect(sent.status, sent.text).to.equal(200);
    expect(sent.text).to.contain('HTTP 201');
    expect(sent.text).to.match(/<dd>\d+ ms<\/dd>/);
    expect(sent.text).to.contain('&lt;b&gt;got&lt;/b&gt; it');
    expect(sent.text).to.not.contain('<b>got</b>');
    const received = receiver.received.at(-1)!;
    expect(JSON.parse(received.body)).to.have.property('text');
    expect(received.headers.authorization).to.equal('Bearer hush-hush-value');
    const link = /<a href="([^"]+)">This delivery in Activity<\/a>/.exec(sent.text)![1]!.replaceAll('&amp;', '&');
    const deliveryId = received.headers['x-service-delivery-id'] as string;
    expect(link).to.equal(`/console/activity?kind=delivery#item-${deliveryId}`);
    await eventually(async () => {
      const activity = await seller.get(link);
      return activity.text.includes(`id="item-${deliveryId}"`) ? true : undefined;
    }, 'the delivery in Activity');
  });

  it('creates a token shown once with the scopes asked for, lists it without it, revokes it with the box ticked', async () => {
    const create = (fields: Record<string, string>) =>
      seller.submit('/console/settings', '/console/settings/tokens/create', fields);
    const unknown = await create({ label: 'laptop', scope: 'admin' });
    expect(unknown.status).to.equal(400);
    expect(fieldProblem(unknown.text, 'token-create-scope')).to.match(/Choose read/);
    const nameless = await create({ label: '  ', scope: 'read' });
    expect(nameless.status).to.equal(400);
    expect(fieldProblem(nameless.text, 'token-create-label')).to.match(/Enter a label/);
    const made = await create({ label: 'laptop', scope: 'read' });
    expect(made.status).to.equal(200);
    const token = /<code>(mas_[^<]+)<\/code>/.exec(made.text)![1]!;
    await h.projector.whenCaughtUp();
    const active = (await findActiveToken(h.db, hashToken(token)))!;
    expect(active.user_id).to.equal(userId);
    expect(active.scopes).to.deep.equal(['mcp:read']);
    const page = await seller.get('/console/settings');
    expect(page.text).to.contain('<strong>laptop</strong> · mcp:read');
    expect(page.text).to.not.contain(token);
    const revoke = (fields: Record<string, string>) =>
      seller.submit('/console/settings', '/console/settings/tokens/revoke', { token: active.token_id, ...fields });
    const unticked = await revoke({});
    expect(unticked.status).to.equal(400);
    expect(await findActiveToken(h.db, hashToken(token))).to.not.equal(null);
    expect((await revoke({ confirm: 'yes' })).status).to.equal(303);
    await eventually(
      async () => ((await findActiveToken(h.db, hashToken(token))) === null ? true : undefined),
      'revoked',
    );
    expect((await seller.get('/console/settings')).text).to.not.contain('<strong>laptop</strong>');
  });

  it('lists the OAuth clients the seller allowed, and revoking one ends its tokens', async () => {
    let oauth: OAuthService | undefined;
    try {
      oauth = await startOAuthService({ db: h.db, store: h.store, demoUserId: randomUUID() });
      const tokens = await authorizedClient(oauth, userId, 'Settings agent');
      expect(await oauth.oauth.checkAccessToken(tokens.access_token)).to.not.equal(null);

      const page = await seller.get('/console/settings');
      expect(page.text).to.contain('<strong>Settings agent</strong>');
      const grant = /name="grant" value="([^"]+)"/.exec(page.text)![1]!;
      const revoke = (fields: Record<string, string>) =>
        seller.submit('/console/settings', '/console/settings/clients/revoke', { grant, ...fields });
      expect((await revoke({})).status).to.equal(400);
      expect(await oauth.oauth.checkAccessToken(tokens.access_token)).to.not.equal(null);
      expect((await revoke({ confirm: 'yes' })).status).to.equal(303);
      expect(await oauth.oauth.checkAccessToken(tokens.access_token)).to.equal(null);
      expect((await seller.get('/console/settings')).text).to.contain('No OAuth client is authorized.');
    } finally {
      await oauth?.close();
    }
  });

  it('shows each marketplace connection with its status; disconnecting wants the box ticked', async () => {
    // an account connected on the connections pages (its credentials a vault reference)
    const made = randomUUID();
    const endpoints = h.simulator.endpoints();
    await syncConnections(
      {
        ctx: { store: h.store, metadata: { actor: { kind: 'worker', id: 'test' } } },
        lwa: createLwaClient({ tokenUrl: endpoints.lwaTokenUrl, ...DEFAULT_LWA_CLIENT }),
        endpoints,
        logger: pino({ level: 'silent' }),
      },
      {
        user_id: userId,
        account_id: made,
        credentials: vaultReference(made),
        selling_refresh_token: 'Atzr|demo-seller',
      },
    );
    await h.projector.whenCaughtUp();
    const page = await seller.get('/console/settings');
    expect(page.text).to.contain('Connected by the operator');
    expect(page.text).to.match(/Selling: connected \(/);
    expect(page.text).to.contain(`/connections/ads/start?account=${made}`);
    const disconnect = (fields: Record<string, string>) =>
      seller.submit('/console/settings', '/console/settings/connections/disconnect', { account: made, ...fields });
    const unticked = await disconnect({});
    expect(unticked.status).to.equal(400);
    expect(fieldProblem(unticked.text, `account-${made}-disconnect-confirm`)).to.match(/Tick the box/);
    expect((await disconnect({ confirm: 'yes' })).status).to.equal(303);
    await h.projector.whenCaughtUp();
    const mine = (await loadAccounts(h.db, userId)).find((a) => a.id === made)!;
    expect(mine.selling!.active).to.equal(false);
    expect(mine.selling!.inactive!.cause).to.equal('disconnected');
    // the operator's account offers no disconnect
    const operators = await disconnect({ account, confirm: 'yes' });
    expect(operators.status).to.equal(404);
  });

  it("pauses and resumes every automation of the seller's account, and shows whether the operator paused writes", async () => {
    const toggle = (paused: string, of = account, browser = seller) =>
      browser.submit('/console/settings', '/console/settings/pauses/automations', { account: of, paused });
    const page = await seller.get('/console/settings');
    expect(page.text).to.match(/New marketplace write requests:\s+accepted\./);
    expect((await toggle('yes')).status).to.equal(303);
    expect(await automationsPaused(h, account)).to.equal(true);
    expect((await seller.get('/console/settings')).text).to.contain('every automation is paused');
    // another seller's account is not theirs to pause
    const other = (await signUp(site.base)).browser;
    expect((await toggle('no', account, other)).status).to.equal(404);
    expect(await automationsPaused(h, account)).to.equal(true);
    const forged = await seller.post('/console/settings/pauses/automations', { _csrf: '', account, paused: 'no' });
    expect(forged.status).to.equal(403);
    expect(await automationsPaused(h, account)).to.equal(true);
    expect((await toggle('no')).status).to.equal(303);
    expect(await automationsPaused(h, account)).to.equal(false);
  });

  it("sets where the account's alerts go: off, the seller's email or one of its webhooks; anything else beside the field", async () => {
    const destination = async () => (await aggregateStream(h.store, alertDecider, account)).state.destination;
    const choose = (value: string) =>
      seller.submit('/console/settings', '/console/settings/alerts/destination', { account, destination: value });
    const field = `account-${account}-alerts-destination`;
    const page = await seller.get('/console/settings');
    expect(page.text).to.contain(`<option value="webhook:alerts"`);
    for (const [value, why] of [
      ['sms', /Choose off/],
      ['webhook:nosuch', /no webhook named &#39;nosuch&#39;/],
    ] as const) {
      const refused = await choose(value);
      expect(refused.status).to.equal(400);
      expect(fieldProblem(refused.text, field)).to.match(why);
    }
    expect(await destination()).to.equal(null);
    expect((await choose('email')).status).to.equal(303);
    expect(await destination()).to.deep.equal({ kind: 'email', user_id: userId });
    expect((await choose('webhook:alerts')).status).to.equal(303);
    expect(await destination()).to.deep.equal({ kind: 'webhook', webhook: 'alerts' });
    expect((await seller.get('/console/settings')).text).to.match(/<option value="webhook:alerts"\s+selected/);
    expect((await choose('off')).status).to.equal(303);
    expect(await destination()).to.equal(null);
  });

  it('lets a user the CLI made an operator pause and resume new marketplace write requests; no one else', async () => {
    const cliLines: string[] = [];
    const operators = (action: string, email?: string) =>
      runOperatorsCommand(action, email === undefined ? [] : ['--email', email], {
        db: h.db,
        ctx: { store: h.store, metadata: { actor: { kind: 'user', id: 'cli' } } },
        by: 'test-operator',
        project: (position) => h.projector.whenCaughtUp(position),
        print: (line) => cliLines.push(line),
      });
    const ADMISSIONS = '/console/settings/pauses/admissions';
    const form = `action="${ADMISSIONS}"`;
    const pause = (browser: Browser, fields: Record<string, string>) =>
      browser.submit('/console/settings', ADMISSIONS, { paused: 'yes', ...fields });
    const resume = (browser: Browser) => browser.submit('/console/settings', ADMISSIONS, { paused: 'no' });
    const paused = () => admissionsPaused(h.db);
    const accepted = { disabled: false, reason: null };
    // a write tool of the seller's, as an MCP client calls it
    const mcp = await serveMcp(h.db, () => new Date());
    const profile = (await loadAccounts(h.db, userId))[0]!.ads!.profiles[0]!;
    const createCampaign = async () =>
      call(await mcp.clientFor(userId), 'queue_mutations', {
        mutations: [
          {
            target: { type: 'AdvertisingProfile', id: profile.id },
            action: 'create_campaign',
            payload: {
              name: `operator test ${randomUUID()}`,
              targetingType: 'MANUAL',
              state: 'ENABLED',
              budget: { budget: 7, budgetType: 'DAILY' },
            },
          },
        ],
      });
    try {
      expect((await seller.get('/console/settings')).text, 'a seller only sees the state').to.not.contain(form);
      const refusedEmail = await rejectionOf(operators('grant', 'nobody.here@example.com'));
      expect(refusedEmail).to.be.instanceOf(UsageError);
      expect((refusedEmail as Error).message).to.contain('no user signs in with nobody.here@example.com');
      const { browser: operator, email, userId: operatorId } = await signUp(site.base);
      await operators('grant', email.toUpperCase());
      await operators('grant', email);
      await operators('list');
      expect(cliLines).to.deep.equal([
        `${email} (user ${operatorId}) is an operator now`,
        `${email} (user ${operatorId}) is an operator already`,
        `${operatorId}  ${email}`,
      ]);
      const page = await operator.get('/console/settings');
      expect(page.text).to.contain(form);
      expect(page.text).to.match(/New marketplace write requests:\s+accepted\./);

      // the box unticked: 400, the problem beside it
      const unticked = await pause(operator, { reason: 'provider incident' });
      expect(unticked.status).to.equal(400);
      expect(fieldProblem(unticked.text, 'admissions-confirm')).to.match(/Tick the box/);
      // without the CSRF token: 403
      const forged = await operator.post(ADMISSIONS, { _csrf: '', paused: 'yes', confirm: 'yes' });
      expect(forged.status).to.equal(403);
      // a seller who is no operator: 403
      const notOperator = await pause(seller, { reason: 'mine', confirm: 'yes' });
      expect(notOperator.status).to.equal(403);
      expect(notOperator.text).to.contain('Only an operator');
      expect(await paused()).to.deep.equal(accepted);
      expect((await createCampaign()).structuredContent.results[0].receipt.status).to.equal('queued');

      const done = await pause(operator, { reason: 'provider incident', confirm: 'yes' });
      expect(done.status).to.equal(303);
      // read-your-writes: the page after the redirect shows the pause at once
      const after = await operator.get(done.location!);
      expect(after.text).to.contain('New marketplace write requests are paused');
      expect(after.text).to.match(/paused by the operator \(provider incident\)/);
      expect(after.text).to.contain('Resume new marketplace write requests');
      expect(await paused()).to.deep.equal({ disabled: true, reason: 'provider incident' });
      const recorded = (await h.allEvents()).filter((e) => e.type === 'AdmissionsDisabled').at(-1)!;
      expect(recorded.data).to.include({ by: `user:${operatorId}` });
      const refused = await createCampaign();
      expect(refused.structuredContent.code).to.equal('admissions_disabled');
      expect(refused.structuredContent.detail).to.contain('provider incident');
      expect((await seller.get('/console/settings')).text, 'a seller still only sees it').to.not.contain(form);
      expect((await resume(seller)).status, 'a seller cannot resume').to.equal(403);
      expect((await paused()).disabled).to.equal(true);

      const resumed = await resume(operator);
      expect(resumed.status).to.equal(303);
      expect((await operator.get(resumed.location!)).text).to.match(/New marketplace write requests:\s+accepted\./);
      expect(await paused()).to.deep.equal(accepted);
      expect((await createCampaign()).structuredContent.results[0].receipt.status).to.equal('queued');

      // revoked: the form is gone and the POST refused
      await operators('revoke', email);
      expect(cliLines.at(-1)).to.equal(`${email} (user ${operatorId}) is no operator now`);
      await operators('revoke', email);
      expect(cliLines.at(-1)).to.equal(`${email} (user ${operatorId}) was no operator`);
      expect((await operator.get('/console/settings')).text).to.not.contain(form);
      expect((await pause(operator, { confirm: 'yes' })).status).to.equal(403);
      expect(await paused()).to.deep.equal(accepted);
    } finally {
      // the switch is the whole service's: never leave it off for the tests after this one
      await setAdmissions(
        { store: h.store, metadata: { actor: { kind: 'user', id: 'test' } } },
        { type: 'EnableAdmissions', by: 'test', at: new Date().toISOString() },
      );
      await mcp.close();
    }
  });
});
