import { MarketplaceError } from './errors.js';
import { createHttp, type RetryPolicy } from './http.js';
import { lwaTokenResponseSchema } from './lwa-types.js';

// Login with Amazon: exchanges a connection's refresh token for an access token and keeps
// it until shortly before it expires. One exchange at a time per refresh token. It also redeems
// the authorization code a seller's consent gives (the authorization_code grant) for the
// connection's refresh token.

export interface LwaClientOptions {
  /** Full URL of the token endpoint, e.g. https://api.amazon.com/auth/o2/token. */
  tokenUrl: string;
  clientId: string;
  clientSecret: string;
  retry?: Partial<RetryPolicy>;
  /** Renew this long before the token's expiry. */
  refreshMarginMs?: number;
  now?: () => number;
}

/** What a redeemed authorization code gives: the connection's refresh token (keep it secret). */
export interface LwaGrant {
  refreshToken: string;
  accessToken: string;
}

export interface LwaClient {
  readonly clientId: string;
  /** Redeems an authorization code, once, for the redirect URI it was issued to. Never retried:
   * a code is single use, so a lost answer cannot be asked for again. */
  exchangeCode(code: string, redirectUri: string): Promise<LwaGrant>;
  getAccessToken(refreshToken: string): Promise<string>;
  /** Forget a token the API refused (revoked, or expired early); only if it is still the cached one. */
  invalidate(refreshToken: string, accessToken: string): void;
}

interface Cached {
  accessToken: string;
  renewAt: number;
}

export function createLwaClient(options: LwaClientOptions): LwaClient {
  const http = createHttp(options.retry);
  const now = options.now ?? Date.now;
  const margin = options.refreshMarginMs ?? 60_000;
  const cache = new Map<string, Cached>();
  const pending = new Map<string, Promise<string>>();

  async function exchange(refreshToken: string): Promise<string> {
    const token = await http({
      api: 'LWA',
      method: 'POST',
      url: options.tokenUrl,
      form: {
        grant_type: 'refresh_token',
        refresh_token: refreshToken,
        client_id: options.clientId,
        client_secret: options.clientSecret,
      },
      schema: lwaTokenResponseSchema,
      // A refresh grant changes nothing on the provider's side: safe to repeat.
      idempotent: true,
    });
    cache.set(refreshToken, { accessToken: token.access_token, renewAt: now() + token.expires_in * 1000 - margin });
    return token.access_token;
  }

  return {
    clientId: options.clientId,
    async exchangeCode(code, redirectUri) {
      const token = await http({
        api: 'LWA',
        method: 'POST',
        url: options.tokenUrl,
        form: {
          grant_type: 'authorization_code',
          code,
          redirect_uri: redirectUri,
          client_id: options.clientId,
          client_secret: options.clientSecret,
        },
        schema: lwaTokenResponseSchema,
        idempotent: false,
      });
      if (!token.refresh_token)
        throw new MarketplaceError({
          status: 200,
          code: 'invalid_response',
          message: 'LWA answered the authorization code without a refresh token',
          retryable: false,
        });
      cache.set(token.refresh_token, {
        accessToken: token.access_token,
        renewAt: now() + token.expires_in * 1000 - margin,
      });
      return { refreshToken: token.refresh_token, accessToken: token.access_token };
    },
    getAccessToken(refreshToken) {
      const cached = cache.get(refreshToken);
      if (cached && now() < cached.renewAt) return Promise.resolve(cached.accessToken);
      let inFlight = pending.get(refreshToken);
      if (!inFlight) {
        inFlight = exchange(refreshToken).finally(() => pending.delete(refreshToken));
        pending.set(refreshToken, inFlight);
      }
      return inFlight;
    },
    invalidate(refreshToken, accessToken) {
      if (cache.get(refreshToken)?.accessToken === accessToken) cache.delete(refreshToken);
    },
  };
}
