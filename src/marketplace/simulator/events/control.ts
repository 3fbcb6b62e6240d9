import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { Delivery } from './delivery.js';
import type { EventHub } from './hub.js';
import type { Market } from './market.js';
import { eventTarget, RAISERS } from './raise.js';
import type { EventSources } from './sources.js';
import { EVENT_TYPES, type EventType } from './types.js';

// Control routes of the event side, for tests and benches:
//   POST /_sim/events              { type, sellerId?, profileId?, marketplaceId?, sku?, asin?, orderId?,
//                                    campaignId?, entityId?, status? }: raise one event of `type` now
//   GET  /_sim/events/deliveries   { raised, unsubscribed, queued, delivered, retried, failed, pending, deliveries }
//   POST /_sim/market/tick         { count? }: run market ticks now
//   GET / PUT /_sim/market         { paceMs }: the live market's pace (0 = stopped)

const triggerBody = z.strictObject({
  type: z.enum(EVENT_TYPES as [EventType, ...EventType[]]),
  sellerId: z.string().optional(),
  ...eventTarget.shape,
});

export function registerEventControl(
  app: FastifyInstance,
  sources: EventSources,
  hub: EventHub,
  delivery: Delivery,
  market: Market,
): void {
  app.post('/_sim/events', async (request, reply) => {
    const parsed = triggerBody.safeParse(request.body);
    if (!parsed.success) return reply.code(400).send({ error: 'invalid_event', issues: parsed.error.issues });
    const { type, sellerId, ...target } = parsed.data;
    if (sellerId !== undefined && sellerId !== sources.seller.merchantId)
      return reply.code(404).send({ error: 'not_found', detail: `no seller ${sellerId}` });
    const missing = RAISERS[type](sources, target);
    if (missing) return reply.code(404).send({ error: 'not_found', detail: missing });
    return reply.code(202).send({ type, raised: true });
  });

  app.get('/_sim/events/deliveries', async () => ({
    ...hub.stats(),
    ...delivery.stats(),
    deliveries: delivery.records(),
  }));

  app.post('/_sim/market/tick', async (request, reply) => {
    const parsed = z
      .strictObject({ count: z.number().int().min(1).max(10_000).default(1) })
      .safeParse(request.body ?? {});
    if (!parsed.success) return reply.code(400).send({ error: 'invalid_tick', issues: parsed.error.issues });
    return { happened: market.tick(parsed.data.count) };
  });
  app.get('/_sim/market', async () => ({ paceMs: market.paceMs }));
  app.put('/_sim/market', async (request, reply) => {
    const parsed = z.strictObject({ paceMs: z.number().int().min(0).max(3_600_000) }).safeParse(request.body);
    if (!parsed.success) return reply.code(400).send({ error: 'invalid_pace', issues: parsed.error.issues });
    market.setPace(parsed.data.paceMs);
    return { paceMs: market.paceMs };
  });
}
