import { z } from 'zod';
import type { AutomationCall } from '../commands/automation/context.js';
import { OperationDependencies } from '../domain/automation/events.js';
import { DomainError } from '../domain/shared/errors.js';
import { SELECTABLE_STREAM_TYPES, selectableStreamType, streamType, type StreamType } from '../domain/stream/types.js';
import { checkAutomationCode } from '../domain/automation/code-check.js';
import { accountForStreamType } from './accounts.js';
import { loadAccounts, type AccountView } from '../projections/accounts/queries.js';
import { findAutomation, type AutomationRow } from '../projections/automations/queries.js';
import { subscriptionOfRow, type SubscriptionRow } from '../projections/streams/queries.js';
import { simulation } from './admission.js';
import type { ToolContext } from './tool.js';
import { recordingStore } from './admission.js';

// What the automation tools share: their arguments, and the call their commands run in. On the
// demo endpoint (spec 1.4) the commands decide everything and record nothing.

export const automationIdArgument = z
  .string()
  .min(1)
  .describe('the automation id (from create_automation or list_automations)');

export const streamTypeArgument = z
  .string()
  .min(1)
  .describe(`the event type code, one of ${SELECTABLE_STREAM_TYPES.map((t) => t.code).join(', ')}`);

export const codeArgument = z
  .string()
  .describe(
    'JavaScript defining handle(event, context) with exactly 2 parameters (at most 100,000 bytes); checked for syntax and signature on save, never run on save',
  );

export const dependenciesArgument = OperationDependencies.describe(
  'qualified operation names the code uses, each mapped to { catalog_revision, schema_digest }',
);

/** What create_automation and update_automation take of an automation's source, both optional. */
export const sourceArguments = {
  code: codeArgument.optional(),
  operation_dependencies: dependenciesArgument.optional(),
};

export async function automationCall(ctx: ToolContext): Promise<AutomationCall> {
  return {
    store: recordingStore(ctx),
    userId: ctx.userId,
    accounts: await loadAccounts(ctx.db, ctx.userId),
    at: ctx.now(),
    correlationId: ctx.requestId,
    simulate: ctx.endpoint === 'demo',
  };
}

/** A write tool's answer: what it did, marked simulated on the demo (`simulatedOutput` in its schema). */
export const written = <const Answer extends Record<string, unknown>>(ctx: ToolContext, answer: Answer) => ({
  ...answer,
  ...simulation(ctx),
});

/**
 * spec 2.2 `subscription`: local report completions need none; otherwise what the event type's
 * subscription on the account is, whatever the automation's state: `active` once the marketplace
 * confirmed it, `failed` when the subscribe failed, else `none` (not subscribed, or still waiting:
 * list_streams shows that as `pending`; docs/decisions/031-list-streams.md).
 */
export function subscriptionOf(
  row: { account_id: string; stream_type: string },
  streams: Map<string, SubscriptionRow>,
): 'active' | 'none' | 'failed' | 'not_required' {
  if (streamType(row.stream_type)?.policy === 'not_required') return 'not_required';
  const status = subscriptionOfRow(streams, row.account_id, row.stream_type)?.status;
  return status === 'active' || status === 'failed' ? status : 'none';
}

export const automationStateOutput = z
  .enum(['draft', 'live', 'archived'])
  .describe('draft (inactive), live (runs on its events; at most one per event type and account) or archived');

/** spec 2.2: an automation as list_automations lists it (`automationView`), without its code. */
export const automationOutput = z.object({
  id: z.string().describe('the automation id'),
  account_id: z.string().describe('the account it runs for'),
  stream_type: z.string().describe('the event type it handles'),
  state: automationStateOutput,
  title: z.string(),
  version: z.number().int().describe('the current code version'),
  operation_dependencies: dependenciesArgument,
  source_automation_id: z.string().nullable().describe('the automation it was duplicated from; null otherwise'),
  created_at: z.string().describe('ISO 8601'),
  created_by: z.string().describe('who created it'),
  updated_at: z.string().describe('ISO 8601'),
  subscription: z
    .enum(['active', 'none', 'failed', 'not_required'])
    .describe(
      "its event type's subscription: active (events flowing), none (not subscribed yet, expected for a draft), failed, not_required (local report completions)",
    ),
  account_name: z.string().nullable().describe("the account's name"),
});

/** get_automation: the automation with its current code and every saved code version. */
export const automationWithCodeOutput = automationOutput.extend({
  code: z.string().describe('the current JavaScript'),
  versions: z
    .array(
      z.object({
        version: z.number().int(),
        at: z.string().describe('ISO 8601 time it was saved'),
        by: z.string().describe('who saved it'),
      }),
    )
    .describe('every saved code version, oldest first'),
});

/** The fields of spec 2.2 every automation answer carries, with its account's name. */
export function automationView<Row extends AutomationRow>(
  row: Row,
  accounts: readonly AccountView[],
  streams: Map<string, SubscriptionRow>,
) {
  return {
    ...row,
    subscription: subscriptionOf(row, streams),
    account_name: accounts.find((a) => a.id === row.account_id)?.name ?? null,
  };
}

// The code a dry run or a backtest runs, and on which account.

/** A saved automation or inline code, exactly one of them. */
export function oneOfAutomationOrCode(input: { automation_id?: string | undefined; code?: string | undefined }): void {
  if (input.automation_id !== undefined && input.code !== undefined)
    throw new DomainError('ambiguous_target', 'pass automation_id or code, not both', {
      arguments: ['automation_id', 'code'],
    });
  if (input.automation_id === undefined && input.code === undefined)
    throw new DomainError(
      'automation_or_code_required',
      'pass automation_id (a saved automation) or code with stream_type (inline code)',
    );
}

export interface RunTarget {
  automation: { id: string | null; version: number; code: string };
  type: StreamType;
  /** the saved automation's account; inline code runs on the event's or the first that can run the type */
  account: AccountView | null;
  /** the saved automation's operation_dependencies (none for inline code) */
  dependencies: OperationDependencies;
  accounts: AccountView[];
}

export interface RunArguments {
  automation_id?: string | undefined;
  code?: string | undefined;
  stream_type?: string | undefined;
  event_id?: string | undefined;
  listing_id?: string | undefined;
  sample_event?: Record<string, unknown> | undefined;
}

export function knownType(code: string): StreamType {
  const type = selectableStreamType(code.trim());
  if (!type)
    throw new DomainError('unknown_stream_type', `stream_type: no automation can select '${code}'`, {
      argument: 'stream_type',
    });
  return type;
}

/** The code to run: the saved automation's, or the inline code with its stream type. */
export async function runTarget(ctx: Pick<ToolContext, 'db' | 'userId'>, input: RunArguments): Promise<RunTarget> {
  const accounts = await loadAccounts(ctx.db, ctx.userId);
  if (input.code !== undefined) {
    if (input.stream_type === undefined)
      throw new DomainError('stream_type_required', 'stream_type: inline code needs the event type it handles', {
        argument: 'stream_type',
      });
    const type = knownType(input.stream_type);
    checkAutomationCode(input.code);
    return { automation: { id: null, version: 1, code: input.code }, type, account: null, dependencies: {}, accounts };
  }
  const found = await findAutomation(
    ctx.db,
    accounts.map((a) => a.id),
    input.automation_id!,
  );
  if (!found)
    throw new DomainError(
      'automation_not_found',
      `automation_id: no automation '${input.automation_id}' on your accounts`,
      {
        argument: 'automation_id',
      },
    );
  const type = knownType(found.stream_type);
  if (input.stream_type !== undefined && knownType(input.stream_type).code !== type.code)
    throw new DomainError(
      'stream_type_mismatch',
      `stream_type: the automation handles ${type.code}, not ${input.stream_type.trim()}; omit stream_type`,
      { argument: 'stream_type', automation_stream_type: type.code },
    );
  const account = accounts.find((a) => a.id === found.account_id)!;
  return {
    automation: { id: found.id, version: found.version, code: found.code },
    type,
    account,
    dependencies: found.operation_dependencies,
    accounts,
  };
}

/** The caller's accounts that can run the type; none: refused as describe_stream_type refuses. */
export function runnable(accounts: readonly AccountView[], type: StreamType): AccountView[] {
  const can = (a: AccountView) => {
    try {
      return accountForStreamType([a], a.id, type) === a;
    } catch {
      return false;
    }
  };
  const found = accounts.filter(can);
  return found.length > 0 ? found : [accountForStreamType(accounts, undefined, type)];
}
