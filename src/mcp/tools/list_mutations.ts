import { z } from 'zod';
import { STATUSES } from '../../domain/mutation/events.js';
import { ACTIONS, TARGET_TYPES, type Action } from '../../domain/mutation/payloads.js';
import { DomainError } from '../../domain/shared/errors.js';
import { listReceipts, receiptSummarySchema } from '../../projections/mutations/queries.js';
import { accountArgument, accountsForRead } from '../accounts.js';
import { limitArgument } from '../window.js';
import { readTool } from '../tool.js';

const QUALIFIED_KEY = /^[^:\s]+:[^:\s]+:[^:\s]+:[^:\s]+$/;
const isAction = (operation: string | undefined): operation is Action =>
  (ACTIONS as readonly string[]).includes(operation ?? '');

// Spec 4.8: the caller's receipts newest first, keyset-paged; rows without payload or provider
// response (get_mutation has them). Idempotency keys match only the caller's own namespace.
export const listMutations = readTool('list_mutations', 'List mutation receipts', {
  description:
    'Lists mutation receipts newest first (25 by default, at most 100), without payload or provider response (read those with get_mutation). Filter by `status` (a workflow state, or `pending` = queued, submitting or uncertain), `target_type` and `target_id` (local ids), `operation` (the action, or the qualified catalog operation key a receipt was queued as), or the `idempotency_key` your client admitted them with. Follow `next_cursor` for the next page.',
  input: {
    account: accountArgument,
    status: z
      .enum([...STATUSES, 'pending'])
      .optional()
      .describe(
        'queued, submitting, submitted, blocked, uncertain, unresolved, or pending (= queued, submitting or uncertain)',
      ),
    target_type: z.enum(TARGET_TYPES).optional(),
    target_id: z.string().min(1).optional().describe('a local target id; requires target_type'),
    operation: z
      .union([
        z.enum(ACTIONS),
        z
          .string()
          .regex(
            QUALIFIED_KEY,
            'one of the six actions or a qualified key <provider>:<family>:<version>:<operationId>',
          ),
      ])
      .optional()
      .describe(
        'the action the receipt requests, or the qualified catalog operation key it was queued as (<provider>:<family>:<version>:<operationId>)',
      ),
    idempotency_key: z.string().min(1).optional().describe('the key your own client admitted the receipts with'),
    cursor: z.string().min(1).optional().describe('next_cursor of the previous page'),
    limit: limitArgument(25, 100),
  },
  output: z.object({
    mutations: z
      .array(receiptSummarySchema.extend({ account_name: z.string() }))
      .describe('newest first, without payload or provider response'),
    next_cursor: z.string().nullable().describe('pass as `cursor` for the next page; null on the last page'),
  }),
  async handler(input, ctx) {
    if (input.target_id !== undefined && input.target_type === undefined) {
      throw new DomainError(
        'invalid',
        `target_id: '${input.target_id}' needs target_type (local ids are unique per type only)`,
        { argument: 'target_id' },
      );
    }
    const accounts = await accountsForRead(ctx, input.account);
    const page = await listReceipts(ctx.db, {
      accountIds: accounts.map((a) => a.id),
      status: input.status,
      targetType: input.target_type,
      // stored as admission normalized it (trimmed, lower case), like every local id
      targetId: input.target_id?.trim().toLowerCase(),
      ...(isAction(input.operation) ? { action: input.operation } : { operation: input.operation }),
      idempotency:
        input.idempotency_key === undefined ? undefined : { namespace: ctx.userId, key: input.idempotency_key },
      cursor: input.cursor,
      limit: input.limit,
    });
    const names = new Map(accounts.map((a) => [a.id, a.name]));
    return {
      mutations: page.mutations.map((m) => ({ ...m, account_name: names.get(m.account_id)! })),
      next_cursor: page.next_cursor,
    };
  },
});
