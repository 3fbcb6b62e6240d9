import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyBaseLogger, FastifyInstance, RawServerDefault } from 'fastify';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { recordMarketplaceEvent } from '../commands/event/record.js';
import { deliverySecret, ingestionPath } from '../domain/event/delivery.js';
import { readMessage } from '../domain/event/message.js';
import type { EventStore } from '../eventstore/port.js';
import type { Knex } from '../infra/db.js';
import { accountExists } from '../projections/accounts/queries.js';

// POST /ingest/:account_id: the marketplace pushes an account's events here (docs/marketplace-events.md).
// The answer says only whether the message is safely recorded: 2xx once it is in the event store
// (or was already), 5xx when the store could not take it so the sender retries, 4xx when retrying
// cannot help. Nothing else happens here; the read models follow the store.

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
      const message_id = headers['webhook-id'];
      if (!MESSAGE_ID.test(message_id))
        return refused(
          400,
          'invalid_message',
          `webhook-id '${message_id}' is not a message id (1-128 of A-Z a-z 0-9 . _ : -)`,
        );
      let payload: unknown;
      try {
        payload = JSON.parse(body.toString('utf8'));
      } catch {
        return refused(400, 'invalid_message', 'the body is not JSON');
      }
      const received_at = new Date().toISOString();
      const kind = readMessage(payload, received_at);
      if ('refused' in kind) return refused(400, 'unknown_type', kind.refused);
      const outcome = await recordMarketplaceEvent(deps.store, {
        account_id,
        message_id,
        ...kind,
        received_at,
        payload: payload as Record<string, unknown>,
      });
      return reply.code(200).send({ outcome });

      function refused(status: number, error: string, detail: string) {
        req.log.warn({ account_id, message_id, error, detail }, 'ingestion: message refused');
        return reply.code(status).send(refusal(error, detail));
      }
    });
  });
}
