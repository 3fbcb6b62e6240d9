import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyBaseLogger, FastifyInstance, RawServerDefault } from 'fastify';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { recordMarketplaceEvent, recordMarketplaceEvents } from '../commands/event/record.js';
import { BATCH_CONTENT_TYPE, BATCH_MAX, deliverySecret, ingestionPath } from '../domain/event/delivery.js';
import type { MarketplaceEventData } from '../domain/event/events.js';
import { readMessage } from '../domain/event/message.js';
import type { EventStore } from '../eventstore/port.js';
import type { Knex } from '../infra/db.js';
import { accountExists } from '../projections/accounts/queries.js';

// POST /ingest/:account_id: the marketplace pushes an account's events here (docs/marketplace-events.md),
// one message per push or a batch of them (BATCH_CONTENT_TYPE, as a queue hands them over). The
// answer says only whether each message is safely recorded: 2xx once it is in the event store (or
// was already), 5xx when the store could not take it so the sender retries (a batch is one write:
// all or nothing), 4xx when retrying cannot help. Nothing else happens here; the read models
// follow the store.

export interface IngestionDeps {
  db: Knex;
  store: EventStore;
  /** the service secret each account's signing secret is derived from */
  secret: string;
  /** messages are small; a larger body is refused before it is read whole */
  bodyLimit?: number;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
// the id becomes part of a stream name
const MESSAGE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

const refusal = (error: string, detail: string) => ({ error, detail });

type Refusal = { status: 400; error: 'invalid_message' | 'unknown_type'; detail: string };

/** One message as the event it is recorded as, or why it is refused (the same for a push and a batch entry). */
function eventOf(
  account_id: string,
  message_id: unknown,
  payload: unknown,
  received_at: string,
): MarketplaceEventData | Refusal {
  if (typeof message_id !== 'string' || !MESSAGE_ID.test(message_id))
    return {
      status: 400,
      error: 'invalid_message',
      detail: `message id '${String(message_id)}' is not a message id (1-128 of A-Z a-z 0-9 . _ : -)`,
    };
  const kind = readMessage(payload, received_at);
  if ('refused' in kind) return { status: 400, error: 'unknown_type', detail: kind.refused };
  return { account_id, message_id, ...kind, received_at, payload: payload as Record<string, unknown> };
}

/** A batch's messages, or why the batch is none. */
function batchOf(body: unknown): Array<{ id: unknown; body: unknown }> | string {
  const messages = (body as { messages?: unknown } | null)?.messages;
  if (!Array.isArray(messages)) return 'a batch is an object whose `messages` is an array';
  if (messages.length === 0 || messages.length > BATCH_MAX)
    return `a batch holds 1 to ${BATCH_MAX} messages, not ${messages.length}`;
  const bad = messages.findIndex((m) => typeof m !== 'object' || m === null || Array.isArray(m));
  if (bad >= 0) return `messages[${bad}] is not an object { id, body }`;
  return messages as Array<{ id: unknown; body: unknown }>;
}

export function registerIngestionRoute<L extends FastifyBaseLogger>(
  app: FastifyInstance<RawServerDefault, IncomingMessage, ServerResponse, L>,
  deps: IngestionDeps,
): void {
  // Known accounts only ever get added: remembering them spares the read model a query per message.
  const known = new Set<string>();
  const exists = async (account: string) =>
    known.has(account) || ((await accountExists(deps.db, account)) && !!known.add(account));

  // Encapsulated: the raw bytes are what was signed, so this route alone takes its body unparsed.
  void app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: deps.bodyLimit ?? 1_048_576 }, (_req, body, done) =>
      done(null, body),
    );
    scope.post<{ Params: { account_id: string } }>(ingestionPath(':account_id'), async (req, reply) => {
      const account_id = req.params.account_id.toLowerCase();
      const body = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
      const headers = {
        'webhook-id': String(req.headers['webhook-id'] ?? ''),
        'webhook-timestamp': String(req.headers['webhook-timestamp'] ?? ''),
        'webhook-signature': String(req.headers['webhook-signature'] ?? ''),
      };
      try {
        new Webhook(deliverySecret(deps.secret, account_id)).verify(body, headers, { jsonParse: false });
      } catch (err) {
        if (!(err instanceof WebhookVerificationError)) throw err;
        req.log.warn({ account_id, reason: err.message }, 'ingestion: signature refused');
        return reply.code(401).send(refusal('invalid_signature', err.message));
      }
      // only a sender holding the account's secret learns whether the account exists
      if (!UUID.test(account_id) || !(await exists(account_id)))
        return reply.code(404).send(refusal('account_not_found', `no account has the id '${account_id}'`));
      const refused = (status: number, error: string, detail: string) => {
        req.log.warn({ account_id, push_id: headers['webhook-id'], error, detail }, 'ingestion: refused');
        return reply.code(status).send(refusal(error, detail));
      };
      let payload: unknown;
      try {
        payload = JSON.parse(body.toString('utf8'));
      } catch {
        return refused(400, 'invalid_message', 'the body is not JSON');
      }
      const received_at = new Date().toISOString();
      const batch =
        String(req.headers['content-type'] ?? '')
          .split(';')[0]!
          .trim() === BATCH_CONTENT_TYPE;
      if (!batch) {
        const event = eventOf(account_id, headers['webhook-id'], payload, received_at);
        if ('error' in event) return refused(event.status, event.error, event.detail);
        return reply.code(200).send({ outcome: await recordMarketplaceEvent(deps.store, event) });
      }
      const messages = batchOf(payload);
      if (typeof messages === 'string') return refused(400, 'invalid_batch', messages);
      // each message on its own: a refused one is answered as such, the others are recorded in one write
      const entries = messages.map((m) => ({ id: m.id, event: eventOf(account_id, m.id, m.body, received_at) }));
      const valid = entries.flatMap((e) => ('error' in e.event ? [] : [e.event]));
      const recorded = await recordMarketplaceEvents(deps.store, account_id, valid);
      let next = 0;
      const outcomes = entries.map(({ id, event }) =>
        'error' in event ? { id, error: event.error, detail: event.detail } : { id, outcome: recorded[next++]! },
      );
      const refusals = outcomes.filter((o) => 'error' in o);
      if (refusals.length > 0) req.log.warn({ account_id, refusals }, 'ingestion: messages of a batch refused');
      return reply.code(200).send({ outcomes });
    });
  });
}
