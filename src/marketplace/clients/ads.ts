import { listProfilesResponseSchema, type Profile } from './ads-types.js';
import { createAdsReportingClient, type AdsReportingClient } from './ads-reporting.js';
import { createSpClient, type SpClient } from './ads-sp.js';
import { createStreamsClient, type StreamsClient } from './ads-streams.js';
import { withAccessToken, type ConnectionOptions } from './authorized.js';
import { createHttp, endpointUrl, type HttpRequest } from './http.js';

export interface AdsClient {
  listProfiles(): Promise<Profile[]>;
  /** Sponsored Products v3 entities. */
  sp: SpClient;
  /** Asynchronous reporting v3. */
  reporting: AdsReportingClient;
  /** Amazon Marketing Stream subscriptions. */
  streams: StreamsClient;
}

/** One authorized ads API call: `profileId` goes out as Amazon-Advertising-API-Scope, and
 * `mediaType` (a v3 vendor type) as both Content-Type and Accept. */
export type AdsCall = <T>(
  request: Omit<HttpRequest<T>, 'api' | 'url' | 'headers'> & {
    path: string;
    profileId?: string;
    mediaType?: string;
    headers?: Record<string, string>;
  },
) => Promise<T>;

export function createAdsClient(options: ConnectionOptions): AdsClient {
  const http = createHttp(options.retry);
  const call: AdsCall = ({ path, profileId, mediaType, headers, ...request }) =>
    withAccessToken(options.lwa, options.refreshToken, (accessToken) =>
      http({
        ...request,
        api: 'ads API',
        url: endpointUrl(options.endpoint, path),
        headers: {
          authorization: `Bearer ${accessToken}`,
          'amazon-advertising-api-clientid': options.lwa.clientId,
          ...(profileId ? { 'amazon-advertising-api-scope': profileId } : {}),
          ...(mediaType ? { 'content-type': mediaType, accept: mediaType } : {}),
          ...headers,
        },
      }),
    );
  return {
    listProfiles: () => call({ method: 'GET', path: '/v2/profiles', schema: listProfilesResponseSchema }),
    sp: createSpClient(call),
    reporting: createAdsReportingClient(call, http),
    streams: createStreamsClient(call),
  };
}
