import { MarketplaceError } from './errors.js';
import type { RetryPolicy } from './http.js';
import type { LwaClient } from './lwa.js';

/** What a client needs to call a regional API as one connection (ads or selling). */
export interface ConnectionOptions {
  /** Regional API endpoint, e.g. https://advertising-api.amazon.com, https://sellingpartnerapi-na.amazon.com. */
  endpoint: string;
  /** The ads API also sends its clientId as Amazon-Advertising-API-ClientId. */
  lwa: LwaClient;
  /** The connection's refresh token. */
  refreshToken: string;
  retry?: Partial<RetryPolicy>;
}

/** Runs an API call with the connection's access token. When the API refuses the token
 * (revoked, or expired before its announced expiry), exchanges once more and tries again. */
export async function withAccessToken<T>(
  lwa: LwaClient,
  refreshToken: string,
  call: (accessToken: string) => Promise<T>,
): Promise<T> {
  const accessToken = await lwa.getAccessToken(refreshToken);
  try {
    return await call(accessToken);
  } catch (error) {
    if (!(error instanceof MarketplaceError) || (error.status !== 401 && error.status !== 403)) throw error;
    lwa.invalidate(refreshToken, accessToken);
    return call(await lwa.getAccessToken(refreshToken));
  }
}
