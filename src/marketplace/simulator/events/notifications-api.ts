import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { z } from 'zod';
import { sellingError } from '../api-errors.js';
import type { FictionalSeller } from '../seller.js';
import { sellingRoute, type TokenStore } from '../tokens.js';
import { SECRET_PATTERN, type Destination, type SellingSubscription, type Subscriptions } from './subscriptions.js';
import { isSellingType, VERSIONS, type SellingType } from './types.js';

// Notifications API v1: destinations and subscriptions, in the published model's wire shapes.
// Differences, on purpose: a destination's resource is `http: { url, secret }` (a push URL and
// its Standard Webhooks secret) instead of `sqs` / `eventBridge`, and the destination calls
// take the seller's token (the real ones are grantless: the simulator has one application).
// The secret is write-only: answers show `resource.http.url` alone.

const createDestinationBody = z.object({
  name: z.string().min(1).max(256),
  resourceSpecification: z.object({
    http: z.strictObject({
      url: z.url({ protocol: /^https?$/ }),
      secret: z.string().regex(SECRET_PATTERN, 'secret must be whsec_ followed by base64 of 24 bytes or more'),
    }),
  }),
});

const createSubscriptionBody = z.object({
  payloadVersion: z.string().min(1),
  destinationId: z.string().min(1),
  processingDirective: z.unknown().optional(),
});

const destinationWire = (d: Destination) => ({
  name: d.name,
  destinationId: d.destinationId,
  resource: { http: { url: d.url } },
});
const subscriptionWire = (s: SellingSubscription) => ({
  subscriptionId: s.subscriptionId,
  payloadVersion: s.payloadVersion,
  destinationId: s.destinationId,
  ...(s.processingDirective === undefined ? {} : { processingDirective: s.processingDirective }),
});

const invalid = (reply: FastifyReply, message: string) => reply.code(400).send(sellingError('InvalidInput', message));
const notFound = (reply: FastifyReply, what: string) =>
  reply.code(404).send(sellingError('NotFound', `${what} not found.`));

export function registerNotificationsApi(
  app: FastifyInstance,
  seller: FictionalSeller,
  tokens: TokenStore,
  store: Subscriptions,
): void {
  const route = sellingRoute(tokens);
  const base = '/notifications/v1';

  app.post(`${base}/destinations`, route, async (request, reply) => {
    const body = createDestinationBody.safeParse(request.body);
    if (!body.success)
      return invalid(reply, body.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '));
    const { url, secret } = body.data.resourceSpecification.http;
    if ([...store.destinations.values()].some((d) => d.url === url))
      return reply.code(409).send(sellingError('Conflict', 'A destination with this resource already exists.'));
    const destination: Destination = { destinationId: randomUUID(), name: body.data.name, url, secret };
    store.destinations.set(destination.destinationId, destination);
    return { payload: destinationWire(destination) };
  });

  app.get(`${base}/destinations`, route, async () => ({
    payload: [...store.destinations.values()].map(destinationWire),
  }));

  app.get<{ Params: { destinationId: string } }>(
    `${base}/destinations/:destinationId`,
    route,
    async (request, reply) => {
      const destination = store.destinations.get(request.params.destinationId);
      return destination ? { payload: destinationWire(destination) } : notFound(reply, 'Destination');
    },
  );

  app.delete<{ Params: { destinationId: string } }>(
    `${base}/destinations/:destinationId`,
    route,
    async (request, reply) => {
      const { destinationId } = request.params;
      if (!store.destinations.has(destinationId)) return notFound(reply, 'Destination');
      if ([...store.selling.values()].some((s) => s.destinationId === destinationId))
        return reply.code(409).send(sellingError('Conflict', 'Subscriptions still deliver to this destination.'));
      store.destinations.delete(destinationId);
      return {};
    },
  );

  type TypeParams = { notificationType: string };
  /** The path's notification type, or a 400 already sent. */
  const typeOf = (reply: FastifyReply, type: string): SellingType | undefined => {
    if (isSellingType(type)) return type;
    void invalid(reply, `${type} is not a supported notification type.`);
    return undefined;
  };
  const ownSubscription = (type: SellingType) => store.sellingTarget(type, seller.merchantId)?.subscription;

  app.post<{ Params: TypeParams }>(`${base}/subscriptions/:notificationType`, route, async (request, reply) => {
    const type = typeOf(reply, request.params.notificationType);
    if (!type) return reply;
    const body = createSubscriptionBody.safeParse(request.body);
    if (!body.success)
      return invalid(reply, body.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '));
    if (!VERSIONS[type].payload.includes(body.data.payloadVersion))
      return invalid(reply, `payloadVersion ${body.data.payloadVersion} is not supported for ${type}.`);
    if (!store.destinations.has(body.data.destinationId)) return invalid(reply, 'destinationId names no destination.');
    const existing = ownSubscription(type);
    if (existing)
      return reply
        .code(409)
        .send(
          sellingError(
            'Conflict',
            'A subscription for this notification type already exists.',
            existing.subscriptionId,
          ),
        );
    const subscription: SellingSubscription = {
      subscriptionId: randomUUID(),
      sellerId: seller.merchantId,
      notificationType: type,
      payloadVersion: body.data.payloadVersion,
      destinationId: body.data.destinationId,
      ...(body.data.processingDirective === undefined ? {} : { processingDirective: body.data.processingDirective }),
    };
    store.selling.set(subscription.subscriptionId, subscription);
    return { payload: subscriptionWire(subscription) };
  });

  app.get<{ Params: TypeParams }>(`${base}/subscriptions/:notificationType`, route, async (request, reply) => {
    const type = typeOf(reply, request.params.notificationType);
    if (!type) return reply;
    const subscription = ownSubscription(type);
    return subscription ? { payload: subscriptionWire(subscription) } : notFound(reply, 'Subscription');
  });

  type ByIdParams = TypeParams & { subscriptionId: string };
  /** The seller's subscription the path names, or undefined with the 400 or 404 sent. */
  const byId = (reply: FastifyReply, params: ByIdParams) => {
    if (!typeOf(reply, params.notificationType)) return undefined;
    const subscription = store.selling.get(params.subscriptionId);
    if (subscription?.notificationType === params.notificationType && subscription.sellerId === seller.merchantId)
      return subscription;
    void notFound(reply, 'Subscription');
    return undefined;
  };

  app.get<{ Params: ByIdParams }>(
    `${base}/subscriptions/:notificationType/:subscriptionId`,
    route,
    async (request, reply) => {
      const subscription = byId(reply, request.params);
      return subscription ? { payload: subscriptionWire(subscription) } : reply;
    },
  );

  app.delete<{ Params: ByIdParams }>(
    `${base}/subscriptions/:notificationType/:subscriptionId`,
    route,
    async (request, reply) => {
      const subscription = byId(reply, request.params);
      if (!subscription) return reply;
      store.selling.delete(subscription.subscriptionId);
      return {};
    },
  );
}
