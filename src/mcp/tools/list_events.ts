import { z } from 'zod';
import { readStreamType } from '../../domain/stream/eligibility.js';
import { searchEvents } from '../../projections/events/queries.js';
import { accountArgument, accountsForRead } from '../accounts.js';
import { eventRow, eventRowOutput } from '../events.js';
import { marketplaceIdArgument } from '../marketplace-argument.js';
import { readTool } from '../tool.js';
import { instantWindow, limitArgument, sinceArgument, untilArgument } from '../window.js';

// Spec 2.3 / 4.3: recorded marketplace events and synthetic rows, newest first by occurred_at.
// The internally handled types are listed too: they arrived and are kept like any other.

export const listEvents = readTool('list_events', 'List events', {
  description:
    "Lists marketplace events your accounts received (kept 1 month), newest first by `occurred_at`, with `total` (all matches before `limit`). Each row: id (for get_event), stream_type (null for a synthetic row), synthetic (true for a listing read back or the marketplace's answer to a listing push), occurred_at, received_at, a summary naming the listing by ASIN, SKU and title, asin/sku/marketplace_id/title when every listing it reached shares them (else null), `listings` (each with its local listing id, null when the account doesn't list it), and `ads_entities` (provider ids, campaign name) for advertising events. An event reaching several listings is one row. Full payload: get_event.",
  input: {
    stream_type: z.string().trim().min(1).optional().describe('an event type code, e.g. ANY_OFFER_CHANGED'),
    since: sinceArgument.describe(
      'events that occurred at or after this ISO 8601 timestamp, or from the start of this UTC date',
    ),
    until: untilArgument.describe(
      'events that occurred before this ISO 8601 timestamp, or up to the end of this UTC date',
    ),
    asin: z.string().trim().min(1).optional().describe('exact ASIN of a listing the event reached'),
    sku: z.string().min(1).optional().describe('exact SKU of a listing the event reached'),
    marketplace_id: marketplaceIdArgument,
    limit: limitArgument(),
    account: accountArgument,
  },
  output: z.object({
    events: z.array(eventRowOutput).describe('newest first by occurred_at'),
    total: z.number().int().describe('how many events match before `limit`'),
  }),
  async handler(input, ctx) {
    const window = instantWindow(input.since, input.until);
    const accounts = await accountsForRead(ctx, input.account);
    if (input.stream_type !== undefined) readStreamType(input.stream_type, accounts);
    const names = new Map(accounts.map((a) => [a.id, a.name]));
    // the window's instants stand in for the since/until text
    const { rows, total } = await searchEvents(ctx.db, { ...input, ...window, account_ids: accounts.map((a) => a.id) });
    return { events: rows.map((r) => eventRow(r, names.get(r.account_id)!)), total };
  },
});
