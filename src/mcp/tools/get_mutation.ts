import { z } from 'zod';
import { receiptAdmission } from '../../commands/mutation/execute.js';
import { DomainError } from '../../domain/shared/errors.js';
import { pollUntil } from '../../infra/poll.js';
import { hasApplied } from '../../projections/checkpoints.js';
import { loadAccounts } from '../../projections/accounts/queries.js';
import { getReceipt, receiptSchema } from '../../projections/mutations/queries.js';
import { mutationsProjection } from '../../projections/mutations/projection.js';
import { READ_YOUR_WRITES_MS } from '../read-your-writes.js';
import { readTool, type ToolContext } from '../tool.js';

// Spec 4.8, 2.9: one receipt with its payload, the raw provider response and, for auditors, every
// event of its history. A receipt stays readable after its target is gone; another user's receipt
// reads the same as a missing one (spec 5.4).
export const getMutation = readTool('get_mutation', 'Get mutation receipt', {
  description:
    'Reads one mutation receipt by id: status (queued, submitting, submitted, blocked, uncertain, unresolved), outcome, accepted, the immutable payload, the HTTP status and raw provider response, error, request and submission ids, created entity, reconciliation, idempotency, `caused_by` (the automation run that admitted it: automation_id, automation_version, event_id, run_id, listing_id; null when a tool did), and `history`: every recorded transition in order (the admission `via` names the OAuth client_id or personal access token id it came through). Use it on an uncertain receipt before requesting the change again.',
  input: {
    id: z.string().min(1).describe('the receipt id (from queue_mutations, a `mutations` field or list_mutations)'),
  },
  output: receiptSchema.extend({
    account_name: z.string(),
    history: z
      .array(
        z.object({
          revision: z.number().int().describe("the event's revision in the receipt's stream, from 0"),
          type: z.string().describe('the event type, e.g. MutationAdmitted, MutationSubmitted'),
          recorded_at: z.string().describe('ISO 8601'),
          data: z.record(z.string(), z.unknown()).describe('the event as recorded'),
        }),
      )
      .describe('every recorded transition, in order'),
  }),
  async handler(input, ctx) {
    const accounts = await loadAccounts(ctx.db, ctx.userId);
    const ids = accounts.map((a) => a.id);
    const id = input.id.trim();
    const found =
      (await getReceipt(ctx.db, ids, id)) ??
      ((await projected(ctx, ids, id)) ? await getReceipt(ctx.db, ids, id) : null);
    if (!found)
      throw new DomainError('not_found', `id: no mutation receipt '${input.id}' on your accounts`, { argument: 'id' });
    const account_name = accounts.find((a) => a.id === found.receipt.account_id)!.name;
    return { ...found.receipt, account_name, history: found.history };
  },
});

/**
 * A receipt queue_mutations has just answered may not be projected yet: when the log has its
 * admission on one of the caller's accounts, wait (bounded) for the read model to pass it, so an
 * agent reads its own write. Another user's receipt is not waited for: it reads as missing at once.
 */
async function projected(ctx: ToolContext, accountIds: string[], id: string): Promise<boolean> {
  const admission = ctx.store ? await receiptAdmission(ctx.store, id) : null;
  if (!admission || !accountIds.includes(admission.account_id)) return false;
  return pollUntil(() => hasApplied(ctx.db, mutationsProjection.name, admission.position), READ_YOUR_WRITES_MS, 20);
}
