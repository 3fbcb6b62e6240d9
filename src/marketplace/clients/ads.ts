import { listProfilesResponseSchema, type Profile } from './ads-types.js';
import { withAccessToken } from './authorized.js';
import { createHttp, endpointUrl, type RetryPolicy } from './http.js';
import type { LwaClient } from './lwa.js';

export interface AdsClientOptions {
  /** Regional advertising API endpoint, e.g. https://advertising-api.amazon.com. */
  endpoint: string;
  /** Its clientId is also sent as Amazon-Advertising-API-ClientId. */
  lwa: LwaClient;
  /** The advertising connection's refresh token. */
  refreshToken: string;
  retry?: Partial<RetryPolicy>;
}

export interface AdsClient {
  listProfiles(): Promise<Profile[]>;
}

export function createAdsClient(options: AdsClientOptions): AdsClient {
  const http = createHttp(options.retry);
  return {
    listProfiles() {
      return withAccessToken(options.lwa, options.refreshToken, (accessToken) =>
        http({
          api: 'ads API',
          method: 'GET',
          url: endpointUrl(options.endpoint, '/v2/profiles'),
          headers: { authorization: `Bearer ${accessToken}`, 'amazon-advertising-api-clientid': options.lwa.clientId },
          schema: listProfilesResponseSchema,
        }),
      );
    },
  };
}
