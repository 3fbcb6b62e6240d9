import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  auth,
  type OAuthClientMetadata,
  type OAuthClientProvider,
  type OAuthDiscoveryState,
  type StoredOAuthClientInformation,
  type StoredOAuthTokens,
} from '@modelcontextprotocol/client';

// An MCP client's side of OAuth as the SDK 2.x runs it (`auth()`): an in-memory provider that keeps
// what the SDK asks it to keep, a loopback callback that catches the redirect with the code (as a
// desktop client's does), and a redirect handler a test gives to drive a browser through the
// service's sign-in and consent pages.

/** What came back to the callback: its query, by state. */
export interface CallbackHit {
  code: string | null;
  iss: string | null;
  state: string | null;
  error: string | null;
}

export interface LoopbackCallback {
  /** e.g. http://127.0.0.1:53123/callback */
  url: string;
  /** the hit that carried `state`, if one came */
  hit(state: string): CallbackHit | undefined;
  close(): Promise<void>;
}

/** A loopback HTTP server that records every redirect to /callback and answers a small page. */
export async function loopbackCallback(): Promise<LoopbackCallback> {
  const hits = new Map<string, CallbackHit>();
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (url.pathname !== '/callback') return res.writeHead(404).end();
    const q = url.searchParams;
    const hit = { code: q.get('code'), iss: q.get('iss'), state: q.get('state'), error: q.get('error') };
    if (hit.state) hits.set(hit.state, hit);
    res
      .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
      .end('<h1>Signed in</h1><p>Back to your client.</p>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/callback`,
    hit: (state) => hits.get(state),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

export interface OAuthClientOptions {
  name: string;
  callback: LoopbackCallback;
  /** the https URL of its Client ID Metadata Document; unset, the client registers dynamically */
  clientMetadataUrl?: string;
  /** how it authenticates at the token endpoint when it registers (a confidential client gets a secret) */
  tokenEndpointAuthMethod?: 'none' | 'client_secret_basic' | 'client_secret_post';
  /** takes the browser from the authorization URL to the callback (signing in and consenting on the way) */
  redirect(authorizationUrl: URL): Promise<void>;
}

/** The SDK's OAuthClientProvider, in memory. */
export class TestOAuthClient implements OAuthClientProvider {
  private information: StoredOAuthClientInformation | undefined;
  private saved: StoredOAuthTokens | undefined;
  private verifier = '';
  private discovery: OAuthDiscoveryState | undefined;
  /** the state of the last authorization request */
  lastState = '';
  /** the authorization codes it was given */
  readonly codes: string[] = [];

  constructor(private readonly options: OAuthClientOptions) {}

  get redirectUrl(): string {
    return this.options.callback.url;
  }

  get clientMetadataUrl(): string | undefined {
    return this.options.clientMetadataUrl;
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: this.options.name,
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: this.options.tokenEndpointAuthMethod ?? 'none',
    };
  }

  /** The document served at clientMetadataUrl (draft: client_id is that URL; no secret). */
  metadataDocument(): Record<string, unknown> {
    return { client_id: this.options.clientMetadataUrl, application_type: 'native', ...this.clientMetadata };
  }

  state(): string {
    this.lastState = randomBytes(16).toString('base64url');
    return this.lastState;
  }

  clientInformation() {
    return this.information;
  }
  saveClientInformation(information: StoredOAuthClientInformation) {
    this.information = information;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: StoredOAuthTokens) {
    this.saved = tokens;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
  saveDiscoveryState(state: OAuthDiscoveryState) {
    this.discovery = state;
  }
  discoveryState() {
    return this.discovery;
  }

  redirectToAuthorization(authorizationUrl: URL): Promise<void> {
    return this.options.redirect(authorizationUrl);
  }

  /**
   * The whole flow: `auth()` discovers, identifies the client (metadata document or registration)
   * and redirects; the browser comes back to the callback; `auth()` redeems the code.
   */
  async signIn(serverUrl: string): Promise<StoredOAuthTokens> {
    const started = await auth(this, { serverUrl });
    if (started !== 'REDIRECT') throw new Error(`auth() answered ${started} before any consent`);
    const hit = this.options.callback.hit(this.lastState);
    if (!hit) throw new Error('the browser never reached the callback with our state');
    if (!hit.code) throw new Error(`the authorization server answered ${hit.error ?? 'no code'}`);
    this.codes.push(hit.code);
    const done = await auth(this, { serverUrl, authorizationCode: hit.code, ...(hit.iss ? { iss: hit.iss } : {}) });
    if (done !== 'AUTHORIZED') throw new Error(`auth() answered ${done} to the code`);
    return this.saved!;
  }

  /** What this client holds that is secret, by name: its tokens, its codes and, if it registered as confidential, its secret. */
  secrets(): Record<string, string> {
    const named: Array<[string, string | undefined]> = [
      ['access token', this.saved?.access_token],
      ['refresh token', this.saved?.refresh_token],
      ['client secret', this.information?.client_secret],
      ...this.codes.map((code, i): [string, string] => [`authorization code ${i}`, code]),
    ];
    return Object.fromEntries(named.filter((entry): entry is [string, string] => !!entry[1]));
  }
}
