import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyReply, preHandlerAsyncHookHandler } from 'fastify';
import { z } from 'zod';
import { STREAM_MEDIA_TYPE } from '../../clients/ads-streams-types.js';
import { hasMediaType, scopedProfile, v3Error } from '../ads/scope.js';
import { SECRET_PATTERN, type StreamStatus, type StreamSubscription, type Subscriptions } from './subscriptions.js';
import { DATASET_IDS, type DatasetId } from './types.js';

// Amazon Marketing Stream subscriptions (POST/GET /streams/subscriptions, GET/PUT
// /streams/subscriptions/{id}) for the profile in Amazon-Advertising-API-Scope. A new
// subscription is PENDING_CONFIRMATION until the simulator confirms it `confirmDelayMs` later
// (ACTIVE, or FAILED_CONFIRMATION when told to fail); only ACTIVE ones receive messages. The
// destination is `{ httpDestination: { url, secret } }`, our stand-in for the SQS / Firehose
// ARNs; the secret is write-only. Control: GET / PUT /_sim/streams { confirmDelayMs, failConfirmation }.

const createBody = z.object({
  clientRequestToken: z.string().min(22).max(36),
  dataSetId: z.string(),
  destination: z.object({
    httpDestination: z.strictObject({
      url: z.url({ protocol: /^https?$/ }),
      secret: z.string().regex(SECRET_PATTERN, 'secret must be whsec_ followed by base64 of 24 bytes or more'),
    }),
  }),
  notes: z.string().max(128).optional(),
});
const updateBody = z.strictObject({ status: z.literal('ARCHIVED').optional(), notes: z.string().max(128).optional() });
const controlBody = z.strictObject({
  confirmDelayMs: z.number().int().min(0).max(600_000).optional(),
  failConfirmation: z.boolean().optional(),
});

export interface StreamControl {
  confirmDelayMs: number;
  /** New subscriptions end FAILED_CONFIRMATION instead of ACTIVE. */
  failConfirmation: boolean;
}

const wire = (s: StreamSubscription) => ({
  subscriptionId: s.subscriptionId,
  dataSetId: s.dataSetId,
  status: s.status,
  createdDate: s.createdDate,
  updatedDate: s.updatedDate,
  destination: { httpDestination: { url: s.url } },
  ...(s.notes === undefined ? {} : { notes: s.notes }),
});

/** Registers the routes in an ads plugin scope (vendor JSON parsing, ads guards); returns a stop for pending confirmations. */
export function registerStreamApi(
  scope: FastifyInstance,
  store: Subscriptions,
  guards: preHandlerAsyncHookHandler[],
  control: StreamControl,
  now: () => number,
): () => void {
  const route = { config: { api: 'ads' as const }, preHandler: guards };
  const timers = new Set<NodeJS.Timeout>();
  const answer = (reply: FastifyReply, status: number, body: unknown) =>
    reply.code(status).type(STREAM_MEDIA_TYPE).send(body);
  const iso = () => new Date(now()).toISOString();
  const setStatus = (s: StreamSubscription, status: StreamStatus) => {
    s.status = status;
    s.updatedDate = iso();
  };
  const issues = (error: z.ZodError) => error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');

  scope.post('/streams/subscriptions', route, async (request, reply) => {
    if (!hasMediaType(request, reply, STREAM_MEDIA_TYPE)) return reply;
    const body = createBody.safeParse(request.body);
    if (!body.success) return answer(reply, 400, v3Error('INVALID_ARGUMENT', issues(body.error)));
    const { clientRequestToken, dataSetId, destination, notes } = body.data;
    if (!(DATASET_IDS as readonly string[]).includes(dataSetId))
      return answer(reply, 400, v3Error('INVALID_ARGUMENT', `Unknown dataSetId ${dataSetId}`));
    const profileId = scopedProfile(request).profileId;
    const all = [...store.streams.values()].filter((s) => s.profileId === profileId);
    // the same clientRequestToken is the same request: answered again, not created twice
    const replay = all.find((s) => s.clientRequestToken === clientRequestToken);
    if (replay) return answer(reply, 200, { clientRequestToken, subscriptionId: replay.subscriptionId });
    const { url, secret } = destination.httpDestination;
    if (all.some((s) => s.dataSetId === dataSetId && s.url === url && s.status !== 'ARCHIVED'))
      return answer(reply, 409, v3Error('CONFLICT', `A subscription to ${dataSetId} for this destination exists`));
    const subscription: StreamSubscription = {
      subscriptionId: `amzn1.fead.cs1.${randomUUID()}`,
      profileId,
      dataSetId: dataSetId as DatasetId,
      clientRequestToken,
      url,
      secret,
      status: 'PENDING_CONFIRMATION',
      createdDate: iso(),
      updatedDate: iso(),
      ...(notes === undefined ? {} : { notes }),
    };
    store.streams.set(subscription.subscriptionId, subscription);
    const fail = control.failConfirmation;
    const timer = setTimeout(() => {
      timers.delete(timer);
      if (subscription.status === 'PENDING_CONFIRMATION')
        setStatus(subscription, fail ? 'FAILED_CONFIRMATION' : 'ACTIVE');
    }, control.confirmDelayMs);
    timers.add(timer);
    return answer(reply, 200, { clientRequestToken, subscriptionId: subscription.subscriptionId });
  });

  scope.get<{ Querystring: { maxResults?: string; startingToken?: string } }>(
    '/streams/subscriptions',
    route,
    async (request, reply) => {
      const profileId = scopedProfile(request).profileId;
      const all = [...store.streams.values()].filter((s) => s.profileId === profileId);
      const max = Number(request.query.maxResults ?? 5000);
      const start = Number(request.query.startingToken ?? 0);
      if (!Number.isInteger(max) || max < 1 || max > 5000 || !Number.isInteger(start) || start < 0)
        return answer(reply, 400, v3Error('INVALID_ARGUMENT', 'maxResults or startingToken is invalid'));
      const next = start + max < all.length ? { nextToken: String(start + max) } : {};
      return answer(reply, 200, { subscriptions: all.slice(start, start + max).map(wire), ...next });
    },
  );

  const own = (request: { params: { subscriptionId: string } }, profileId: string) => {
    const s = store.streams.get(request.params.subscriptionId);
    return s?.profileId === profileId ? s : undefined;
  };

  scope.get<{ Params: { subscriptionId: string } }>(
    '/streams/subscriptions/:subscriptionId',
    route,
    async (request, reply) => {
      const s = own(request, scopedProfile(request).profileId);
      return s
        ? answer(reply, 200, { subscription: wire(s) })
        : answer(reply, 404, v3Error('RESOURCE_NOT_FOUND', 'Subscription not found'));
    },
  );

  scope.put<{ Params: { subscriptionId: string } }>(
    '/streams/subscriptions/:subscriptionId',
    route,
    async (request, reply) => {
      if (!hasMediaType(request, reply, STREAM_MEDIA_TYPE)) return reply;
      const body = updateBody.safeParse(request.body ?? {});
      if (!body.success) return answer(reply, 400, v3Error('INVALID_ARGUMENT', issues(body.error)));
      const s = own(request, scopedProfile(request).profileId);
      if (!s) return answer(reply, 404, v3Error('RESOURCE_NOT_FOUND', 'Subscription not found'));
      if (body.data.notes !== undefined) s.notes = body.data.notes;
      if (body.data.status) setStatus(s, body.data.status);
      else s.updatedDate = iso();
      return reply.code(200).send();
    },
  );

  scope.get('/_sim/streams', async () => ({ ...control, subscriptions: [...store.streams.values()].map(wire) }));
  scope.put('/_sim/streams', async (request, reply) => {
    const parsed = controlBody.safeParse(request.body ?? {});
    if (!parsed.success) return reply.code(400).send({ error: 'invalid_control', issues: parsed.error.issues });
    Object.assign(control, parsed.data);
    return control;
  });

  return () => {
    for (const timer of timers) clearTimeout(timer);
  };
}
