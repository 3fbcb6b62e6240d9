import { DomainError } from '../../domain/shared/errors.js';
import { loadAccounts } from '../../projections/accounts/queries.js';
import { findAutomation } from '../../projections/automations/queries.js';
import { subscriptionRows } from '../../projections/streams/queries.js';
import { automationIdArgument, automationView, automationWithCodeOutput } from '../automations.js';
import { readTool } from '../tool.js';

// Spec 4.4, 2.2: one automation with its code, archived ones included (history is kept); another
// user's automation reads the same as a missing one (spec 5.4).
export const getAutomationTool = readTool('get_automation', 'Get automation', {
  description:
    'Reads one automation: id, stream_type, state (draft, live, archived), title, the current code and its version, operation_dependencies, subscription, account_id, account_name, when it was created and by whom, and `versions` (every saved code version with its time and author). Archived automations stay readable.',
  input: { automation_id: automationIdArgument },
  output: automationWithCodeOutput,
  async handler(input, ctx) {
    const accounts = await loadAccounts(ctx.db, ctx.userId);
    const found = await findAutomation(
      ctx.db,
      accounts.map((a) => a.id),
      input.automation_id,
    );
    if (!found)
      throw new DomainError(
        'automation_not_found',
        `automation_id: no automation '${input.automation_id}' on your accounts`,
        {
          argument: 'automation_id',
        },
      );
    return automationView(found, accounts, await subscriptionRows(ctx.db, [found.account_id]));
  },
});
