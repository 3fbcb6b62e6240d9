import { z } from 'zod';
import { receiptViewSchema } from '../../commands/admission/receipts.js';
import { MAX_REVERTS, revertMutations } from '../../commands/revert/revert.js';
import { ACTIONS, TARGET_TYPES } from '../../domain/mutation/payloads.js';
import { DomainError } from '../../domain/shared/errors.js';
import { UUID_PATTERN } from '../../domain/shared/ids.js';
import { loadAccounts } from '../../projections/accounts/queries.js';
import { findAutomation } from '../../projections/automations/queries.js';
import type { RevertSelection } from '../../projections/mutations/reverts.js';
import { revertReads } from '../../workers/dispatch/observed.js';
import { admissionDeps, idempotencyKeyArgument, idempotencyOutput, simulatedOutput, simulation } from '../admission.js';
import { viaOf } from '../auth.js';
import { toolErrorSchema } from '../errors.js';
import { defineTool, type ToolContext } from '../tool.js';
import { instantWindow } from '../window.js';

// An extension beyond the spec (docs/decisions/125-revert.md): undo applied changes by queueing,
// through admission, the changes that restore each target's prior value.

/** A live read of a change's target waits at most this long (the agent waits on the call). */
const READ_TIMEOUT_MS = 10_000;

const RESULTS = [
  'queued',
  'would_queue',
  'conflict',
  'unverified',
  'not_revertible',
  'already_reverted',
  'refused',
] as const;

export const revertMutationsTool = defineTool({
  name: 'revert_mutations',
  description:
    "Extension beyond the interface spec: reverts applied changes. Name the receipts with exactly one of receipt_ids, automation_id with since (every change that automation's runs applied since then), or admitted_with_key (every receipt your client admitted with that idempotency key). For each, it queues the change that restores the value the receipt recorded it replaced (an update back to that value; a creation is reverted by archiving what it created), through the same admission as queue_mutations: block flags and Automation switches apply, and each revert is its own receipt whose caused_by is { reverts: <the reverted receipt id> }. A target that changed since (read live, it no longer shows what the latest change set) is reported as a conflict and nothing on it is reverted unless overwrite: true; when the live read fails, the target's latest observation is used instead if it was made after the change was applied (checked_by says which), else the target is unverified and left alone. Archives cannot be reverted (archiving is permanent), nor changes not applied or whose prior value was not recorded: each says why. dry_run: true answers what it would queue and admits nothing. Pass idempotency_key so a retry returns the same receipts (replayed: true) instead of queueing again.",
  annotations: {
    title: 'Revert mutations',
    readOnlyHint: false,
    destructiveHint: true,
    idempotentHint: false,
    openWorldHint: true,
  },
  input: {
    receipt_ids: z
      .array(z.string())
      .min(1)
      .max(MAX_REVERTS)
      .optional()
      .describe(`receipt ids (get_mutation, list_mutations) to revert, 1 to ${MAX_REVERTS}`),
    automation_id: z
      .string()
      .optional()
      .describe("revert every change this automation's runs applied since `since` (requires since)"),
    since: z
      .string()
      .optional()
      .describe('with automation_id: ISO 8601 date or timestamp; changes admitted at or after it'),
    admitted_with_key: z
      .string()
      .min(1)
      .optional()
      .describe('revert every receipt your client admitted with this idempotency key'),
    overwrite: z
      .boolean()
      .default(false)
      .describe('revert even where the target changed since (or could not be read); default false'),
    dry_run: z.boolean().default(false).describe('answer what it would queue; admit nothing'),
    idempotency_key: idempotencyKeyArgument,
  },
  output: z.object({
    ...simulatedOutput,
    dry_run: z.boolean(),
    items: z
      .array(
        z.object({
          receipt_id: z.string().describe('the receipt to revert'),
          target_type: z.enum(TARGET_TYPES),
          target_id: z.string(),
          action: z.enum(ACTIONS).describe('what that receipt did'),
          result: z
            .enum(RESULTS)
            .describe(
              'queued (its revert was admitted: see receipt), would_queue (dry run), conflict (the target changed since; left alone), unverified (the target could not be read live, and no observation since the change was applied shows it; left alone), not_revertible, already_reverted, refused (admission refused its revert: see error)',
            ),
          detail: z.string().nullable().describe('why, in words'),
          revert: z
            .object({
              target: z.object({ type: z.enum(TARGET_TYPES), id: z.string() }),
              action: z.enum(ACTIONS),
              payload: z.record(z.string(), z.unknown()),
            })
            .nullable()
            .describe('the change that undoes it; null when there is none'),
          receipt: receiptViewSchema
            .nullable()
            .describe("its revert's receipt (status queued, or blocked: withheld); null when none was queued"),
          current: z
            .unknown()
            .optional()
            .describe(
              "a conflict's: the part of the target the receipt changed, as the marketplace shows it now (checked_by live_read) or as its latest observation showed it (checked_by observation)",
            ),
          checked_by: z
            .enum(['live_read', 'observation'])
            .optional()
            .describe(
              'how the target was checked for changes made since: live_read (read live now), or observation (the live read failed; its latest observation, made after the change was applied, at observed_at); absent when it was not checked (overwrite, a creation, a receipt left alone for another reason)',
            ),
          observed_at: z
            .string()
            .optional()
            .describe('checked_by observation: when that observation was made (ISO 8601)'),
          reverted_by: z.string().optional().describe("already_reverted's: the receipt that reverts it"),
          error: toolErrorSchema.optional().describe('why admission refused its revert'),
        }),
      )
      .describe('one per receipt selected, oldest first'),
    queued: z.number().int().describe('how many reverts were admitted'),
    left_alone: z
      .number()
      .int()
      .describe('how many receipts were not reverted (every result but queued and would_queue)'),
    ...idempotencyOutput,
  }),
  async handler({ idempotency_key, ...input }, ctx) {
    const accounts = await loadAccounts(ctx.db, ctx.userId);
    const selection = await selectionOf(
      input,
      ctx,
      accounts.map((a) => a.id),
    );
    const outcome = await revertMutations(admissionDeps(ctx), readsOf(ctx), {
      userId: ctx.userId,
      accounts,
      selection,
      overwrite: input.overwrite,
      dry_run: input.dry_run,
      idempotency_key,
      input,
      ...viaOf(ctx),
    });
    const queued = outcome.items.filter((i) => i.result === 'queued').length;
    return {
      ...simulation(ctx),
      dry_run: input.dry_run,
      items: outcome.items,
      queued,
      left_alone: outcome.items.filter((i) => i.result !== 'queued' && i.result !== 'would_queue').length,
      replayed: outcome.replayed,
      idempotency: outcome.idempotency,
    };
  },
});

/** Exactly one way of naming receipts, each value checked (the tool's and the CLI's). */
export async function selectionOf(
  input: { receipt_ids?: string[]; automation_id?: string; since?: string; admitted_with_key?: string },
  ctx: Pick<ToolContext, 'db' | 'userId'>,
  accountIds: readonly string[],
): Promise<RevertSelection> {
  const given = (['receipt_ids', 'automation_id', 'admitted_with_key'] as const).filter((k) => input[k] !== undefined);
  if (given.length !== 1)
    throw new DomainError(
      'invalid',
      given.length === 0
        ? 'name the receipts to revert: pass receipt_ids, automation_id with since, or admitted_with_key'
        : `${given.join(', ')}: pass only one way of naming the receipts to revert`,
      { argument: given[1] ?? 'receipt_ids' },
    );
  if (input.since !== undefined && input.automation_id === undefined)
    throw new DomainError('invalid', `since: '${input.since}' applies to automation_id only`, { argument: 'since' });
  if (input.receipt_ids) {
    const ids = input.receipt_ids.map((id) => id.trim().toLowerCase());
    const bad = ids.findIndex((id) => !UUID_PATTERN.test(id));
    if (bad >= 0)
      throw new DomainError(
        'invalid',
        `receipt_ids[${bad}]: '${input.receipt_ids[bad]}' is not a receipt id (a uuid)`,
        {
          argument: `receipt_ids[${bad}]`,
        },
      );
    return { receipt_ids: [...new Set(ids)] };
  }
  if (input.automation_id !== undefined) {
    if (input.since === undefined)
      throw new DomainError('invalid', 'since: required with automation_id (changes admitted at or after it)', {
        argument: 'since',
      });
    const { since } = instantWindow(input.since, undefined);
    const found = await findAutomation(ctx.db, accountIds, input.automation_id);
    if (!found)
      throw new DomainError(
        'automation_not_found',
        `automation_id: no automation '${input.automation_id}' on your accounts`,
        {
          argument: 'automation_id',
        },
      );
    return { automation_id: found.id, since: since! };
  }
  return { idempotency: { namespace: ctx.userId, key: input.admitted_with_key! } };
}

/**
 * Targets are read live with the connections' own credentials (the demo and a server without
 * marketplace reads none), and from their latest observation when that fails.
 */
function readsOf(ctx: ToolContext) {
  if (ctx.endpoint === 'demo' || !ctx.liveReads)
    return revertReads(ctx.db, ctx.store, {
      unavailable:
        ctx.endpoint === 'demo' ? 'the demo endpoint reads no marketplace' : 'this server reads no marketplace',
    });
  const { endpoints, lwa, credentials } = ctx.liveReads;
  return revertReads(ctx.db, ctx.store, { endpoints, lwa, credentials, timeoutMs: READ_TIMEOUT_MS });
}
