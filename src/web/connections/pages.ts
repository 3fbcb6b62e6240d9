import { requestBaseUrl } from '../base-url.js';
import type { Queue } from 'bullmq';
import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify';
import type { Redis } from 'ioredis';
import type { Knex } from 'knex';
import type { Config } from '../../infra/config.js';
import {
  completeConnection,
  consumeState,
  disconnectAccount,
  issueState,
  pageMadeAccounts,
  sellerConnectedElsewhere,
  STATE_TTL_MS,
} from '../../commands/account/marketplace-connections.js';
import type { CommandContext } from '../../commands/shared/handler.js';
import type { ConnectionKind } from '../../domain/account/events.js';
import { newId, stableId, UUID_PATTERN } from '../../domain/shared/ids.js';
import { createLwaClient, MarketplaceError, type LwaClient } from '../../marketplace/clients/index.js';
import { DEFAULT_LWA_CLIENT, type MarketplaceEndpoints } from '../../marketplace/simulator/index.js';
import { loadAccounts } from '../../projections/accounts/queries.js';
import { createVault, keyringFrom, type Vault } from '../../secrets/vault.js';
import {
  connectionsQueue,
  reconnectAccount,
  scheduleConnectionSync,
  type ConnectionSyncJob,
} from '../../workers/connections-queue.js';
import { csrfField, html, page } from '../page.js';
import { csrfToken, requireSignedIn, signedInUser, verifyCsrf, type WebApp } from '../session.js';

// The connections pages (docs/decisions/096-seller-made-connections.md):
//   GET  /connections                       the user's accounts, connect and disconnect
//   GET  /connections/selling/start         to the selling API's consent page
//   GET  /connections/ads/start?account=    to Login with Amazon (advertising), for an account or a new one
//   GET  /connections/selling/callback      back with spapi_oauth_code, state, selling_partner_id
//   GET  /connections/ads/callback          back with code, state
//   POST /connections/:account/disconnect
// The state that goes out is random, single use, short-lived, bound to the signed-in user in the
// database and to this browser by a cookie: a forged or replayed one is refused with a page.

export interface ConnectionPagesDeps {
  lwa: LwaClient;
  /** null: no key configured (production without SECRETS_KEYS), so nothing can be connected */
  vault: Vault | null;
  queue: Queue<ConnectionSyncJob>;
  /** the selling API's consent page, e.g. https://sellercentral.amazon.com/apps/authorize/consent */
  sellingConsentUrl: string;
  /** Login with Amazon's authorization page, e.g. https://www.amazon.com/ap/oa */
  adsAuthorizationUrl: string;
  /** the selling API application (`application_id`); undefined: selling connections are not offered */
  applicationId: string | undefined;
  /** `version=beta` on the consent page (a draft application) */
  betaApplication?: boolean;
  /** e.g. https://mcp.example.com; else each request's own origin */
  publicBaseUrl?: string | undefined;
}

/** The pages' dependencies from configuration: with the simulator, its own consent pages and
 * application; else Seller Central's and Login with Amazon's, and SELLING_APPLICATION_ID. */
export function connectionPagesDeps(
  config: Config,
  db: Knex,
  redis: Redis,
  endpoints: MarketplaceEndpoints,
): ConnectionPagesDeps {
  const keyring = keyringFrom(config);
  const simulator = config.useSimulator ? endpoints.sellingApiUrl.replace(/\/+$/, '') : null;
  const applicationId = config.SELLING_APPLICATION_ID ?? (simulator ? DEFAULT_LWA_CLIENT.applicationId : undefined);
  return {
    lwa: createLwaClient({
      tokenUrl: endpoints.lwaTokenUrl,
      clientId: config.LWA_CLIENT_ID,
      clientSecret: config.LWA_CLIENT_SECRET,
      // a code is redeemed once: a seller waits, so few quick attempts
      retry: { attempts: 2, minDelayMs: 300, maxDelayMs: 1_000 },
    }),
    vault: keyring && createVault(db, keyring),
    queue: connectionsQueue(redis, config.REDIS_PREFIX),
    sellingConsentUrl:
      config.SELLING_CONSENT_URL ??
      (simulator ? `${simulator}/apps/authorize/consent` : 'https://sellercentral.amazon.com/apps/authorize/consent'),
    adsAuthorizationUrl:
      config.ADS_AUTHORIZATION_URL ?? (simulator ? `${simulator}/ap/oa` : 'https://www.amazon.com/ap/oa'),
    applicationId,
    publicBaseUrl: config.PUBLIC_BASE_URL,
  };
}

const STATE_COOKIE = 'connect_state';
const KIND_NAMES: Record<ConnectionKind, string> = { selling: 'selling account', ads: 'advertising account' };

export function registerConnectionPages<L extends FastifyBaseLogger>(
  service: WebApp<L>,
  deps: ConnectionPagesDeps & { db: Knex; ctx: CommandContext },
): void {
  // session.ts's hooks are typed for the base logger; only the logger's type differs
  const app = service as unknown as WebApp;
  const base = requestBaseUrl(deps.publicBaseUrl);
  const callbackUrl = (req: FastifyRequest, kind: ConnectionKind) => `${base(req)}/connections/${kind}/callback`;
  const secure = deps.publicBaseUrl?.startsWith('https:') ?? false;
  const userOf = async (req: FastifyRequest) => (await signedInUser(req))!.userId;

  const refusal = (reply: FastifyReply, title: string, notice: string, status = 400) =>
    reply
      .code(status)
      .type('text/html; charset=utf-8')
      .send(page({ title, notice, signedIn: true }, html`<p><a href="/connections">Back to your connections</a></p>`));

  app.get('/connections', { preHandler: requireSignedIn }, async (req, reply) => {
    const user_id = await userOf(req);
    const accounts = await loadAccounts(deps.db, user_id);
    const pageMade = new Set((await pageMadeAccounts(deps.db, user_id)).map((a) => a.account_id));
    const token = csrfToken(reply);
    const state = (c: { active: boolean; provider_id: string } | null) =>
      c ? `${c.provider_id}${c.active ? '' : ' (disconnected or inactive)'}` : 'not connected';
    const notice = (req.query as Record<string, unknown>).connected;
    const rows = accounts.map(
      (a) =>
        html`<li>
          <strong>${a.name}</strong> (${a.id}): selling ${state(a.selling)}, advertising ${state(a.ads)}
          ${
            pageMade.has(a.id)
              ? html`<form method="post" action="/connections/${a.id}/disconnect">
                  ${csrfField(token)}<button type="submit">Disconnect</button>
                </form>`
              : ''
          }
        </li>`,
    );
    const options = [
      html`<option value="new">a new account</option>`,
      ...accounts.filter((a) => pageMade.has(a.id)).map((a) => html`<option value="${a.id}">${a.name}</option>`),
    ];
    return reply.type('text/html; charset=utf-8').send(
      page(
        {
          title: 'Marketplace connections',
          notice:
            typeof notice === 'string' ? `Connected: ${notice}. Its data arrives over the next minutes.` : undefined,
          signedIn: true,
        },
        html`${
            rows.length
              ? html`<ul>
                  ${rows}
                </ul>`
              : html`<p>No marketplace account is connected yet.</p>`
          }
          ${
            deps.applicationId
              ? html`<p><a href="/connections/selling/start">Connect selling account</a></p>`
              : html`<p>Selling accounts cannot be connected: no selling application is configured.</p>`
          }
          <form method="get" action="/connections/ads/start">
            <label for="account">Connect advertising account to</label>
            <select id="account" name="account">
              ${options}
            </select>
            <button type="submit">Connect advertising account</button>
          </form>`,
      ),
    );
  });

  /** Sends the browser to the marketplace's page with a new state, remembered in a cookie too. */
  async function start(req: FastifyRequest, reply: FastifyReply, kind: ConnectionKind, account_id: string | null) {
    if (!deps.vault)
      return refusal(
        reply,
        'Cannot connect',
        'The service has no key to keep marketplace authorizations with (SECRETS_KEYS is not configured).',
        503,
      );
    const state = await issueState(deps.db, { user_id: await userOf(req), kind, account_id });
    reply.setCookie(STATE_COOKIE, state, {
      path: '/connections',
      httpOnly: true,
      // Lax: the marketplace's redirect back is a top-level navigation, which carries it
      sameSite: 'lax',
      secure,
      maxAge: STATE_TTL_MS / 1000,
    });
    const target = kind === 'selling' ? new URL(deps.sellingConsentUrl) : new URL(deps.adsAuthorizationUrl);
    const params: Record<string, string> =
      kind === 'selling'
        ? {
            application_id: deps.applicationId!,
            state,
            redirect_uri: callbackUrl(req, kind),
            ...(deps.betaApplication ? { version: 'beta' } : {}),
          }
        : {
            client_id: deps.lwa.clientId,
            scope: 'advertising::campaign_management',
            response_type: 'code',
            redirect_uri: callbackUrl(req, kind),
            state,
          };
    for (const [k, v] of Object.entries(params)) target.searchParams.set(k, v);
    return reply.redirect(target.toString(), 303);
  }

  app.get('/connections/selling/start', { preHandler: requireSignedIn }, async (req, reply) => {
    if (!deps.applicationId)
      return refusal(reply, 'Cannot connect', 'No selling application is configured (SELLING_APPLICATION_ID).', 503);
    return start(req, reply, 'selling', null);
  });
  app.get('/connections/ads/start', { preHandler: requireSignedIn }, async (req, reply) => {
    const chosen = (req.query as Record<string, unknown>).account;
    if (chosen === undefined || chosen === 'new') return start(req, reply, 'ads', null);
    const mine = await pageMadeAccounts(deps.db, await userOf(req));
    if (typeof chosen !== 'string' || !mine.some((a) => a.account_id === chosen))
      return refusal(reply, 'Cannot connect', 'That account is not one of your connected accounts.');
    return start(req, reply, 'ads', chosen);
  });

  /** The marketplace's redirect back: the state checked and used up, then the code redeemed. */
  async function callback(req: FastifyRequest, reply: FastifyReply, kind: ConnectionKind) {
    const query = req.query as Record<string, unknown>;
    const text = (name: string) => (typeof query[name] === 'string' ? (query[name] as string) : undefined);
    const user_id = await userOf(req);
    const state = text('state');
    const cookie = req.cookies[STATE_COOKIE];
    reply.clearCookie(STATE_COOKIE, { path: '/connections' });
    const issued = state && cookie === state ? await consumeState(deps.db, state, { user_id, kind }) : null;
    if (!issued)
      return refusal(
        reply,
        'Connection refused',
        `This answer from the marketplace does not belong to a ${KIND_NAMES[kind]} connection you started in this browser in the last ${STATE_TTL_MS / 60_000} minutes, or it was used already. Nothing was connected; start again.`,
      );
    const code = text(kind === 'selling' ? 'spapi_oauth_code' : 'code');
    if (!code)
      return refusal(
        reply,
        'Not connected',
        `The marketplace did not authorize the connection${text('error') ? ` (${text('error')})` : ''}. Nothing was connected.`,
      );
    let account_id = issued.account_id;
    const sellingPartnerId = text('selling_partner_id');
    if (kind === 'selling') {
      if (!sellingPartnerId) return refusal(reply, 'Not connected', 'The marketplace named no selling partner.');
      // the same seller reconnected is the same account
      account_id = stableId(`account:${user_id}`, `selling:${sellingPartnerId}`);
      if (await sellerConnectedElsewhere(deps.db, sellingPartnerId, account_id))
        return refusal(
          reply,
          'Seller connected already',
          `The seller ${sellingPartnerId} is connected to another account of this service already. The marketplace delivers a seller's notifications to one place only, so a second account of it would never receive its events. Disconnect it there first.`,
          409,
        );
    }
    account_id ??= newId();
    let refreshToken: string;
    try {
      ({ refreshToken } = await deps.lwa.exchangeCode(code, callbackUrl(req, kind)));
    } catch (err) {
      req.log.warn({ err: err instanceof MarketplaceError ? err.toJSON() : err }, 'authorization code not redeemed');
      return refusal(
        reply,
        'Not connected',
        'Login with Amazon did not accept the authorization (it may have expired); nothing was connected. Start again.',
        502,
      );
    }
    await completeConnection(
      {
        db: deps.db,
        ctx: deps.ctx,
        vault: deps.vault!,
        connect: async (job) => {
          await reconnectAccount(deps.queue, job);
          await scheduleConnectionSync(deps.queue, job);
        },
      },
      { user_id, account_id, kind, refreshToken, ...(sellingPartnerId ? { sellingPartnerId } : {}) },
    );
    return reply.redirect(`/connections?connected=${encodeURIComponent(account_id)}`, 303);
  }
  app.get('/connections/selling/callback', { preHandler: requireSignedIn }, (req, reply) =>
    callback(req, reply, 'selling'),
  );
  app.get('/connections/ads/callback', { preHandler: requireSignedIn }, (req, reply) => callback(req, reply, 'ads'));

  app.post<{ Params: { account: string } }>(
    '/connections/:account/disconnect',
    { preHandler: [requireSignedIn, verifyCsrf] },
    async (req, reply) => {
      const account_id = req.params.account;
      const user_id = await userOf(req);
      // the log records the seller as who disconnected it
      const ctx = { ...deps.ctx, metadata: { ...deps.ctx.metadata, actor: { kind: 'user' as const, id: user_id } } };
      const done =
        UUID_PATTERN.test(account_id) &&
        (await disconnectAccount({ db: deps.db, ctx }, user_id, account_id.toLowerCase()));
      if (!done) return refusal(reply, 'Not disconnected', 'That account is not one you connected here.', 404);
      return reply.redirect('/connections', 303);
    },
  );
}
