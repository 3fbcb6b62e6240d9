import type { z } from 'zod';
import { withAccessToken } from './authorized.js';
import { createHttp, endpointUrl, type RetryPolicy } from './http.js';
import type { LwaClient } from './lwa.js';
import {
  getAccountResponseSchema,
  getMarketplaceParticipationsResponseSchema,
  type Account,
  type MarketplaceParticipation,
} from './selling-types.js';

export interface SellingClientOptions {
  /** Regional selling API endpoint, e.g. https://sellingpartnerapi-na.amazon.com. */
  endpoint: string;
  lwa: LwaClient;
  /** The selling connection's refresh token. */
  refreshToken: string;
  retry?: Partial<RetryPolicy>;
}

export interface SellingClient {
  getMarketplaceParticipations(): Promise<MarketplaceParticipation[]>;
  getAccount(): Promise<Account>;
}

export function createSellingClient(options: SellingClientOptions): SellingClient {
  const http = createHttp(options.retry);
  const get = <T>(path: string, schema: z.ZodType<T>) =>
    withAccessToken(options.lwa, options.refreshToken, (accessToken) =>
      http({
        api: 'selling API',
        method: 'GET',
        url: endpointUrl(options.endpoint, path),
        headers: { 'x-amz-access-token': accessToken },
        schema,
      }),
    );
  return {
    async getMarketplaceParticipations() {
      return (await get('/sellers/v1/marketplaceParticipations', getMarketplaceParticipationsResponseSchema)).payload;
    },
    async getAccount() {
      return (await get('/sellers/v1/account', getAccountResponseSchema)).payload;
    },
  };
}
