import { MarketplaceError } from './errors.js';
import type { LwaClient } from './lwa.js';

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
