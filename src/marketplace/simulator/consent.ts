import { randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { LightMyRequestResponse } from 'fastify';
import type { Simulator } from './app.js';
import type { LwaCredential } from './tokens.js';

// The sellers who authorize an application through the simulator's consent pages. Each consent
// may sign in as a NEW fictional seller: a whole simulator of its own (its own seed, so its own
// deterministic listings, orders, ads and events, small by default), mounted behind this one.
// Its refresh tokens come from the authorization_code grant; the access tokens they give route
// every API call made with them to that seller's simulator. The default seller (the demo's) is
// untouched.
//
//   GET  /apps/authorize/consent?application_id&state&redirect_uri[&version=beta]  selling API
//   GET  /ap/oa?client_id&scope=advertising::campaign_management&response_type=code&redirect_uri&state
//   POST /apps/authorize/confirm, POST /ap/oa/confirm   the pages' forms: redirect back with the code
//   GET  /_sim/sellers                                  the consented sellers
//   *    /_sim/sellers/<selling partner id>/<path>      any route of that seller's simulator
//        (e.g. POST /_sim/sellers/<id>/_sim/events raises an event for that seller)

export type ConsentAudience = 'selling' | 'ads';

export interface ConsentedSeller {
  /** The selling partner id (the merchant token; the ads profiles' accountInfo.id). */
  id: string;
  name: string;
  seed: number;
  simulator: Simulator;
}

interface Code {
  seller: ConsentedSeller;
  audience: ConsentAudience;
  clientId: string;
  redirectUri: string;
  expiresAt: number;
}

/** How long a consent's authorization code can be redeemed (LWA: 5 minutes). */
const CODE_TTL_MS = 5 * 60_000;
/** The tenant simulator's own refresh token for each audience: the redeemed tokens stand for it. */
const TENANT_TOKENS: Record<ConsentAudience, string> = {
  selling: 'Atzr|demo-seller',
  ads: 'Atzr|demo-advertiser',
};

export interface Consents {
  sellers(): ConsentedSeller[];
  seller(id: string): ConsentedSeller | undefined;
  /** A new distinct seller, as a consent that signs in as "a new seller" makes. */
  newSeller(): ConsentedSeller;
  /** An authorization code for `seller`, redeemable once by `clientId` with `redirectUri`. */
  issueCode(seller: ConsentedSeller, audience: ConsentAudience, clientId: string, redirectUri: string): string;
  /** Redeems a code (single use): a refresh token of its seller, or why not. */
  redeem(code: string, clientId: string, redirectUri: string): { refreshToken: string } | { refused: string };
  /** The seller and audience a redeemed refresh token stands for. */
  refreshTokenOf(refreshToken: string): { seller: ConsentedSeller; audience: ConsentAudience } | undefined;
  /** Remembers which seller an access token was issued for, until it expires. */
  noteAccessToken(accessToken: string, seller: ConsentedSeller, expiresInSeconds: number): void;
  accessTokenOf(accessToken: string | undefined): ConsentedSeller | undefined;
  close(): Promise<void>;
}

export function createConsents(o: {
  seed: number;
  now: () => number;
  /** A tenant simulator for a seed (the same options as this one's, a small scale). */
  simulatorFor: (seed: number) => Simulator;
}): Consents {
  const sellers = new Map<string, ConsentedSeller>();
  const codes = new Map<string, Code>();
  const refreshTokens = new Map<string, { seller: ConsentedSeller; audience: ConsentAudience }>();
  const accessTokens = new Map<string, { seller: ConsentedSeller; expiresAt: number }>();
  return {
    sellers: () => [...sellers.values()],
    seller: (id) => sellers.get(id),
    newSeller() {
      // the n-th consent's seed: the same consents in the same order give the same sellers
      const seed = (o.seed + 7919 * (sellers.size + 1)) >>> 0;
      const simulator = o.simulatorFor(seed);
      const seller = { id: simulator.seller.merchantId, name: simulator.seller.name, seed, simulator };
      sellers.set(seller.id, seller);
      return seller;
    },
    issueCode(seller, audience, clientId, redirectUri) {
      for (const [code, c] of codes) if (c.expiresAt <= o.now()) codes.delete(code);
      const code = randomBytes(16).toString('base64url');
      codes.set(code, { seller, audience, clientId, redirectUri, expiresAt: o.now() + CODE_TTL_MS });
      return code;
    },
    redeem(code, clientId, redirectUri) {
      const issued = codes.get(code);
      // single use: a code is gone once presented, whether or not it was redeemed
      codes.delete(code);
      if (!issued || issued.expiresAt <= o.now()) return { refused: 'The authorization code is invalid or expired' };
      if (issued.clientId !== clientId) return { refused: 'The authorization code was issued to another client' };
      if (issued.redirectUri !== redirectUri)
        return { refused: 'The redirect_uri does not match the one the code was issued for' };
      const refreshToken = `Atzr|${randomBytes(24).toString('base64url')}`;
      refreshTokens.set(refreshToken, { seller: issued.seller, audience: issued.audience });
      return { refreshToken };
    },
    refreshTokenOf: (refreshToken) => refreshTokens.get(refreshToken),
    noteAccessToken(accessToken, seller, expiresInSeconds) {
      for (const [token, a] of accessTokens) if (a.expiresAt <= o.now()) accessTokens.delete(token);
      accessTokens.set(accessToken, { seller, expiresAt: o.now() + expiresInSeconds * 1000 });
    },
    accessTokenOf: (accessToken) => (accessToken ? accessTokens.get(accessToken)?.seller : undefined),
    async close() {
      await Promise.all([...sellers.values()].map((s) => s.simulator.close()));
    },
  };
}

/** The tenant's own LWA answer for the refresh token a redeemed one stands for. */
export async function tenantToken(
  seller: ConsentedSeller,
  audience: ConsentAudience,
  client: LwaCredential,
): Promise<LightMyRequestResponse> {
  return seller.simulator.app.inject({
    method: 'POST',
    url: '/auth/o2/token',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({
      grant_type: 'refresh_token',
      refresh_token: TENANT_TOKENS[audience],
      client_id: client.clientId,
      client_secret: client.clientSecret,
    }).toString(),
  });
}

/** Restores (or revokes) the tenant's own authorization a redeemed refresh token stands for. */
export async function tenantRevocation(seller: ConsentedSeller, audience: ConsentAudience, revoked: boolean) {
  await seller.simulator.app.inject({
    method: 'PUT',
    url: '/_sim/lwa/revocations',
    payload: { refresh_token: TENANT_TOKENS[audience], revoked },
  });
}

const escape = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

const page = (title: string, body: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escape(title)}</title></head><body><h1>${escape(title)}</h1>${body}</body></html>`;

const refusal = (reply: FastifyReply, message: string) =>
  reply
    .code(400)
    .type('text/html; charset=utf-8')
    .send(page('Authorization failed', `<p>${escape(message)}</p>`));

const hidden = (fields: Record<string, string>) =>
  Object.entries(fields)
    .map(([name, value]) => `<input type="hidden" name="${escape(name)}" value="${escape(value)}">`)
    .join('');

/** The "sign in as" choice: a new fictional seller (checked), or one that consented before. */
const sellerChoice = (consents: Consents) =>
  [
    `<label><input type="radio" name="seller" value="new" checked> a new fictional seller</label>`,
    ...consents
      .sellers()
      .map(
        (s) =>
          `<label><input type="radio" name="seller" value="${escape(s.id)}"> ${escape(s.name)} (${escape(s.id)})</label>`,
      ),
  ].join('<br>');

const isHttpUrl = (value: string | undefined): value is string => {
  try {
    return !!value && ['http:', 'https:'].includes(new URL(value).protocol);
  } catch {
    return false;
  }
};

const fields = (request: FastifyRequest): Record<string, string | undefined> => {
  const source = (request.method === 'GET' ? request.query : request.body) ?? {};
  return Object.fromEntries(
    Object.entries(source as Record<string, unknown>).map(([k, v]) => [k, typeof v === 'string' ? v : undefined]),
  );
};

const redirectTo = (reply: FastifyReply, redirectUri: string, params: Record<string, string>) => {
  const url = new URL(redirectUri);
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
  return reply.redirect(url.toString(), 302);
};

export function registerConsentPages(
  app: FastifyInstance,
  consents: Consents,
  clients: readonly LwaCredential[],
): void {
  const clientOf = (id: string | undefined) => clients.find((c) => c.clientId === id);
  const applicationOf = (id: string | undefined) => clients.find((c) => c.applicationId === id);
  const chosen = (value: string | undefined) =>
    value === 'new' || value === undefined ? consents.newSeller() : consents.seller(value);

  // The selling API's website authorization workflow.
  const sellingRequest = (
    request: FastifyRequest,
  ): { refused: string } | { app: LwaCredential; f: Record<string, string> } => {
    const f = fields(request);
    const application = applicationOf(f.application_id);
    if (!application) return { refused: `No application ${f.application_id ?? '(none)'} is registered` };
    if (f.version !== undefined && f.version !== 'beta') return { refused: `version must be beta or left out` };
    if (!f.state) return { refused: 'state is required' };
    if (!isHttpUrl(f.redirect_uri)) return { refused: 'redirect_uri must be an http(s) URL' };
    return { app: application, f: { application_id: f.application_id!, state: f.state, redirect_uri: f.redirect_uri } };
  };
  app.get('/apps/authorize/consent', async (request, reply) => {
    const checked = sellingRequest(request);
    if ('refused' in checked) return refusal(reply, checked.refused);
    return reply
      .type('text/html; charset=utf-8')
      .send(
        page(
          'Authorize application',
          `<p>The application ${escape(checked.app.clientId)} asks for access to your selling account.</p>` +
            `<form method="post" action="/apps/authorize/confirm">${hidden(checked.f)}${sellerChoice(consents)}` +
            `<p><button type="submit">Confirm</button></p></form>`,
        ),
      );
  });
  app.post('/apps/authorize/confirm', async (request, reply) => {
    const checked = sellingRequest(request);
    if ('refused' in checked) return refusal(reply, checked.refused);
    const seller = chosen(fields(request).seller);
    if (!seller) return refusal(reply, 'No such seller');
    const code = consents.issueCode(seller, 'selling', checked.app.clientId, checked.f.redirect_uri!);
    return redirectTo(reply, checked.f.redirect_uri!, {
      spapi_oauth_code: code,
      state: checked.f.state!,
      selling_partner_id: seller.id,
    });
  });

  // Login with Amazon for the advertising API.
  const adsRequest = (request: FastifyRequest): { refused: string } | { f: Record<string, string> } => {
    const f = fields(request);
    if (!clientOf(f.client_id)) return { refused: `No client ${f.client_id ?? '(none)'} is registered` };
    if (f.scope !== 'advertising::campaign_management')
      return { refused: 'scope must be advertising::campaign_management' };
    if (f.response_type !== 'code') return { refused: 'response_type must be code' };
    if (!f.state) return { refused: 'state is required' };
    if (!isHttpUrl(f.redirect_uri)) return { refused: 'redirect_uri must be an http(s) URL' };
    return {
      f: {
        client_id: f.client_id!,
        scope: f.scope,
        response_type: f.response_type,
        state: f.state,
        redirect_uri: f.redirect_uri,
      },
    };
  };
  app.get('/ap/oa', async (request, reply) => {
    const checked = adsRequest(request);
    if ('refused' in checked) return refusal(reply, checked.refused);
    return reply
      .type('text/html; charset=utf-8')
      .send(
        page(
          'Login with Amazon',
          `<p>${escape(checked.f.client_id!)} asks to manage your advertising campaigns.</p>` +
            `<form method="post" action="/ap/oa/confirm">${hidden(checked.f)}${sellerChoice(consents)}` +
            `<p><button type="submit">Allow</button></p></form>`,
        ),
      );
  });
  app.post('/ap/oa/confirm', async (request, reply) => {
    const checked = adsRequest(request);
    if ('refused' in checked) return refusal(reply, checked.refused);
    const seller = chosen(fields(request).seller);
    if (!seller) return refusal(reply, 'No such seller');
    const code = consents.issueCode(seller, 'ads', checked.f.client_id!, checked.f.redirect_uri!);
    return redirectTo(reply, checked.f.redirect_uri!, { code, state: checked.f.state! });
  });

  app.get('/_sim/sellers', async () => ({
    sellers: consents.sellers().map((s) => ({ id: s.id, name: s.name, seed: s.seed })),
  }));
  // Any route of a consented seller's simulator (its control routes, its report documents).
  app.all<{ Params: { id: string; '*': string } }>('/_sim/sellers/:id/*', async (request, reply) => {
    const seller = consents.seller(request.params.id);
    if (!seller)
      return reply.code(404).send({ error: 'not_found', detail: `no consented seller ${request.params.id}` });
    const query = request.url.includes('?') ? request.url.slice(request.url.indexOf('?')) : '';
    return forward(request, reply, seller, `/${request.params['*']}${query}`);
  });

  // An API call made with a consented seller's access token is that seller's simulator's.
  app.addHook('onRequest', async (request, reply) => {
    if (request.url.startsWith('/_sim/') || request.url.startsWith('/auth/o2/')) return;
    const bearer = /^Bearer (.+)$/i.exec(header(request, 'authorization') ?? '')?.[1];
    const seller = consents.accessTokenOf(header(request, 'x-amz-access-token') ?? bearer);
    if (seller) return forward(request, reply, seller, request.url);
  });
}

function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

const HOP_BY_HOP = new Set(['content-length', 'transfer-encoding', 'connection', 'keep-alive', 'date']);

/** Hands the request to the seller's simulator as it came (body unread, so any content type),
 * and its answer back; the document URLs it answers point at its route here. */
async function forward(request: FastifyRequest, reply: FastifyReply, seller: ConsentedSeller, url: string) {
  const hasBody = !['GET', 'HEAD', 'DELETE'].includes(request.method) || request.headers['content-length'];
  const body = hasBody ? (request.body === undefined ? request.raw : serialize(request)) : undefined;
  const answer = await seller.simulator.app.inject({
    method: request.method as 'GET',
    url,
    headers: Object.fromEntries(
      Object.entries(request.headers).filter(([name]) => name !== 'content-length' && name !== 'transfer-encoding'),
    ) as Record<string, string>,
    ...(body !== undefined ? { payload: body } : {}),
  });
  for (const [name, value] of Object.entries(answer.headers))
    if (!HOP_BY_HOP.has(name) && value !== undefined) void reply.header(name, value);
  const type = String(answer.headers['content-type'] ?? '');
  const payload = type.includes('json')
    ? answer.body.replace(
        /(:\/\/[^/"]+)\/(report-documents|reporting-documents)\//g,
        `$1/_sim/sellers/${seller.id}/$2/`,
      )
    : answer.rawPayload;
  return reply.code(answer.statusCode).send(payload);
}

/** A body fastify has parsed already (a route of this app), sent on as its content type says. */
function serialize(request: FastifyRequest): string | Buffer {
  const body = request.body;
  if (typeof body === 'string' || Buffer.isBuffer(body)) return body;
  if (String(request.headers['content-type'] ?? '').includes('x-www-form-urlencoded'))
    return new URLSearchParams(body as Record<string, string>).toString();
  return JSON.stringify(body);
}
