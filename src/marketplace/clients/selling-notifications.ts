import { z } from 'zod';
import { segment, type SellingCall } from './selling-call.js';
import {
  destinationSchema,
  emptyAnswerSchema,
  payloadOf,
  subscriptionSchema,
  type CreateSubscriptionRequest,
  type Destination,
  type DestinationResourceSpecification,
  type Subscription,
} from './selling-notifications-types.js';

// Notifications API v1: where notifications go (destinations) and which the seller receives
// there (one subscription per notification type).

export interface NotificationsClient {
  createDestination(name: string, resourceSpecification: DestinationResourceSpecification): Promise<Destination>;
  getDestinations(): Promise<Destination[]>;
  getDestination(destinationId: string): Promise<Destination>;
  deleteDestination(destinationId: string): Promise<void>;
  createSubscription(notificationType: string, request: CreateSubscriptionRequest): Promise<Subscription>;
  /** The seller's subscription to this type (404 when there is none). */
  getSubscription(notificationType: string): Promise<Subscription>;
  getSubscriptionById(notificationType: string, subscriptionId: string): Promise<Subscription>;
  deleteSubscriptionById(notificationType: string, subscriptionId: string): Promise<void>;
}

const BASE = '/notifications/v1';

export function createNotificationsClient(call: SellingCall): NotificationsClient {
  const subscriptionPath = (type: string, id?: string) =>
    `${BASE}/subscriptions/${segment(type)}${id === undefined ? '' : `/${segment(id)}`}`;
  return {
    async createDestination(name, resourceSpecification) {
      const json = { name, resourceSpecification };
      const answer = await call({
        method: 'POST',
        path: `${BASE}/destinations`,
        json,
        schema: payloadOf(destinationSchema),
      });
      return answer.payload;
    },
    async getDestinations() {
      const answer = await call({
        method: 'GET',
        path: `${BASE}/destinations`,
        schema: payloadOf(z.array(destinationSchema)),
      });
      return answer.payload;
    },
    async getDestination(destinationId) {
      const path = `${BASE}/destinations/${segment(destinationId)}`;
      return (await call({ method: 'GET', path, schema: payloadOf(destinationSchema) })).payload;
    },
    async deleteDestination(destinationId) {
      await call({
        method: 'DELETE',
        path: `${BASE}/destinations/${segment(destinationId)}`,
        schema: emptyAnswerSchema,
      });
    },
    async createSubscription(notificationType, request) {
      const path = subscriptionPath(notificationType);
      return (await call({ method: 'POST', path, json: request, schema: payloadOf(subscriptionSchema) })).payload;
    },
    async getSubscription(notificationType) {
      const path = subscriptionPath(notificationType);
      return (await call({ method: 'GET', path, schema: payloadOf(subscriptionSchema) })).payload;
    },
    async getSubscriptionById(notificationType, subscriptionId) {
      const path = subscriptionPath(notificationType, subscriptionId);
      return (await call({ method: 'GET', path, schema: payloadOf(subscriptionSchema) })).payload;
    },
    async deleteSubscriptionById(notificationType, subscriptionId) {
      await call({
        method: 'DELETE',
        path: subscriptionPath(notificationType, subscriptionId),
        schema: emptyAnswerSchema,
      });
    },
  };
}
