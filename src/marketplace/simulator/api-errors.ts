import type { AdsError } from '../clients/ads-types.js';
import type { LwaError } from '../clients/lwa-types.js';
import type { SellingErrorList } from '../clients/selling-types.js';

// Each API answers errors in its own dialect; the simulator speaks all three.

/** Which API a route belongs to (fastify route config `api`). */
export type Api = 'lwa' | 'selling' | 'ads';

declare module 'fastify' {
  interface FastifyContextConfig {
    api?: Api;
  }
}

export const sellingError = (code: string, message: string, details = ''): SellingErrorList => ({
  errors: [{ code, message, details }],
});

/** The selling API's 400 for a request it cannot parse. */
export const unparsableRequest = (details?: string): SellingErrorList =>
  sellingError('InvalidInput', 'Request has missing or invalid parameters and cannot be parsed.', details);

/** The selling API's 403 for a caller it refuses. */
export const accessDenied = (details?: string): SellingErrorList =>
  sellingError('Unauthorized', 'Access to requested resource is denied.', details);

export const adsError = (code: string, details: string, requestId?: string): AdsError => ({ code, details, requestId });

export const lwaError = (error: string, description: string): LwaError => ({ error, error_description: description });

/** Failures the fault injector produces, by status class. */
export type FailureClass = 'throttled' | 'server' | 'rejected';

export function failureBody(api: Api, failure: FailureClass, status: number): unknown {
  switch (api) {
    case 'selling':
      if (failure === 'throttled')
        return sellingError('QuotaExceeded', 'You exceeded your quota for the requested resource.');
      if (failure === 'rejected') return unparsableRequest();
      return status === 503
        ? sellingError('ServiceUnavailable', 'Service is temporarily unavailable. Please try again.')
        : sellingError('InternalFailure', 'We encountered an internal error. Please try again.');
    case 'ads':
      if (failure === 'throttled')
        return adsError('THROTTLED', 'Too many requests; retry after the Retry-After delay.');
      if (failure === 'rejected') return adsError('INVALID_ARGUMENT', 'The request was rejected as invalid.');
      return adsError('INTERNAL_ERROR', 'Internal server error.');
    case 'lwa':
      if (failure === 'rejected')
        return lwaError('invalid_request', 'The request is missing a required parameter or is otherwise malformed.');
      return lwaError('server_error', 'The authorization server encountered an unexpected condition.');
  }
}
