import { z } from 'zod';
import { listAutomations } from '../../projections/automations/queries.js';
import { accountArgument, accountsForRead } from '../accounts.js';
import { automationView } from '../automations.js';
import { defineTool } from '../tool.js';

// Spec 4.4, 2.2: the automations' metadata (no code), newest first.
export const listAutomationsTool = defineTool({
  name: 'list_automations',
  description:
    'Lists automations, newest first, with their metadata: id, stream_type, state (draft, live, archived), title, subscription (active, none, failed, not_required), account_id, account_name, version. No code: read one with get_automation. Archived automations are left out unless include_archived is true. For each event type at most one automation is live.',
  annotations: { title: 'List automations', readOnlyHint: true, openWorldHint: false },
  input: {
    stream_type: z.string().trim().min(1).optional().describe('only automations of this event type'),
    include_archived: z.boolean().default(false).describe('include archived automations (default false)'),
    account: accountArgument,
  },
  async handler(input, ctx) {
    const accounts = await accountsForRead(ctx, input.account);
    const rows = await listAutomations(
      ctx.db,
      accounts.map((a) => a.id),
      { stream_type: input.stream_type, include_archived: input.include_archived },
    );
    return { automations: rows.map((r) => automationView(r, accounts)), total: rows.length };
  },
});
