import { z } from 'zod';
import { receiptViewSchema } from '../../commands/admission/receipts.js';
import type { OperationDependencies } from '../../domain/automation/events.js';
import { DomainError } from '../../domain/shared/errors.js';
import { UUID_PATTERN } from '../../domain/shared/ids.js';
import type { StreamType } from '../../domain/stream/types.js';
import type { AccountView } from '../../projections/accounts/queries.js';
import { RUN_LIMITS } from '../../runtime/contracts/limits.js';
import { runAutomation, type ListingRun } from '../../runtime/run.js';
import { accountForStreamType } from '../accounts.js';
import {
  codeArgument,
  dependenciesArgument,
  oneOfAutomationOrCode,
  runnable,
  runTarget,
  streamTypeArgument,
  type RunArguments,
  type RunTarget,
} from '../automations.js';
import { enterDryRun } from '../dry-runs.js';
import { toolErrorSchema } from '../errors.js';
import { checkOperationDependencies } from '../../commands/automation/operation-dependencies.js';
import { accountForSample, cannedSample, recordedEvent, type DryRunEvent } from '../run-event.js';
import { defineTool, type ToolContext } from '../tool.js';

// Spec 4.4, 7, 8: a dry run. The handler runs in the sandbox on one context and its outbox is
// decided as admission would decide it, against the real block flags and Automation switches;
// nothing is admitted, posted or stored (the store starts empty). 30 runs per 60 seconds and one
// at a time per caller (src/mcp/dry-runs.ts).

export const runAutomationTool = defineTool({
  name: 'run_automation',
  description:
    "Dry-runs an automation: nothing is applied, no webhook fires, nothing is stored (context.store starts empty). Pass automation_id (a saved automation, its current code) or code with stream_type. Input: the event type's canned sample by default (the describe_stream_type fixture, naming your newest listing, or listing_id, and a marketplace of yours); event_id replays a recorded event (list_events); sample_event supplies your own payload (set marketplaceId to a connected marketplace). listing_id is required when the event reached several listings. Returns `changes` (each push of context.mutations in order: status applied = it would be admitted, with the `receipt` it would get (id null); blocked = withheld, with error_message; failed = invalid output, with `error` as queue_mutations answers it; dropped = not a target of the account, recorded nowhere; `value` is the amount it sets in major units), `logs` (console output, 100 lines) and `missing_field_reads` (event keys the code read that the payload lacked, with the keys available there). A throw, timeout (5 s) or memory overrun (64 MB) is execution_error with `message`, plus the logs so far. 30 dry runs per 60 seconds, one at a time.",
  annotations: {
    title: 'Run automation (dry run)',
    readOnlyHint: true,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false,
  },
  input: {
    automation_id: z.string().min(1).optional().describe('a saved automation to run (its current code)'),
    code: codeArgument.optional(),
    stream_type: streamTypeArgument.optional().describe('the event type inline code handles (required with code)'),
    event_id: z.string().min(1).optional().describe('replay this recorded event (from list_events)'),
    listing_id: z
      .string()
      .min(1)
      .optional()
      .describe('run for this listing (list_listings id); required when the event reached several'),
    operation_dependencies: dependenciesArgument.optional(),
    sample_event: z
      .record(z.string(), z.unknown())
      .optional()
      .describe('your own event payload (at most 100,000 bytes); its marketplaceId must be a connected marketplace'),
  },
  output: z.object({
    changes: z
      .array(
        z.object({
          index: z.number().int().nullable().describe('the position of the push in context.mutations'),
          status: z
            .enum(['applied', 'blocked', 'failed', 'dropped'])
            .describe(
              'applied: would be admitted; blocked: withheld; failed: invalid output; dropped: not a target of the account, recorded nowhere',
            ),
          target: z.object({ type: z.string(), id: z.string().nullable() }).nullable().describe('the target as pushed'),
          action: z.string().nullable().optional().describe('the action pushed (absent when dropped)'),
          receipt: receiptViewSchema.optional().describe('applied or blocked: the receipt it would get (id null)'),
          error_message: z.string().optional().describe('blocked, failed, dropped: why'),
          error: toolErrorSchema.optional().describe('failed: the error as queue_mutations answers it'),
          value: z.number().nullable().describe('the amount it sets in major units; null when none'),
          asin: z.string().nullable().optional().describe("a Listing or Ad target's listing"),
          sku: z.string().optional(),
          marketplace_id: z.string().optional(),
          title: z.string().nullable().optional(),
          account_id: z.string().optional(),
          account_name: z.string().optional(),
        }),
      )
      .describe('each push of context.mutations, in order'),
    logs: z
      .array(z.object({ level: z.enum(['log', 'info', 'warn', 'error']), message: z.string() }))
      .describe('console output (at most 100 lines)'),
    missing_field_reads: z
      .array(
        z.object({
          path: z.string().describe('the event key the code read that the payload lacked'),
          available: z.array(z.string()).describe('the keys present at that level'),
        }),
      )
      .describe('event keys the code read that the payload lacked'),
  }),
  async handler(input, ctx) {
    oneOfAutomationOrCode(input);
    if (input.event_id !== undefined && input.sample_event !== undefined)
      throw new DomainError('invalid', 'event_id and sample_event: pass one event, not both', {
        arguments: ['event_id', 'sample_event'],
      });
    if (input.listing_id !== undefined && !UUID_PATTERN.test(input.listing_id))
      throw new DomainError(
        'invalid',
        `listing_id: '${input.listing_id}' is not a listing id (a UUID from list_listings)`,
        {
          argument: 'listing_id',
        },
      );
    const sampleBytes = input.sample_event && Buffer.byteLength(JSON.stringify(input.sample_event), 'utf8');
    if (sampleBytes && sampleBytes > RUN_LIMITS.fabricatedEventBytes)
      throw new DomainError(
        'event_too_large',
        `sample_event: ${sampleBytes} bytes serialized is over the limit of ${RUN_LIMITS.fabricatedEventBytes} bytes`,
        { argument: 'sample_event' },
      );
    const target = await runTarget(ctx, input);
    ctx.lap?.('accounts and code');
    await checkOperationDependencies(ctx.db, input.operation_dependencies);
    await savedStillPinned(ctx, target.dependencies);
    ctx.lap?.('operation dependencies');
    if (!ctx.sandbox || !ctx.dryRuns)
      throw new DomainError('unavailable', 'this server runs no automations (no sandbox is configured); retry later');
    const { event, account } = await runEvent(ctx, target, input);
    ctx.lap?.('event');
    // the slot is asked for while the contexts are read: the handler runs only inside it, and a
    // refusal answers before anything the reads found, as when the slot was taken first
    const entering = enterDryRun(ctx.dryRuns, ctx);
    const inside = entering.then(() => undefined);
    inside.catch(() => undefined); // awaited below, once the run has settled
    let runs: ListingRun[];
    try {
      const store = ctx.endpoint === 'demo' ? null : (ctx.store ?? null);
      runs = await runAutomation(
        {
          db: ctx.db,
          store,
          logger: ctx.logger,
          sandbox: ctx.sandbox,
          gate: inside,
          ...(ctx.lap ? { lap: ctx.lap } : {}),
        },
        {
          mode: 'dry',
          automation: target.automation,
          account,
          streamType: target.type.code,
          event,
          ...(input.listing_id !== undefined ? { listingId: input.listing_id } : {}),
          ...(event.listingId !== undefined ? { listingId: event.listingId } : {}),
          ...(event.reached ? { reached: Promise.resolve(event.reached) } : {}),
          single: true,
          now: ctx.now(),
        },
      );
    } catch (err) {
      await inside;
      throw err;
    } finally {
      const leave = await entering.catch(() => null);
      await leave?.();
      ctx.lap?.('dry-run gate left');
    }
    await inside;
    const run = runs[0];
    if (!run) throw notReplayable(target.type, input, account);
    const missing_field_reads = run.missingFieldReads;
    if (run.error)
      throw new DomainError(run.error.code, run.error.message, {
        message: run.error.message,
        logs: run.logs,
        missing_field_reads,
      });
    return { changes: changesOf(run), logs: run.logs, missing_field_reads };
  },
});

/** A saved automation's dependencies are checked like those passed in the call: a moved pin is schema_changed before anything runs. */
async function savedStillPinned(ctx: ToolContext, dependencies: OperationDependencies): Promise<void> {
  try {
    await checkOperationDependencies(ctx.db, dependencies);
  } catch (err) {
    if (!(err instanceof DomainError)) throw err;
    throw new DomainError(
      err.code,
      `the automation's saved ${err.detail}; update it with update_automation`,
      err.extra,
    );
  }
}

/** The event and the account it runs on. */
async function runEvent(
  ctx: ToolContext,
  target: RunTarget,
  input: RunArguments,
): Promise<{ event: DryRunEvent; account: AccountView }> {
  const { type } = target;
  if (input.event_id !== undefined) {
    const found = await recordedEvent(ctx.db, target.account ? [target.account] : target.accounts, input.event_id);
    if (found.stream_type !== type.code)
      throw new DomainError(
        'stream_type_mismatch',
        `event_id: the event is ${found.stream_type} and the ${target.automation.id ? 'automation' : 'code'} handles ${type.code}`,
        { argument: 'event_id', event_stream_type: found.stream_type },
      );
    return { event: found.event, account: accountForStreamType([found.account], found.account.id, type) };
  }
  const candidates = target.account
    ? [accountForStreamType([target.account], target.account.id, type)]
    : runnable(target.accounts, type);
  if (input.sample_event !== undefined) {
    const account = accountForSample(candidates, type, input.sample_event);
    return { event: { id: null, payload: input.sample_event }, account };
  }
  const account = candidates[0]!;
  const event = await cannedSample(ctx.db, account, type, input.listing_id);
  if (!event)
    throw new DomainError(
      'event_not_replayable',
      input.listing_id !== undefined
        ? `listing_id: '${input.listing_id}' is not a listing of account ${account.id} (${account.name})`
        : `account ${account.id} (${account.name}) has no listing for the canned ${type.code} sample to name; pass sample_event or event_id`,
      { argument: input.listing_id !== undefined ? 'listing_id' : 'stream_type' },
    );
  return { event, account };
}

function notReplayable(type: StreamType, input: RunArguments, account: AccountView): DomainError {
  const where = `account ${account.id} (${account.name})`;
  const detail =
    input.listing_id !== undefined
      ? `listing_id: listing '${input.listing_id}' did not receive the event`
      : type.scope === 'Listing'
        ? `the event names no listing of ${where}`
        : type.scope === 'Report'
          ? `the event names no report request of ${where} (a Report context is built from the request it completes): request_report first, then pass event_id of its ${type.code} event`
          : `no ${type.scope} context can be built for the event on ${where} (no advertising profile in its marketplace, or no campaign named)`;
  return new DomainError('event_not_replayable', detail, {
    ...(input.listing_id !== undefined ? { argument: 'listing_id' } : {}),
  });
}

/** Each push in order: the action it would become, or why it would be dropped. */
function changesOf(run: ListingRun) {
  const outbox = run.outbox!;
  const dropped = outbox.dropped.map((d) => ({
    index: d.index,
    status: 'dropped' as const,
    target: d.target,
    error_message: d.reason,
    value: null,
  }));
  return [...outbox.actions, ...dropped].sort((a, b) => (a.index ?? 0) - (b.index ?? 0));
}
