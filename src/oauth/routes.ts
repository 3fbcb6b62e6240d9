import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify';
import type { Knex } from '../infra/db.js';
import { loadAccounts } from '../projections/accounts/queries.js';
import { csrfField, html, page } from '../web/page.js';
import { csrfToken, signedInUser, verifyCsrf, type WebApp } from '../web/session.js';
import { rateLimited } from '../web/rate-limit.js';
import { INTERACTION_PATH, OAUTH_PATH, type OAuthServer } from './provider.js';
import { knownScopes, READ_SCOPE, SCOPES, type Scope } from '../domain/user/scopes.js';

// The authorization server on the service's fastify app: oidc-provider answers everything under
// /oauth from the raw request (its own body parsing, cookies and errors), and the service serves
// the two pages it asks for: sign-in (the seller sign-in pages) and consent.

const DISCOVERY = '/.well-known/openid-configuration';
/** oidc-provider's token, registration and revocation endpoints */
const LIMITED_PATHS = ['/token', '/reg', '/token/revocation'] as const;

const SCOPE_TEXT: Record<Scope, string> = {
  'mcp:read': 'read your listings, sales, ads, events, automations and mutation receipts',
  'mcp:write': 'queue changes to your marketplace accounts and create, change and archive automations',
};

/** Hands a request to oidc-provider as if it were mounted at /oauth (`url` relative to the mount). */
function handOver(oauth: OAuthServer, req: FastifyRequest, reply: FastifyReply, url: string) {
  reply.hijack();
  const to = withDefaultScope(url);
  Object.assign(req.raw, { originalUrl: `${OAUTH_PATH}${to}`, url: to });
  oauth.provider.callback()(req.raw, reply.raw);
}

/**
 * An authorization request naming no scope asks for both (docs/decisions/100-scopes.md):
 * oidc-provider grants only what is named, and would refuse it as granting nothing.
 */
function withDefaultScope(url: string): string {
  if (!url.startsWith('/auth?')) return url;
  const query = new URLSearchParams(url.slice('/auth?'.length));
  if (query.get('scope')) return url;
  query.set('scope', SCOPES.join(' '));
  return `/auth?${query}`;
}

export function registerOAuthRoutes<L extends FastifyBaseLogger>(
  app: WebApp<L>,
  deps: { oauth: OAuthServer; db: Knex },
) {
  const { oauth } = deps;

  // RFC 8414 places an issuer's metadata with a path at /.well-known/…/oauth; OpenID Connect
  // discovery after it too: MCP clients try both, then {issuer}/.well-known/openid-configuration
  for (const wellKnown of ['/.well-known/oauth-authorization-server', DISCOVERY])
    app.get(`${wellKnown}${OAUTH_PATH}`, (req, reply) => handOver(oauth, req, reply, DISCOVERY));

  // oidc-provider reads its own bodies: no parser of the app may consume them first
  app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', (_req, _payload, done) => done(null, undefined));
    const handler = (req: FastifyRequest, reply: FastifyReply) =>
      handOver(oauth, req, reply, req.url.slice(OAUTH_PATH.length));
    // the endpoints a client can call without a browser: limited per IP, with backoff
    for (const path of LIMITED_PATHS) scope.post(`${OAUTH_PATH}${path}`, { preHandler: rateLimited('token') }, handler);
    scope.all(`${OAUTH_PATH}/*`, handler);
  });

  app.get<{ Params: { uid: string } }>(`${INTERACTION_PATH}/:uid`, async (req, reply) => {
    const details = await oauth.provider.interactionDetails(req.raw, reply.raw);
    const user = await signedInUser(req);
    if (!user) return reply.redirect(`/sign-in?return_to=${encodeURIComponent(req.url)}`, 303);
    const client = await oauth.provider.Client.find(details.params.client_id ?? '');
    const accounts = await loadAccounts(deps.db, user.userId);
    const scopes = requestedScopes(details.params.scope);
    const redirectHost = hostOf(details.params.redirect_uri);
    return reply.type('text/html; charset=utf-8').send(
      page(
        { title: 'Allow access to your marketplace accounts?', signedIn: true },
        html`<p>
            <strong>${client?.clientName ?? 'An MCP client'}</strong> (client id
            <code>${details.params.client_id}</code>) asks to use this service as you. After you answer, you go back to
            <strong>${redirectHost}</strong>.
          </p>
          <h2>It asks to</h2>
          <ul>
            ${scopes.map((s) => html`<li><code>${s}</code>: ${SCOPE_TEXT[s]}</li>`)}
          </ul>
          <h2>The accounts it will reach</h2>
          ${
            accounts.length
              ? html`<ul>
                  ${accounts.map((a) => html`<li>${a.name} (${a.entity_type})</li>`)}
                </ul>`
              : html`<p>You have no connected marketplace account yet; it will reach those you connect later.</p>`
          }
          <form method="post" action="${INTERACTION_PATH}/${details.uid}">
            ${csrfField(csrfToken(reply))}
            <button type="submit" name="decision" value="allow">Allow</button>
            ${scopes.length > 1 ? html`<button type="submit" name="decision" value="read">Allow reading only</button>` : ''}
            <button type="submit" name="decision" value="deny">Deny</button>
          </form>`,
      ),
    );
  });

  app.post<{ Params: { uid: string }; Body: { decision?: string } }>(
    `${INTERACTION_PATH}/:uid`,
    { preHandler: verifyCsrf },
    async (req, reply) => {
      const details = await oauth.provider.interactionDetails(req.raw, reply.raw);
      const user = await signedInUser(req);
      if (!user) return reply.redirect(`/sign-in?return_to=${encodeURIComponent(req.url)}`, 303);
      const decision = req.body?.decision;
      if (decision !== 'allow' && decision !== 'read') {
        const to = await oauth.provider.interactionResult(req.raw, reply.raw, {
          error: 'access_denied',
          error_description: 'the user did not allow access',
        });
        return reply.redirect(to, 303);
      }
      const requested = requestedScopes(details.params.scope);
      const granted = decision === 'read' ? requested.filter((s) => s === READ_SCOPE) : requested;
      const grant =
        (details.grantId &&
          details.session?.accountId === user.userId &&
          (await oauth.provider.Grant.find(details.grantId))) ||
        new oauth.provider.Grant({ accountId: user.userId, clientId: details.params.client_id! });
      // oidc-provider counts every scope it lists as one of its own too: granted (or refused) both ways
      const refused = requested.filter((s) => !granted.includes(s));
      const oidc = (details.params.scope ?? '').split(' ').filter((s) => s === 'openid' || s === 'offline_access');
      grant.addResourceScope(oauth.resource, granted.join(' '));
      grant.addOIDCScope([...oidc, ...granted].join(' '));
      if (refused.length) {
        grant.rejectResourceScope(oauth.resource, refused.join(' '));
        grant.rejectOIDCScope(refused.join(' '));
      }
      const grantId = await grant.save();
      const to = await oauth.provider.interactionResult(req.raw, reply.raw, {
        login: { accountId: user.userId },
        consent: { grantId },
      });
      return reply.redirect(to, 303);
    },
  );
}

/** The resource scopes a request names, in order; none named asks for both. */
const requestedScopes = (scope: string | undefined): Scope[] => {
  const known = knownScopes((scope ?? '').split(' '));
  return known.length ? known : [...SCOPES];
};

const hostOf = (uri: string | undefined): string => {
  try {
    return uri ? new URL(uri).host || uri : 'your client';
  } catch {
    return uri ?? 'your client';
  }
};
