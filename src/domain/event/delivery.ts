import { createHmac } from 'node:crypto';

// Where and how the marketplace pushes an account's events to the service: one ingestion URL per
// account, signed with a secret derived from the service's own secret and the account id (Standard
// Webhooks format), so no secret is stored and a leaked one opens a single account's endpoint.

/** The ingestion path of an account's events, under the service's public base URL. */
export const ingestionPath = (account_id: string): string => `/ingest/${account_id}`;

/** The account's signing secret, in the `whsec_<base64>` form Standard Webhooks libraries take. */
export const deliverySecret = (serviceSecret: string, account_id: string): string =>
  `whsec_${createHmac('sha256', serviceSecret).update(`ingestion:${account_id}`).digest('base64')}`;

/**
 * A push of several messages, as a queue hands them over: `{ "messages": [{ "id", "body" }] }`,
 * each `body` one message as a single push carries it and `id` its message id; signed as one.
 */
export const BATCH_CONTENT_TYPE = 'application/vnd.marketplace-events.batch+json';
/** Messages in one batch at most. */
export const BATCH_MAX = 100;
