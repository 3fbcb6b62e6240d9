import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { TOTP, Secret } from 'otpauth';
import { IDENTITY_SCHEMA } from '../../src/identity/schema.js';
import { executeAccountCommand } from '../../src/commands/account/execute.js';
import { vaultReference } from '../../src/commands/account/marketplace-connections.js';
import { newId } from '../../src/domain/shared/ids.js';
import { READ_MODEL_SCHEMA } from '../../src/projections/projection.js';
import { onAccountDeletion } from '../../src/identity/deletion.js';
import { openTotp, RESET_LINK_LIFETIME_MS } from '../../src/identity/credentials.js';
import { findActiveToken } from '../../src/projections/auth/queries.js';
import { hashToken } from '../../src/domain/user/token.js';
import { projections } from '../../src/projections/registry.js';
import { RATE_LIMITS } from '../../src/web/rate-limit.js';
import { safeReturnPath } from '../../src/web/session.js';
import { cli, eventually } from '../support/processes.js';
import { startProjecting } from '../support/projections.js';
import { parseKeyring } from '../../src/secrets/vault.js';
import { Browser, serveSite, TEST_SECRETS_KEYS, type Site } from './browser.js';

// Seller accounts end to end over HTTP: the real server, PostgreSQL, Redis and the projector.

const PASSWORD = 'correct horse battery staple';

describe('seller accounts', function () {
  // each sign-in pays for a key derivation: on a busy 2-core machine, seconds
  this.timeout(180_000);
  let world: Awaited<ReturnType<typeof startProjecting>>;
  let site: Site;
  let emails = 0;
  const newEmail = () => `seller${++emails}.${Date.now()}@example.com`;

  before(async () => {
    world = await startProjecting(projections);
  });
  after(async () => {
    await world.close();
  });
  beforeEach(async () => {
    site = await serveSite(world.db);
  });
  afterEach(async () => {
    await site.close();
  });

  async function signedUp(email = newEmail()): Promise<Browser> {
    const b = new Browser(site.base);
    const r = await b.submit('/sign-up', '/sign-up', { email, password: PASSWORD });
    expect(r.status, r.text).to.equal(303);
    expect(r.location).to.equal('/account');
    return b;
  }
  /** an API token for the user as an operator makes one, with the CLI, once the read model shows it */
  async function tokenFor(userId: string): Promise<{ token: string; token_id: string }> {
    const out = await cli(['tokens', 'create', '--user', userId, '--label', 'agent'], {
      DATABASE_URL: process.env.DATABASE_URL!,
      REDIS_PREFIX: process.env.REDIS_PREFIX!,
    });
    const token = /token \(shown once\): (\S+)/.exec(out)![1]!;
    const token_id = /token id: (\S+)/.exec(out)![1]!;
    await eventually(
      async () => (await findActiveToken(world.db, hashToken(token))) ?? undefined,
      'the token projected',
    );
    return { token, token_id };
  }
  const expectRejection = async (p: Promise<unknown>, message: RegExp) => {
    const err = await p.then(
      () => null,
      (e: Error) => e,
    );
    expect(err?.message).to.match(message);
  };
  /** starts the second factor's enrollment as a seller does: the key from the page, into an app */
  async function enrollTotp(b: Browser): Promise<TOTP> {
    await b.get('/account');
    expect((await b.post('/account/totp', {})).location).to.equal('/account/totp');
    const enroll = await b.get('/account/totp');
    const key = /Key: <code>([A-Z2-7 ]+)<\/code>/.exec(enroll.text)![1]!.replace(/ /g, '');
    return new TOTP({ secret: Secret.fromBase32(key), digits: 6, period: 30 });
  }
  const userIdOf = async (email: string): Promise<string> =>
    (await world.db.withSchema(IDENTITY_SCHEMA).table('credentials').where({ email }).first()).user_id;

  it('signs up, out and in again; the event log holds no email', async () => {
    const email = newEmail();
    const b = await signedUp(email);
    expect((await b.get('/account')).text).to.include(email);

    await b.get('/account');
    expect((await b.post('/sign-out', {})).location).to.equal('/sign-in');
    const away = await b.get('/account');
    expect(away.status).to.equal(303);
    expect(away.location).to.equal('/sign-in?return_to=%2Faccount');

    const back = await b.submit('/sign-in?return_to=%2Faccount%3Ftab%3D1', '/sign-in', {
      email: email.toUpperCase(),
      password: PASSWORD,
      return_to: '/account?tab=1',
    });
    expect(back.location).to.equal('/account?tab=1');
    expect((await b.get('/account')).status).to.equal(200);

    const userId = await userIdOf(email);
    const logged = JSON.stringify((await world.store.readStream(`user-${userId}`)).map((e) => [e.type, e.data]));
    expect(logged).to.include('UserRegistered');
    expect(logged).to.not.include(email);
  });

  it('answers a wrong password and an unknown email alike, in comparable time', async () => {
    const email = newEmail();
    await signedUp(email);
    const b = new Browser(site.base);
    const timed = async (fields: Record<string, string>) => {
      const started = performance.now();
      const r = await b.submit('/sign-in', '/sign-in', fields);
      return { r, ms: performance.now() - started };
    };
    const wrong = await timed({ email, password: 'not the password at all' });
    const unknown = await timed({ email: `nobody.${email}`, password: 'not the password at all' });
    expect(wrong.r.status).to.equal(401);
    expect(unknown.r.status).to.equal(401);
    const page = (text: string) => text.replace(`nobody.${email}`, email).replace(/name="_csrf" value="[^"]+"/, '');
    expect(page(unknown.r.text)).to.equal(page(wrong.r.text));
    // both paid for a key derivation
    expect(unknown.ms).to.be.greaterThan(wrong.ms / 3);
    expect(b.cookies.has('session')).to.equal(false);
  });

  it("refuses a form without its CSRF token, with a forged one, and with another visitor's", async () => {
    const b = new Browser(site.base);
    await b.get('/sign-up');
    const fields = { email: newEmail(), password: PASSWORD };
    expect((await b.post('/sign-up', { ...fields, _csrf: '' })).status).to.equal(403);
    expect((await b.post('/sign-up', { ...fields, _csrf: 'forged-token-value' })).status).to.equal(403);
    const other = new Browser(site.base);
    await other.get('/sign-up');
    expect((await b.post('/sign-up', { ...fields, _csrf: other.csrf })).status).to.equal(403);
    expect(await world.db.withSchema(IDENTITY_SCHEMA).table('credentials').where({ email: fields.email }).first()).to.be
      .undefined;
    // a signed-in visitor's sign-out too
    const signedIn = await signedUp();
    expect((await signedIn.post('/sign-out', { _csrf: 'x' })).status).to.equal(403);
    expect((await signedIn.get('/account')).status).to.equal(200);
  });

  it('sets the session cookie HttpOnly, SameSite=Lax; Secure and __Host- under an https base URL', async () => {
    const plain = new Browser(site.base);
    await plain.get('/sign-up');
    const r = await plain.post('/sign-up', { email: newEmail(), password: PASSWORD });
    const cookie = r.headers.getSetCookie().find((c) => c.startsWith('session='))!;
    expect(cookie)
      .to.match(/; Path=\//)
      .and.match(/; HttpOnly/)
      .and.match(/; SameSite=Lax/);
    expect(cookie).to.not.match(/Secure/);

    const secure = await serveSite(world.db, { publicBaseUrl: 'https://sellers.example.com' });
    try {
      const b = new Browser(secure.base);
      await b.get('/sign-up');
      const answer = await b.post('/sign-up', { email: newEmail(), password: PASSWORD });
      const set = answer.headers.getSetCookie();
      const session = set.find((c) => c.startsWith('__Host-session='))!;
      expect(session)
        .to.match(/; Path=\//)
        .and.match(/; HttpOnly/)
        .and.match(/; Secure/)
        .and.match(/; SameSite=Lax/);
      expect(session).to.not.match(/Domain=/i);
      expect(b.cookies.has('__Host-csrf')).to.equal(true);
    } finally {
      await secure.close();
    }
  });

  it('redirects only to a path on this origin after sign-in', () => {
    expect(safeReturnPath('/connections?x=1')).to.equal('/connections?x=1');
    for (const evil of ['//evil.example', '/\\evil.example', 'https://evil.example/', 'javascript:alert(1)', '/a b'])
      expect(safeReturnPath(evil), evil).to.equal('/account');
  });

  it('resets a password by a link that works once and expires; no secret reaches the log', async () => {
    let clock = Date.now();
    const timed = await serveSite(world.db, { now: () => new Date(clock) });
    try {
      const email = newEmail();
      const b = new Browser(timed.base);
      await b.submit('/sign-up', '/sign-up', { email, password: PASSWORD });
      const asked = await new Browser(timed.base).submit('/reset', '/reset', { email });
      expect(asked.text).to.include('If an account has this address');
      const unknown = await new Browser(timed.base).submit('/reset', '/reset', { email: `x${email}` });
      expect(unknown.text.replace(/name="_csrf" value="[^"]+"/, '')).to.equal(
        asked.text.replace(/name="_csrf" value="[^"]+"/, ''),
      );
      const [link] = timed.mailLinks(email);
      const token = new URL(link!).pathname.split('/').pop()!;

      const r = new Browser(timed.base);
      const form = await r.get(new URL(link!).pathname);
      expect(form.status).to.equal(200);
      expect(form.headers.get('referrer-policy')).to.equal('no-referrer');
      const NEW = 'a brand new long passphrase';
      const done = await r.post('/reset/password', { token, password: NEW });
      expect(done.location).to.equal('/sign-in?reset=done');
      // the old session ended with the old password
      expect((await b.get('/account')).status).to.equal(303);
      expect((await r.submit('/sign-in', '/sign-in', { email, password: PASSWORD })).status).to.equal(401);
      expect((await r.submit('/sign-in', '/sign-in', { email, password: NEW })).status).to.equal(303);

      // once only
      expect((await r.get(new URL(link!).pathname)).status).to.equal(410);
      expect((await r.post('/reset/password', { token, password: 'yet another passphrase' })).status).to.equal(410);

      // expiry
      await new Browser(timed.base).submit('/reset', '/reset', { email });
      const second = timed.mailLinks(email).at(-1)!;
      clock += RESET_LINK_LIFETIME_MS + 1000;
      expect((await r.get(new URL(second).pathname)).status).to.equal(410);

      // only hashes are stored; the log has the link in the development mail line and nowhere else
      const rows = await world.db.withSchema(IDENTITY_SCHEMA).table('reset_tokens');
      expect(JSON.stringify(rows)).to.not.include(token);
      const elsewhere = timed.logs.filter((l) => !l.mail).map((l) => JSON.stringify(l));
      for (const secret of [token, PASSWORD, NEW, ...b.cookies.values(), ...r.cookies.values()])
        expect(elsewhere.join('\n')).to.not.include(secret);
    } finally {
      await timed.close();
    }
  });

  it('lets an operator create a seller with a sign-in email; a reset link sets its password', async () => {
    const email = newEmail();
    const env = { DATABASE_URL: process.env.DATABASE_URL!, REDIS_PREFIX: process.env.REDIS_PREFIX! };
    const userId = (await cli(['users', 'create', '--name', 'Ops seller', '--email', email], env)).trim();
    expect(await userIdOf(email)).to.equal(userId);
    await expectRejection(
      cli(['users', 'create', '--name', 'Twin', '--email', email.toUpperCase()], env),
      /already signs in/,
    );
    // no password yet: nothing signs in
    expect((await new Browser(site.base).submit('/sign-in', '/sign-in', { email, password: '' })).status).to.equal(401);
    await new Browser(site.base).submit('/reset', '/reset', { email });
    const link = new URL(site.mailLinks(email)[0]!);
    const b = new Browser(site.base);
    await b.get(link.pathname);
    await b.post('/reset/password', { token: link.pathname.split('/').pop()!, password: PASSWORD });
    expect((await b.submit('/sign-in', '/sign-in', { email, password: PASSWORD })).location).to.equal('/account');
  });

  it('turns on a TOTP second factor confirmed by a code; sign-in then asks for a fresh code', async () => {
    const email = newEmail();
    const b = await signedUp(email);
    const totp = await enrollTotp(b);
    const wrong = totp.generate() === '000000' ? '111111' : '000000';
    expect((await b.post('/account/totp/confirm', { code: wrong })).status).to.equal(400);
    expect((await b.post('/account/totp/confirm', { code: totp.generate() })).location).to.equal('/account?done=totp');
    await b.get('/account');
    await b.post('/sign-out', {});

    const first = await b.submit('/sign-in', '/sign-in', { email, password: PASSWORD, return_to: '/account' });
    expect(first.location).to.equal('/sign-in/code?return_to=%2Faccount');
    // half signed in is not signed in
    expect((await b.get('/account')).status).to.equal(303);
    await b.get('/sign-in/code');
    expect((await b.post('/sign-in/code', { code: 'abc' })).status).to.equal(401);
    // the code that confirmed enrollment was used: the same time step is refused
    expect((await b.post('/sign-in/code', { code: totp.generate() })).status).to.equal(401);
    const next = totp.generate({ timestamp: Date.now() + 30_000 });
    expect((await b.post('/sign-in/code', { code: next, return_to: '/account' })).location).to.equal('/account');
    expect((await b.get('/account')).status).to.equal(200);
  });

  it('seals the TOTP secret at rest; sign-in with a code still works after `secrets rotate` re-sealed it', async () => {
    const email = newEmail();
    const b = await signedUp(email);
    const totp = await enrollTotp(b);
    const key = totp.secret.base32;
    const stored = async (): Promise<{ totp_secret: string | null; totp_pending: string | null }> =>
      world.db.withSchema(IDENTITY_SCHEMA).table('credentials').where({ email }).first();
    expect((await stored()).totp_pending)
      .to.match(/^web-test:/)
      .and.not.include(key);
    expect((await b.post('/account/totp/confirm', { code: totp.generate() })).location).to.equal('/account?done=totp');
    const sealed = (await stored()).totp_secret!;
    expect(sealed)
      .to.match(/^web-test:/)
      .and.not.include(key);
    // it opens as its own user's only
    const testKeys = parseKeyring(TEST_SECRETS_KEYS);
    expect(openTotp(testKeys, await userIdOf(email), sealed)).to.equal(key);
    expect(() => openTotp(testKeys, newId(), sealed)).to.throw(/unable to authenticate/);

    const k2 = `k2:${randomBytes(32).toString('base64')}`;
    const out = await cli(['secrets', 'rotate'], {
      DATABASE_URL: process.env.DATABASE_URL!,
      REDIS_PREFIX: process.env.REDIS_PREFIX!,
      SECRETS_KEYS: `${k2},${TEST_SECRETS_KEYS}`,
    });
    expect(out).to.match(/re-sealed [1-9]\d* TOTP secret\(s\) under key k2/);
    const resealed = (await stored()).totp_secret!;
    expect(resealed).to.match(/^k2:/).and.not.include(key);
    // a site that holds only the new key opens it: the seller signs in with a code
    const rotated = await serveSite(world.db, { keyring: parseKeyring(k2) });
    try {
      const c = new Browser(rotated.base);
      const first = await c.submit('/sign-in', '/sign-in', { email, password: PASSWORD, return_to: '/account' });
      expect(first.location).to.equal('/sign-in/code?return_to=%2Faccount');
      await c.get('/sign-in/code');
      const next = totp.generate({ timestamp: Date.now() + 30_000 });
      expect((await c.post('/sign-in/code', { code: next, return_to: '/account' })).location).to.equal('/account');
    } finally {
      await rotated.close();
    }
  });

  it('answers 429 with Retry-After past the sign-in attempts of one email, and counts per email', async () => {
    const email = newEmail();
    await signedUp(email);
    const b = new Browser(site.base);
    const max = RATE_LIMITS.signIn.perEmail.max;
    for (let i = 0; i < max; i++)
      expect((await b.submit('/sign-in', '/sign-in', { email, password: `wrong password ${i}` })).status).to.equal(401);
    const refused = await b.submit('/sign-in', '/sign-in', { email, password: PASSWORD });
    expect(refused.status).to.equal(429);
    expect(Number(refused.headers.get('retry-after'))).to.be.greaterThan(0);
    expect(refused.text).to.include('Too many requests');
    // per email a fixed window: guessing at an address cannot lock its owner out for longer
    const again = await b.submit('/sign-in', '/sign-in', { email, password: PASSWORD });
    expect(again.status).to.equal(429);
    expect(Number(again.headers.get('retry-after'))).to.be.at.most(Number(refused.headers.get('retry-after')));
    // another address from the same client still gets its answer
    expect((await b.submit('/sign-in', '/sign-in', { email: `other.${email}`, password: PASSWORD })).status).to.equal(
      401,
    );
  });

  it('backs off per IP: past the limit each further attempt doubles the Retry-After', async () => {
    const b = new Browser(site.base);
    // reset requests for addresses with no account: counted per IP, no key derivation to wait for
    const ask = () => b.submit('/reset', '/reset', { email: newEmail() });
    for (let i = 0; i < RATE_LIMITS.reset.perIp.max; i++) expect((await ask()).status).to.equal(200);
    const waits: number[] = [];
    for (let i = 0; i < 3; i++) {
      const r = await ask();
      expect(r.status).to.equal(429);
      waits.push(Number(r.headers.get('retry-after')));
    }
    const window = RATE_LIMITS.reset.perIp.timeWindow / 1000;
    expect(waits[0]).to.be.closeTo(window, 2);
    expect(waits[1]).to.be.closeTo(2 * window, 2);
    expect(waits[2]).to.be.closeTo(4 * window, 2);
  });

  it('deletes an account: personal rows erased, sessions, API tokens and marketplace connections ended, hooks run', async () => {
    const email = newEmail();
    const b = await signedUp(email);
    const userId = await userIdOf(email);
    const { token } = await tokenFor(userId);
    // a selling connection made on the connections pages: its credentials are a vault reference
    const account_id = newId();
    const ctx = { store: world.store, metadata: {} };
    await executeAccountCommand(ctx, {
      type: 'RegisterAccount',
      account_id,
      user_id: userId,
      name: 'Shop',
      entity_type: 'seller',
    });
    await executeAccountCommand(ctx, {
      type: 'ConnectSelling',
      account_id,
      provider_id: `A${account_id.slice(0, 8).toUpperCase()}`,
      credentials: vaultReference(account_id),
    });
    const selling = async () =>
      (await world.db.withSchema(READ_MODEL_SCHEMA).table('accounts').where({ account_id }).first())?.selling as
        { inactive?: { cause: string } } | undefined;
    await eventually(selling, 'the connection projected');
    await new Browser(site.base).submit('/reset', '/reset', { email });
    const hooked: string[] = [];
    const hook = async (d: { userId: string }) => void hooked.push(d.userId);
    onAccountDeletion.push(hook);
    try {
      await b.get('/account');
      expect((await b.post('/account/delete', { 'delete-password': 'wrong' })).status).to.equal(401);
      const session = b.cookies.get('session')!;
      const deleted = await b.post('/account/delete', { 'delete-password': PASSWORD });
      expect(deleted.status, deleted.text).to.equal(200);
      expect(hooked).to.deep.equal([userId]);
      for (const t of ['credentials', 'web_sessions', 'reset_tokens'])
        expect(await world.db.withSchema(IDENTITY_SCHEMA).table(t).where({ user_id: userId }), t).to.deep.equal([]);
      const replay = new Browser(site.base);
      replay.cookies.set('session', session);
      expect((await replay.get('/account')).status).to.equal(303);
      await eventually(
        async () => ((await findActiveToken(world.db, hashToken(token))) ? undefined : true),
        'the token revoked in the read model',
      );
      // the user is closed in the log: an operator cannot give it a token, and the CLI says why
      await expectRejection(tokenFor(userId), /invalid: user \S+: the account was deleted; it cannot be given tokens/);
      expect(
        (await new Browser(site.base).submit('/sign-in', '/sign-in', { email, password: PASSWORD })).status,
      ).to.equal(401);
      const inactive = await eventually(async () => (await selling())?.inactive, 'the connection disconnected');
      expect(inactive.cause).to.equal('disconnected');
    } finally {
      onAccountDeletion.splice(onAccountDeletion.indexOf(hook), 1);
    }
  });

  it("exports the seller's own data without a secret", async () => {
    const email = newEmail();
    const b = await signedUp(email);
    const userId = await userIdOf(email);
    const { token, token_id } = await tokenFor(userId);
    const r = await b.get('/account/export');
    expect(r.status).to.equal(200);
    expect(r.headers.get('content-disposition')).to.include('attachment');
    const data = JSON.parse(r.text);
    expect(data.profile).to.include({ user_id: userId, email });
    expect(data.accounts).to.deep.equal([]);
    expect(data.api_tokens).to.have.length(1);
    expect(data.api_tokens[0]).to.include({ token_id, label: 'agent' });
    const row = await world.db.withSchema(IDENTITY_SCHEMA).table('credentials').where({ user_id: userId }).first();
    for (const secret of [token, hashToken(token), row.password_hash, 'scrypt$', PASSWORD])
      expect(r.text).to.not.include(secret);
    // and only to its owner
    expect((await new Browser(site.base).get('/account/export')).status).to.equal(303);
  });
});
