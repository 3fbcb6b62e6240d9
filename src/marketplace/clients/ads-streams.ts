import { z } from 'zod';
import type { AdsCall } from './ads.js';
import {
  createStreamSubscriptionResponseSchema,
  getStreamSubscriptionResponseSchema,
  listStreamSubscriptionsResponseSchema,
  STREAM_MEDIA_TYPE,
  type CreateStreamSubscriptionRequest,
  type StreamSubscription,
} from './ads-streams-types.js';

// Amazon Marketing Stream subscriptions of one profile: create (PENDING_CONFIRMATION until the
// provider confirms the destination), read, list, and update (notes, or ARCHIVED to stop).

export interface StreamsClient {
  create(profileId: string, request: CreateStreamSubscriptionRequest): Promise<{ subscriptionId: string }>;
  get(profileId: string, subscriptionId: string): Promise<StreamSubscription>;
  /** Every subscription of the profile, following nextToken. */
  list(profileId: string): Promise<StreamSubscription[]>;
  update(profileId: string, subscriptionId: string, changes: { notes?: string; status?: 'ARCHIVED' }): Promise<void>;
  archive(profileId: string, subscriptionId: string): Promise<void>;
}

const path = (id?: string) => `/streams/subscriptions${id === undefined ? '' : `/${encodeURIComponent(id)}`}`;

export function createStreamsClient(call: AdsCall): StreamsClient {
  const update: StreamsClient['update'] = async (profileId, subscriptionId, changes) => {
    // the answer is 200 with no body: read as bytes, never parsed
    await call({
      method: 'PUT',
      path: path(subscriptionId),
      profileId,
      mediaType: STREAM_MEDIA_TYPE,
      json: changes,
      schema: z.unknown(),
      responseType: 'bytes',
    });
  };
  return {
    async create(profileId, request) {
      const answer = await call({
        method: 'POST',
        path: path(),
        profileId,
        mediaType: STREAM_MEDIA_TYPE,
        json: request,
        schema: createStreamSubscriptionResponseSchema,
        // the clientRequestToken makes a repeated create harmless
        idempotent: true,
      });
      return { subscriptionId: answer.subscriptionId };
    },
    async get(profileId, subscriptionId) {
      const answer = await call({
        method: 'GET',
        path: path(subscriptionId),
        profileId,
        mediaType: STREAM_MEDIA_TYPE,
        schema: getStreamSubscriptionResponseSchema,
      });
      return answer.subscription;
    },
    async list(profileId) {
      const all: StreamSubscription[] = [];
      let token: string | undefined;
      do {
        const query = token ? `?startingToken=${encodeURIComponent(token)}` : '';
        const page = await call({
          method: 'GET',
          path: `${path()}${query}`,
          profileId,
          mediaType: STREAM_MEDIA_TYPE,
          schema: listStreamSubscriptionsResponseSchema,
        });
        all.push(...page.subscriptions);
        token = page.nextToken;
      } while (token);
      return all;
    },
    update,
    archive: (profileId, subscriptionId) => update(profileId, subscriptionId, { status: 'ARCHIVED' }),
  };
}
