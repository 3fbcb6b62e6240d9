import { createHash, randomBytes } from 'node:crypto';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { expect } from 'chai';
import { createDb, type Knex } from '../../src/infra/db.js';
import { SIMULATOR_INGESTION_SECRET } from '../../src/infra/config.js';
import { loadAccounts } from '../../src/projections/accounts/queries.js';
import { createVault, keyringFrom } from '../../src/secrets/vault.js';
import { consent } from '../support/consent.js';
import { call } from '../support/mcp.js';
import { eventually } from '../support/processes.js';
import { connectMcp, createUserWithToken, simulatorUrl, startOwnService, type OwnService } from '../support/service.js';

// A seller connects a selling account through the service's pages as `npm start` runs it: our
// page sends the browser to the simulator's consent page with a state, the consent (a new
// fictional seller) comes back with a code, the real LWA client redeems it and the refresh
// token is sealed in the vault. The worker connects the account and subscribes its streams;
// an event the simulator raises for that seller is listed by list_events within 30 s.

type Row = Record<string, any>;

describe('marketplace connections made on the pages (npm start)', function () {
  this.timeout(300_000);
  let own: OwnService;
  let simulator: string;
  let db: Knex;
  let client: Client;
  let userId: string;
  /** the browser's cookies */
  const jar = new Map<string, string>();
  let partner: string;
  let account: string;

  const cookieHeader = () => [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
  /** a browser's GET or POST on the service, keeping the cookies it sets; redirects are not followed */
  const browse = async (url: string, form?: Record<string, string>) => {
    const answer = await fetch(url.startsWith('http') ? url : `${own.base}${url}`, {
      method: form ? 'POST' : 'GET',
      headers: {
        cookie: cookieHeader(),
        ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
      },
      ...(form ? { body: new URLSearchParams(form).toString() } : {}),
      redirect: 'manual',
    });
    for (const c of answer.headers.getSetCookie()) {
      const [pair] = c.split(';');
      const at = pair!.indexOf('=');
      const value = pair!.slice(at + 1);
      if (value === '' || /max-age=0|expires=thu, 01 jan 1970/i.test(c)) jar.delete(pair!.slice(0, at));
      else jar.set(pair!.slice(0, at), value);
    }
    return answer;
  };
  const tool = async (name: string, args: Row) => {
    const out = await call(client, name, args);
    expect(out.isError, `${name}: ${JSON.stringify(out.structuredContent ?? out.content)}`).to.equal(undefined);
    return out.structuredContent as Row;
  };
  /** our start page, then the simulator's consent as `seller`: the URL the browser comes back to */
  const startAndConsent = async (kind: 'selling' | 'ads', seller = 'new', query = '') => {
    const started = await browse(`/connections/${kind}/start${query}`);
    expect(started.status, await started.clone().text()).to.equal(303);
    return consent(started.headers.get('location')!, seller);
  };
  const vault = () => createVault(db, keyringFrom({ NODE_ENV: 'test', INGESTION_SECRET: SIMULATOR_INGESTION_SECRET })!);
  const sealedRows = (reference: string) =>
    db.withSchema('secrets').table('marketplace_credentials').where({ reference }).select('*');

  before(async () => {
    own = await startOwnService('connections', { STREAMS_SWEEP_MS: '1000' });
    simulator = await simulatorUrl(own.service);
    db = createDb(own.env.DATABASE_URL!);
    let token: string;
    ({ userId, token } = await createUserWithToken(own.env, 'connections'));
    client = await connectMcp(`${own.base}/mcp`, token);
    // a signed-in browser session, as the sign-in page leaves one (session.ts: the cookie's id, hashed)
    const sessionId = randomBytes(32).toString('base64url');
    await db
      .withSchema('identity')
      .table('web_sessions')
      .insert({
        id_hash: createHash('sha256').update(sessionId, 'utf8').digest('hex'),
        user_id: userId,
        stage: 'signed_in',
        expires_at: new Date(Date.now() + 3_600_000),
      });
    jar.set('session', sessionId);
  });
  after(async () => {
    await client?.close();
    await db?.destroy();
    await own?.stop();
  });

  it("connects a new seller's selling account; its events reach list_events within 30 s", async () => {
    const back = await startAndConsent('selling');
    partner = back.searchParams.get('selling_partner_id')!;
    const connectedAt = Date.now();
    const done = await browse(back.toString());
    expect(done.status, await done.clone().text()).to.equal(303);
    account = new URL(done.headers.get('location')!, own.base).searchParams.get('connected')!;

    // the simulator raises a status change for that seller until one arrives (before the
    // subscription exists it is delivered nowhere)
    const raise = () =>
      fetch(`${simulator}/_sim/sellers/${partner}/_sim/events`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ type: 'LISTINGS_ITEM_STATUS_CHANGE' }),
      });
    const listed = await eventually(
      async () => {
        expect((await raise()).status).to.equal(202);
        const events = await call(client, 'list_events', { account, stream_type: 'LISTINGS_ITEM_STATUS_CHANGE' });
        return !events.isError && events.structuredContent.total > 0 ? events.structuredContent : undefined;
      },
      "the new seller's event in list_events",
      30_000,
    );
    expect(Date.now() - connectedAt).to.be.below(30_000);
    expect(listed.events[0].stream_type).to.equal('LISTINGS_ITEM_STATUS_CHANGE');

    const status = await tool('connection_status', {});
    const mine = (status.accounts as Row[]).find((a) => a.id === account)!;
    expect(mine.selling.provider_id).to.equal(partner);
    expect(mine.selling.active).to.equal(true);
  });

  it('keeps the refresh token sealed: the row is not the token, and no event holds it', async () => {
    const [row] = await sealedRows(`vault:${account}`);
    const opened = await vault().credentials(`vault:${account}`);
    const token = opened!.selling_refresh_token!;
    expect(token).to.match(/^Atzr\|/);
    expect(Buffer.from(row.ciphertext).toString('utf8')).to.not.include(token);
    const holding = await db.raw(
      `select count(*)::int as n from events where data::text like ? or metadata::text like ?`,
      [`%${token}%`, `%${token}%`],
    );
    expect(holding.rows[0].n).to.equal(0);
    const named = await db.raw(`select count(*)::int as n from events where data->>'credentials' = ?`, [
      `vault:${account}`,
    ]);
    expect(named.rows[0].n, 'the connection event names the reference').to.be.greaterThan(0);
  });

  it('refuses a forged state and a replayed one with a page that says so', async () => {
    const back = await startAndConsent('selling');
    const forged = new URL(back);
    forged.searchParams.set('state', 'forged-state');
    const refused = await browse(forged.toString());
    expect(refused.status).to.equal(400);
    expect(await refused.text()).to.include('Connection refused');

    // the genuine answer, but its cookie is gone with the refused attempt: started again, then replayed
    const again = await startAndConsent('selling');
    expect((await browse(again.toString())).status).to.equal(303);
    const replayed = await browse(again.toString());
    expect(replayed.status).to.equal(400);
    expect(await replayed.text()).to.include('was used already');
  });

  it('connects advertising to the same account; disconnect erases the secrets and stops its streams; reconnecting works', async () => {
    const back = await startAndConsent('ads', partner, `?account=${account}`);
    expect((await browse(back.toString())).status).to.equal(303);
    await eventually(
      async () =>
        (await loadAccounts(db, userId)).find((a) => a.id === account)?.ads?.profiles.length ? true : undefined,
      'the advertising connection',
      60_000,
    );
    expect((await sealedRows(`vault:${account}`)).map((r) => r.kind).sort()).to.deep.equal(['ads', 'selling']);

    const always = async () =>
      ((await tool('list_streams', { account })).streams as Row[]).filter((s) => s.policy === 'always');
    expect((await always()).some((s) => s.status === 'active')).to.equal(true);
    const page = await (await browse('/connections')).text();
    const csrf = /name="_csrf" value="([^"]+)"/.exec(page)![1]!;
    const disconnected = await browse(`/connections/${account}/disconnect`, { _csrf: csrf });
    expect(disconnected.status).to.equal(303);
    expect(await sealedRows(`vault:${account}`)).to.deep.equal([]);
    const inactive = await eventually(async () => {
      const a = (await loadAccounts(db, userId)).find((x) => x.id === account);
      return a?.selling && !a.selling.active ? a : undefined;
    }, 'the account inactive');
    expect(inactive.selling!.inactive!.cause).to.equal('disconnected');
    await eventually(
      async () => ((await always()).every((s) => s.status === 'inactive') ? true : undefined),
      "the account's streams to stop",
      60_000,
    );

    // the same seller consents again: the same account, active again
    const reconnect = await startAndConsent('selling', partner);
    expect((await browse(reconnect.toString())).status).to.equal(303);
    await eventually(
      async () => {
        const a = (await loadAccounts(db, userId)).find((x) => x.id === account);
        return a?.selling?.active ? true : undefined;
      },
      'the account active again',
      60_000,
    );
    expect((await sealedRows(`vault:${account}`)).map((r) => r.kind)).to.deep.equal(['selling']);
  });
});
