import { z } from 'zod';
import { DomainError } from '../../domain/shared/errors.js';
import { loadAccounts } from '../../projections/accounts/queries.js';
import { findEvent } from '../../projections/events/queries.js';
import { eventRow, eventRowOutput } from '../events.js';
import { readTool } from '../tool.js';

// Spec 4.3: one event with its full payload. Another user's event, or one past retention, reads
// the same as a missing one.

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const getEvent = readTool('get_event', 'Get event', {
  description:
    'Reads one event by id (from list_events): the list row (stream_type, synthetic, occurred_at, summary, listings, ads_entities) plus `payload`, the message exactly as the marketplace sent it (for a synthetic row: the push answer or the listing read). Use it to replay the event with run_automation. Events are kept 1 month from receipt.',
  input: { event_id: z.string().trim().min(1).describe('the event id, from list_events') },
  output: eventRowOutput.extend({
    payload: z
      .record(z.string(), z.unknown())
      .describe(
        'the message exactly as the marketplace sent it (a synthetic row: the push answer or the listing read)',
      ),
  }),
  async handler(input, ctx) {
    const missing = () =>
      new DomainError(
        'event_not_found',
        `event_id: no event '${input.event_id}' on your accounts (events expire 1 month after receipt)`,
        { argument: 'event_id' },
      );
    if (!UUID.test(input.event_id)) throw missing();
    const accounts = await loadAccounts(ctx.db, ctx.userId);
    const found = await findEvent(
      ctx.db,
      accounts.map((a) => a.id),
      input.event_id.toLowerCase(),
    );
    if (!found) throw missing();
    return {
      ...eventRow(found, accounts.find((a) => a.id === found.account_id)!.name),
      payload: found.payload as Record<string, unknown>,
    };
  },
});
