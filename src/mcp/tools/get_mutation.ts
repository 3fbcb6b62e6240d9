import { z } from 'zod';
import { DomainError } from '../../domain/shared/errors.js';
import { loadAccounts } from '../../projections/accounts/queries.js';
import { getReceipt } from '../../projections/mutations/queries.js';
import { defineTool } from '../tool.js';

// Spec 4.8, 2.9: one receipt with its payload, the raw provider response and, for auditors, every
// event of its history. A receipt stays readable after its target is gone; another user's receipt
// reads the same as a missing one (spec 5.4).
export const getMutation = defineTool({
  name: 'get_mutation',
  description:
    'Reads one mutation receipt by id: status (queued, submitting, submitted, blocked, uncertain, unresolved), outcome, accepted, the immutable payload, the HTTP status and raw provider response, error, request and submission ids, created entity, reconciliation, idempotency, `caused_by` (the automation run that admitted it: automation_id, automation_version, event_id, run_id, listing_id; null when a tool did), and `history`: every recorded transition in order. Use it on an uncertain receipt before requesting the change again.',
  annotations: { title: 'Get mutation receipt', readOnlyHint: true, openWorldHint: false },
  input: {
    id: z.string().min(1).describe('the receipt id (from queue_mutations, a `mutations` field or list_mutations)'),
  },
  async handler(input, ctx) {
    const accounts = await loadAccounts(ctx.db, ctx.userId);
    const found = await getReceipt(
      ctx.db,
      accounts.map((a) => a.id),
      input.id.trim(),
    );
    if (!found)
      throw new DomainError('not_found', `id: no mutation receipt '${input.id}' on your accounts`, { argument: 'id' });
    const account_name = accounts.find((a) => a.id === found.receipt.account_id)!.name;
    return { ...found.receipt, account_name, history: found.history };
  },
});
