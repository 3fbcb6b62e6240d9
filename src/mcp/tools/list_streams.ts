import { z } from 'zod';
import { streamAccount } from '../../commands/automation/context.js';
import { listStreams } from '../../projections/streams/queries.js';
import { accountArgument, accountsForRead } from '../accounts.js';
import { readTool } from '../tool.js';

// Spec 4.3, 2.4: the event subscriptions of the caller's accounts, one row per event type each
// account's connections carry (docs/decisions/031-list-streams.md).
export const listStreamsTool = readTool('list_streams', 'List streams', {
  description:
    "Lists the event streams (marketplace event subscriptions) of every account, or of `account`: one row per event type the account's connections carry, with account_id, account_name, stream_type, source (selling, ads, local), policy (always, while_needed, not_required), status (active: events flowing; inactive: not subscribed; pending: the subscribe is under way, waits for the marketplace to confirm an advertising stream, or failed and will be retried, with `error` saying why), subscription (the subscription's own state: inactive, requested, pending, active, failed, unsubscribing, or not_required), live_automation_id (the live automation that needs it, if any), error, provider_subscription_ids and changed_at. Always-subscribed types are subscribed when the account connects; the others while an automation for them is live, and for a grace period after the last one stops.",
  input: { account: accountArgument },
  output: z.object({
    streams: z
      .array(
        z.object({
          account_id: z.string(),
          account_name: z.string(),
          stream_type: z.string().describe('the event type code'),
          source: z.enum(['selling', 'ads', 'local']).describe('selling notifications, advertising stream, or local'),
          policy: z
            .enum(['always', 'while_needed', 'not_required'])
            .describe('subscribed always, while an automation needs it, or not required (local report completions)'),
          status: z
            .enum(['active', 'inactive', 'pending'])
            .describe(
              'active: events flowing; inactive: not subscribed; pending: the subscribe is under way, waits for the marketplace, or failed and will be retried',
            ),
          subscription: z
            .enum(['inactive', 'requested', 'pending', 'active', 'failed', 'unsubscribing', 'not_required'])
            .describe("the subscription's own state"),
          live_automation_id: z.string().nullable().describe('the live automation that needs it; null when none'),
          error: z.string().nullable().describe('why the subscribe failed or is requested again; null otherwise'),
          provider_subscription_ids: z.array(z.string()).describe("the marketplace's subscription ids"),
          changed_at: z.string().nullable().describe('ISO 8601 time of its last change; null when never subscribed'),
        }),
      )
      .describe("one row per event type each account's connections carry"),
    total: z.number().int().describe('how many rows'),
  }),
  async handler(input, ctx) {
    const accounts = await accountsForRead(ctx, input.account);
    const streams = await listStreams(ctx.db, accounts.map(streamAccount));
    return { streams, total: streams.length };
  },
});
