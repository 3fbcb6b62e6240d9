import { createHash, randomBytes } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { pino } from 'pino';
import type { EventStore } from '../../src/eventstore/port.js';
import type { Knex } from '../../src/infra/db.js';
import { tokenAuthenticator } from '../../src/mcp/auth.js';
import { buildHttpServer } from '../../src/mcp/server.js';
import { oauthKeys } from '../../src/oauth/keys.js';
import { oauthServer, type OAuthServer } from '../../src/oauth/provider.js';
import { signIn } from '../../src/web/session.js';
import { freePort } from '../../src/infra/free-port.js';

// The service with its OAuth authorization server on a real listening port, a browser that
// speaks plain HTTP (a cookie jar and manual redirects) to sign in and consent, and a test CA
// for the https a Client ID Metadata Document needs (trusted by the service only under test
// configuration). Browser tests reuse them.

export interface TestCa {
  /** the CA certificate (PEM): what the service is told to trust (OAUTH_TEST_CA_FILE) */
  caFile: string;
  ca: string;
  /** a server certificate and key for localhost and 127.0.0.1, signed by the CA */
  cert: string;
  key: string;
  remove(): void;
}

/** A CA made now with the openssl CLI, and a server certificate it signed for loopback. */
export function createTestCa(): TestCa {
  const dir = mkdtempSync(join(tmpdir(), 'oauth-ca-'));
  const at = (name: string) => join(dir, name);
  const openssl = (...args: string[]) => execFileSync('openssl', args, { stdio: 'pipe' });
  openssl(
    'req',
    '-x509',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:P-256',
    '-nodes',
    '-days',
    '2',
    '-subj',
    '/CN=OAuth test CA',
    '-keyout',
    at('ca.key'),
    '-out',
    at('ca.pem'),
  );
  openssl(
    'req',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:P-256',
    '-nodes',
    '-subj',
    '/CN=localhost',
    '-keyout',
    at('server.key'),
    '-out',
    at('server.csr'),
  );
  writeFileSync(at('server.ext'), 'subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth\n');
  openssl(
    'x509',
    '-req',
    '-in',
    at('server.csr'),
    '-CA',
    at('ca.pem'),
    '-CAkey',
    at('ca.key'),
    '-CAcreateserial',
    '-days',
    '2',
    '-extfile',
    at('server.ext'),
    '-out',
    at('server.pem'),
  );
  return {
    caFile: at('ca.pem'),
    ca: readFileSync(at('ca.pem'), 'utf8'),
    cert: readFileSync(at('server.pem'), 'utf8'),
    key: readFileSync(at('server.key'), 'utf8'),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** An https server on loopback with the CA's certificate, e.g. for a client's metadata document. */
export async function serveHttps(
  ca: TestCa,
  handler: (req: IncomingMessage, res: ServerResponse) => void,
): Promise<{ origin: string; close(): Promise<void> }> {
  const server = createHttpsServer({ cert: ca.cert, key: ca.key }, handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `https://localhost:${port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

export interface OAuthService {
  base: string;
  oauth: OAuthServer;
  /** a browser of its own that is signed in as `userId` */
  browserFor(userId: string): Promise<Browser>;
  close(): Promise<void>;
}

export const TEST_SIGN_IN_PATH = '/test/sign-in';

/**
 * The service's HTTP server with the authorization server, on a port of its own. Signing in goes
 * through session.ts's programmatic sign-in (the seller pages' own step), from a test route.
 */
export async function startOAuthService(options: {
  db: Knex;
  store: EventStore;
  demoUserId: string;
  now?: () => Date;
  accessTokenTtlSeconds?: number;
  testCa?: TestCa;
}): Promise<OAuthService> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const oauth = oauthServer({
    baseUrl: base,
    db: options.db,
    keys: await oauthKeys(options.db, {}),
    ...(options.accessTokenTtlSeconds ? { accessTokenTtlSeconds: options.accessTokenTtlSeconds } : {}),
    ...(options.testCa ? { testCa: options.testCa.ca } : {}),
  });
  const app = buildHttpServer({
    db: options.db,
    store: options.store,
    logger: pino({ level: 'silent' }),
    oauth,
    authenticate: tokenAuthenticator(options.db, oauth.checkAccessToken),
    demoUserId: options.demoUserId,
    ...(options.now ? { now: options.now } : {}),
  });
  app.post<{ Body: { user_id: string } }>(TEST_SIGN_IN_PATH, async (req, reply) => {
    await signIn(req, reply, req.body.user_id);
    return reply.code(204).send();
  });
  await app.listen({ port, host: '127.0.0.1' });
  return {
    base,
    oauth,
    async browserFor(userId) {
      const browser = new Browser();
      const res = await browser.request(`${base}${TEST_SIGN_IN_PATH}`, {
        method: 'POST',
        body: new URLSearchParams({ user_id: userId }),
      });
      if (res.status !== 204) throw new Error(`test sign-in answered ${res.status}`);
      return browser;
    },
    close: () => app.close(),
  };
}

/** A user agent by plain HTTP: keeps cookies (one host, paths ignored) and follows redirects by hand. */
export class Browser {
  private readonly cookies = new Map<string, string>();

  async request(url: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    if (this.cookies.size) headers.set('cookie', [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; '));
    const res = await fetch(url, { ...init, headers, redirect: 'manual' });
    for (const line of res.headers.getSetCookie()) {
      const [pair, ...attributes] = line.split(';');
      const [name, ...value] = pair!.split('=');
      const gone = attributes.some((a) => /^\s*(max-age=0|expires=thu, 01 jan 1970)/i.test(a));
      if (gone) this.cookies.delete(name!.trim());
      else this.cookies.set(name!.trim(), value.join('='));
    }
    return res;
  }

  /**
   * Follows redirects from `url` while they stay on `origin`; answers the first page that is not a
   * redirect, or the redirect that leaves (e.g. to the client's redirect_uri).
   */
  async follow(url: string, origin: string, init: RequestInit = {}): Promise<{ url: string; res: Response }> {
    let at = url;
    let res = await this.request(at, init);
    for (let hops = 0; hops < 10 && res.status >= 300 && res.status < 400; hops++) {
      const next = new URL(res.headers.get('location')!, at).href;
      if (!next.startsWith(origin)) return { url: next, res };
      at = next;
      res = await this.request(at);
    }
    return { url: at, res };
  }

  /**
   * Through the authorization server's pages from an authorization URL to the client's redirect:
   * the consent page answered with `decision` (allow, read, deny). Answers where it sent the browser.
   */
  async authorize(authorizationUrl: string, origin: string, decision = 'allow'): Promise<URL> {
    const consent = await this.follow(authorizationUrl, origin);
    if (consent.res.status >= 300 && consent.res.status < 400) return new URL(consent.url);
    const page = await consent.res.text();
    if (consent.res.status !== 200) throw new Error(`the consent page answered ${consent.res.status}: ${page}`);
    const action = /<form method="post" action="([^"]+)"/.exec(page)?.[1];
    const csrf = /name="_csrf" value="([^"]+)"/.exec(page)?.[1];
    if (!action || !csrf) throw new Error(`no consent form on ${consent.url}: ${page}`);
    const done = await this.follow(new URL(action, origin).href, origin, {
      method: 'POST',
      body: new URLSearchParams({ _csrf: csrf, decision }),
    });
    if (done.res.status < 300 || done.res.status >= 400)
      throw new Error(`consent did not redirect (${done.res.status}): ${await done.res.text()}`);
    return new URL(done.url);
  }
}

/** A PKCE pair (RFC 7636, S256). */
export function pkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/**
 * The whole code flow with PKCE on `service`: a client registered (as `clientName`, if given) and
 * allowed by `userId` on the consent page; its tokens.
 */
export async function authorizedClient(
  service: OAuthService,
  userId: string,
  clientName?: string,
): Promise<{ client_id: string; access_token: string }> {
  const redirectUri = 'http://127.0.0.1:9/callback';
  const registered = await fetch(`${service.base}/oauth/reg`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      ...(clientName ? { client_name: clientName } : {}),
      redirect_uris: [redirectUri],
      token_endpoint_auth_method: 'none',
    }),
  });
  const { client_id } = (await registered.json()) as { client_id: string };
  const { verifier, challenge } = pkce();
  const browser = await service.browserFor(userId);
  const back = await browser.authorize(
    `${service.oauth.issuer}/auth?${new URLSearchParams({
      client_id,
      redirect_uri: redirectUri,
      response_type: 'code',
      scope: 'mcp:read mcp:write',
      resource: `${service.base}/mcp`,
      code_challenge: challenge,
      code_challenge_method: 'S256',
    })}`,
    service.base,
  );
  const tokens = await fetch(`${service.base}/oauth/token`, {
    method: 'POST',
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code: back.searchParams.get('code')!,
      redirect_uri: redirectUri,
      client_id,
      code_verifier: verifier,
    }),
  });
  if (tokens.status !== 200) throw new Error(`the token endpoint answered ${tokens.status}: ${await tokens.text()}`);
  return { client_id, ...((await tokens.json()) as { access_token: string }) };
}
