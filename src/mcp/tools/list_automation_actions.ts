import { z } from 'zod';
import { ACTION_KINDS, ACTION_STATUSES } from '../../domain/automation-run/events.js';
import { DomainError } from '../../domain/shared/errors.js';
import { listAutomationActions } from '../../projections/automation-runs/queries.js';
import { findAutomation } from '../../projections/automations/queries.js';
import { accountArgument, accountsForRead } from '../accounts.js';
import { ACTIVITY_APP_URI } from '../resources/apps.js';
import { readTool } from '../tool.js';
import { instantWindow, limitArgument, sinceArgument } from '../window.js';

// Spec 4.4, 2.10, 3.3: what live runs decided, newest decision first, with `total` (all matches
// before `limit`) as list_events has it.
export const listAutomationActionsTool = readTool('list_automation_actions', 'List automation actions', {
  description:
    "Lists what your automations' live runs decided (kept 1 year), newest first, with `total` (all matches before `limit`). Each row: id, kind (`mutation`: a change the run pushed; `warning`: a run that changed nothing and read an event key the payload lacked, at most one a day per automation), status (queued, applied = passed validation and admitted: its receipt_id, readable with get_mutation, reports the marketplace's answer; for a report request (action a report operation such as ads_api:reporting:3.0:createAsyncReport) receipt_id is the report receipt's mutation_id, read with get_operation_result; failed = invalid output, see error_message; blocked = the listing is blocked or the campaign's Automation switch is off; null for a warning), error_message, value (the requested amount in major units, e.g. 15.27), asin, sku, marketplace_id and title for a Listing or Ad target, account_id, account_name, missing_fields (warnings), the automation_id and automation_version that ran, run_id, event_id, listing_id, stream_type, target_type, target_id, action, receipt_id, decided_at and updated_at.",
  input: {
    automation_id: z.string().min(1).optional().describe('only the actions of this automation'),
    status: z.enum(ACTION_STATUSES).optional().describe('queued, applied, failed or blocked (warnings have none)'),
    since: sinceArgument.describe(
      'actions decided at or after this ISO 8601 timestamp, or from the start of this UTC date',
    ),
    limit: limitArgument(),
    account: accountArgument,
  },
  output: z.object({
    actions: z
      .array(
        z.object({
          id: z.string().describe('the action id'),
          kind: z
            .enum(ACTION_KINDS)
            .describe('mutation: a change the run pushed; warning: a probable event-shape mismatch'),
          status: z
            .enum(ACTION_STATUSES)
            .nullable()
            .describe('queued, applied (admitted: see receipt_id), failed or blocked; null for a warning'),
          error_message: z.string().nullable().describe('why it failed or is blocked; else null'),
          value: z
            .number()
            .nullable()
            .describe('the requested amount in major units (e.g. 15.27); null when the request names none'),
          asin: z.string().nullable().describe("a Listing or Ad target's listing ASIN"),
          sku: z.string().nullable(),
          marketplace_id: z.string().nullable(),
          title: z.string().nullable(),
          account_id: z.string(),
          missing_fields: z
            .array(z.string())
            .nullable()
            .describe('warnings: event keys the code read that the payload lacked; null for a mutation'),
          automation_id: z.string(),
          automation_version: z.number().int().describe('the code version that ran'),
          run_id: z.string(),
          event_id: z.string().describe('the event the run handled'),
          listing_id: z.string().nullable().describe('the listing the run was for; null outside the Listing scope'),
          stream_type: z.string(),
          target_type: z.string().nullable().describe("the request's target type; null for a warning"),
          target_id: z.string().nullable(),
          action: z.string().nullable().describe("the request's action; null for a warning"),
          receipt_id: z
            .string()
            .nullable()
            .describe(
              "the receipt admitted, for get_mutation (a report request's: its mutation_id, for get_operation_result); else null",
            ),
          decided_at: z.string().describe('ISO 8601'),
          updated_at: z.string().describe('ISO 8601 time of its last status change'),
          account_name: z.string(),
        }),
      )
      .describe('newest decision first'),
    total: z.number().int().describe('how many actions match before `limit`'),
  }),
  app: ACTIVITY_APP_URI,
  async handler(input, ctx) {
    const { since } = instantWindow(input.since, undefined);
    const accounts = await accountsForRead(ctx, input.account);
    const accountIds = accounts.map((a) => a.id);
    let automation_id: string | undefined;
    if (input.automation_id !== undefined) {
      const found = await findAutomation(ctx.db, accountIds, input.automation_id);
      if (!found)
        throw new DomainError(
          'automation_not_found',
          `automation_id: no automation '${input.automation_id}' on ${input.account === undefined ? 'your accounts' : `account ${accounts[0]!.id} (${accounts[0]!.name})`}`,
          { argument: 'automation_id' },
        );
      automation_id = found.id;
    }
    const { rows, total } = await listAutomationActions(ctx.db, {
      accountIds,
      automation_id,
      status: input.status,
      since,
      limit: input.limit,
    });
    const names = new Map(accounts.map((a) => [a.id, a.name]));
    return { actions: rows.map((r) => ({ ...r, account_name: names.get(r.account_id)! })), total };
  },
});
