import { z } from 'zod';
import { readStreamType } from '../../domain/stream/eligibility.js';
import { listAutomations } from '../../projections/automations/queries.js';
import { subscriptionRows } from '../../projections/streams/queries.js';
import { accountArgument, accountsForRead } from '../accounts.js';
import { automationOutput, automationView } from '../automations.js';
import { readTool } from '../tool.js';

// Spec 4.4, 2.2: the automations' metadata (no code), newest first.
export const listAutomationsTool = readTool('list_automations', 'List automations', {
  description:
    'Lists automations, newest first, with their metadata: id, stream_type, state (draft, live, archived), title, subscription (active, none, failed, not_required), account_id, account_name, version. No code: read one with get_automation. Archived automations are left out unless include_archived is true. For each event type at most one automation is live.',
  input: {
    stream_type: z.string().trim().min(1).optional().describe('only automations of this event type'),
    include_archived: z.boolean().default(false).describe('include archived automations (default false)'),
    account: accountArgument,
  },
  output: z.object({
    automations: z.array(automationOutput).describe('newest first'),
    total: z.number().int().describe('how many automations are listed'),
  }),
  async handler(input, ctx) {
    const accounts = await accountsForRead(ctx, input.account);
    if (input.stream_type !== undefined) readStreamType(input.stream_type, accounts);
    const ids = accounts.map((a) => a.id);
    const rows = await listAutomations(ctx.db, ids, {
      stream_type: input.stream_type,
      include_archived: input.include_archived,
    });
    const streams = await subscriptionRows(ctx.db, ids);
    return { automations: rows.map((r) => automationView(r, accounts, streams)), total: rows.length };
  },
});
