import { z } from 'zod';
import { requestReport } from '../../commands/report/request.js';
import { REPORT_LIMITS } from '../../domain/report/limits.js';
import { REPORT_OPERATIONS } from '../../domain/report/operations.js';
import { loadAccounts } from '../../projections/accounts/queries.js';
import { defineTool } from '../tool.js';
import { reportReceiptSchema } from './get_operation_result.js';
import { recordingStore } from '../admission.js';

// Spec 4.9: queues one reviewed, nonrestricted report. The receipt reads back at once
// (get_operation_result); what the provider makes of it arrives later, as the worker submits,
// polls and transfers the artifact, and the completion event (spec 6.3) starts automations.

export const requestReportTool = defineTool({
  name: 'request_report',
  description: `Queues one report request on a reviewed report operation: ${Object.keys(REPORT_OPERATIONS).join(', ')} (pin catalog_revision from search_amazon_operations / get_amazon_operation). target is { type: "SellingPartner", id: <selling connection id> } for the selling reports and data kiosk, { type: "AdvertisingProfile", id: <profile id> } for ads reports (ids from connection_status); parameters are the operation's native request body (marketplaces and the profile are derived from the target; a supplied one must agree). A continuation (from get_operation_result) queues the next page and takes none of operation, target, parameters or catalog_revision. Answers a receipt (mutation_id, status queued); a worker submits it, polls the provider, transfers the artifact (never imported automatically) and then fires SELLING_REPORT_COMPLETED or ADS_REPORT_COMPLETED. Read it with get_operation_result. The same idempotency_key with the same input replays the receipt (replayed: true), with different input answers idempotency_conflict. At most ${REPORT_LIMITS.outstanding} of your requests are outstanding at once (rate_limited).`,
  annotations: {
    title: 'Request report',
    readOnlyHint: false,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: true,
  },
  input: {
    idempotency_key: z
      .string()
      .trim()
      .min(1)
      .max(200)
      .describe('your key for this request: the same key with the same input replays the receipt'),
    operation: z.string().min(1).optional().describe('the qualified report operation key'),
    target: z
      .strictObject({ type: z.string().min(1), id: z.string().min(1) })
      .optional()
      .describe('SellingPartner (selling connection id) or AdvertisingProfile (profile id)'),
    parameters: z
      .record(z.string(), z.unknown())
      .optional()
      .describe("the operation's native request body (see get_amazon_operation)"),
    catalog_revision: z.string().min(1).optional().describe('the pinned operation catalog revision'),
    continuation: z
      .string()
      .min(1)
      .max(200)
      .optional()
      .describe("get_operation_result's continuation: queues the next page of that request"),
  },
  output: z.object({
    receipt: reportReceiptSchema,
    replayed: z.boolean().describe('true when idempotency_key answered a retry with the first receipt'),
  }),
  async handler(input, ctx) {
    const answer = await requestReport(
      { db: ctx.db, store: recordingStore(ctx), now: ctx.now },
      {
        namespace: `user:${ctx.userId}`,
        accounts: await loadAccounts(ctx.db, ctx.userId),
        idempotency_key: input.idempotency_key,
        operation: input.operation,
        target: input.target,
        parameters: input.parameters,
        catalog_revision: input.catalog_revision,
        continuation: input.continuation,
        automation_id: null,
        actor: { kind: 'user', id: ctx.userId },
      },
    );
    return { receipt: answer.receipt, replayed: answer.replayed };
  },
});
