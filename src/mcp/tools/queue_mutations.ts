import { z } from 'zod';
import { admitMutations } from '../../commands/admission/admit.js';
import { checkQualifiedCall } from '../../commands/mutation/qualified-action.js';
import { receiptViewSchema } from '../../commands/admission/receipts.js';
import { ACTIONS, TARGET_TYPES } from '../../domain/mutation/payloads.js';
import { loadAccounts } from '../../projections/accounts/queries.js';
import { RUN_LIMITS } from '../../runtime/contracts/limits.js';
import { admissionDeps, idempotencyKeyArgument, idempotencyOutput, simulatedOutput, simulation } from '../admission.js';
import { toolErrorSchema } from '../errors.js';
import { viaOf } from '../auth.js';
import { defineTool } from '../tool.js';

// Spec 4.8: queue listing and advertising changes as immutable receipts. Each mutation is
// admitted or rejected on its own; an idempotency key makes a retry answer the same.

/** Per call, as many as an automation run may push (spec 8). */
export const MAX_MUTATIONS = RUN_LIMITS.mutationsPerRun;

const mutation = z.strictObject({
  target: z.strictObject({
    type: z.string().describe(`the target type: ${TARGET_TYPES.join(', ')}`),
    id: z
      .string()
      .min(1)
      .describe(
        'the local id from list_listings or list_ads_entities (or an advertising profile id from connection_status)',
      ),
  }),
  action: z
    .string()
    .min(1)
    .describe(
      `one of ${ACTIONS.join(', ')}, or the qualified key of a reviewed Sponsored Products write (payload: one native request item; needs idempotency_key and catalog_revision)`,
    ),
  payload: z
    .record(z.string(), z.unknown())
    .describe('the payload of that target type and action: see get_mutation_schema'),
});

export const queueMutations = defineTool({
  name: 'queue_mutations',
  description:
    'Queues listing and advertising changes for a worker to send to the marketplace. Each mutation is { target: { type, id }, action, payload } with a local target id; the account, provider and parent ids are derived from the target, so one call may change several of your accounts. Each result is independent: a receipt (status queued; read it later with get_mutation) or an error with its code. Queued means durably admitted, not accepted by the marketplace: your receipts read back at once (get_mutation, list_mutations), but what the marketplace answers arrives later, as the worker sends each request. Pass idempotency_key so a retry returns the same receipts (replayed: true) instead of queueing again; it answers until idempotency.expires_at.',
  annotations: {
    title: 'Queue mutations',
    readOnlyHint: false,
    destructiveHint: true,
    idempotentHint: false,
    openWorldHint: true,
  },
  input: {
    mutations: z.array(mutation).min(1).max(MAX_MUTATIONS).describe(`1 to ${MAX_MUTATIONS} mutation requests`),
    idempotency_key: idempotencyKeyArgument,
    catalog_revision: z
      .string()
      .min(1)
      .optional()
      .describe('the pinned operation catalog revision, for qualified catalog actions'),
  },
  output: z.object({
    ...simulatedOutput,
    results: z
      .array(
        z.union([
          z.object({
            index: z.number().int().describe('the position of the mutation in `mutations`'),
            receipt: receiptViewSchema.describe('the receipt admitted (status queued, or blocked: withheld)'),
          }),
          z.object({
            index: z.number().int().describe('the position of the mutation in `mutations`'),
            error: toolErrorSchema.describe('why it was refused; nothing was queued for it'),
          }),
        ]),
      )
      .describe('one per mutation, in order: its receipt, or the error that refused it'),
    admitted: z.number().int().describe('how many got a receipt'),
    rejected: z.number().int().describe('how many were refused'),
    ...idempotencyOutput,
  }),
  async handler(input, ctx) {
    await checkQualifiedCall(ctx.db, input);
    const outcome = await admitMutations(admissionDeps(ctx), {
      userId: ctx.userId,
      // no `account` (spec 4.8): each request is written on the account its target belongs to
      accounts: await loadAccounts(ctx.db, ctx.userId),
      mutations: input.mutations,
      idempotency_key: input.idempotency_key,
      input: { mutations: input.mutations, catalog_revision: input.catalog_revision ?? null },
      ...viaOf(ctx),
    });
    const admitted = outcome.results.filter((r) => 'receipt' in r).length;
    return {
      ...simulation(ctx),
      results: outcome.results,
      admitted,
      rejected: outcome.results.length - admitted,
      replayed: outcome.replayed,
      idempotency: outcome.idempotency,
    };
  },
});
