import { z } from 'zod';
import { DomainError } from '../../domain/shared/errors.js';
import { ACTIONS, TARGET_TYPES } from '../../domain/mutation/payloads.js';
import { SELECTABLE_STREAM_TYPES, streamType } from '../../domain/stream/types.js';
import { loadAccounts } from '../../projections/accounts/queries.js';
import { streamContract } from '../../runtime/contracts/index.js';
import { automationTemplate } from '../../runtime/contracts/templates.js';
import { accountArgument, accountForStreamType } from '../accounts.js';
import { readTool } from '../tool.js';

// Spec 4.3: the contract of handle(event, context) for one event type, straight from
// src/runtime/contracts (the same data the templates and the context builders use).

const CODES = SELECTABLE_STREAM_TYPES.map((t) => t.code);

/** One field of `event` or `context` (src/runtime/contracts/fields.ts). */
const field = z.object({
  path: z.string().describe('dotted path from `event` or `context`; `[]` stands for every element of an array'),
  type: z.enum(['string', 'number', 'boolean', 'object', 'array', 'function']),
  nullable: z.boolean(),
  optional: z.boolean().describe('the key may be absent'),
  unit: z.string().optional(),
  description: z.string().optional(),
  open: z
    .boolean()
    .optional()
    .describe("the object (or the array's elements) also carries keys not listed: the provider's own, unchanged"),
});

const jsonSchema = z.record(z.string(), z.unknown()).describe('a JSON Schema');

const output = z.object({
  account_id: z.string().describe('the account the contract was read for'),
  account_name: z.string(),
  stream_type: z.string().describe('the event type code'),
  scope: z
    .enum(['Listing', 'SellingPartner', 'CampaignOrPortfolio', 'HourlyMetrics', 'EntityChange', 'Report'])
    .describe('which context the handler gets'),
  source: z.enum(['selling', 'ads', 'local']).describe('selling notifications, advertising stream, or local'),
  connection: z.enum(['selling', 'ads']).describe('the connection that runs the event type'),
  subscription_policy: z.enum(['always', 'while_needed', 'not_required']),
  seller_only: z.boolean().describe('refused on a vendor account'),
  money: z
    .object({ event: z.string(), context: z.string() })
    .describe('the units of money in `event` and in `context`'),
  event: z.object({
    envelope: z.string().describe("the message's envelope"),
    fields: z.array(field).describe('every field of `event`'),
    fixture: z.record(z.string(), z.unknown()).describe('a complete sample event (the one run_automation uses)'),
  }),
  context: z.object({ fields: z.array(field).readonly().describe('every field of `context`') }),
  setters: z
    .array(
      z.object({
        target_type: z.enum(TARGET_TYPES),
        found_at: z.array(z.string()).readonly().describe('where the context hands such targets'),
        actions: z
          .array(
            z.object({
              action: z.enum(ACTIONS),
              writable: z
                .array(z.string())
                .readonly()
                .describe('the payload keys you choose; anything else is refused'),
              derived: z
                .array(z.string())
                .readonly()
                .describe('derived from the target: optional, must match when given'),
              payload_schema: jsonSchema,
            }),
          )
          .readonly(),
        attributes: z
          .array(
            z.object({
              field: z.string().describe('the listing field it sets'),
              attribute: z.string().describe('the Listings Items attribute'),
              key: z.string().describe('the key within the attribute'),
              fulfilment: z.enum(['any', 'Merchant']).describe('the fulfilment channel it is writable on'),
            }),
          )
          .readonly()
          .optional()
          .describe('Listing only: which listing field each patchable attribute sets'),
      }),
    )
    .describe('the targets the context hands the handler, the actions each takes and what each payload accepts'),
  queueing: z
    .object({
      push: z.string(),
      target: z.string(),
      validated: z.string(),
      limits: z.object({
        requests_per_run: z.number().int(),
        payload_bytes_per_run: z.number().int(),
        output_bytes_per_run: z.number().int(),
        run_time_ms: z.number().int(),
        memory_mb: z.number().int(),
      }),
      rules: z.array(z.string()).readonly(),
    })
    .describe('how to queue { target, action, payload } on context.mutations, with the per-run limits'),
  template: z.string().describe('the default code template'),
});

export const describeStreamType = readTool('describe_stream_type', 'Describe an event type', {
  description:
    'The contract of an automation `handle(event, context)` for one event type: every field of `event` (the provider payload as sent; money as the marketplace sends it) and of `context` (money in major units) with type, units and nullability; `event` as a complete fixture (the sample run_automation uses); the setters (targets found in the context, the actions each takes and its `writable` payload keys: anything else is refused); how to queue `{ target, action, payload }` on `context.mutations` with the per-run limits; the default code template.',
  input: {
    stream_type: z.string().describe(`the event type code, one of ${CODES.join(', ')}`),
    account: accountArgument.describe(
      'an account id from connection_status; defaults to the first account that can run the event type',
    ),
  },
  output,
  async handler({ stream_type, account }, ctx) {
    const type = streamType(stream_type);
    if (!type?.scope) {
      const why = type
        ? `${stream_type} is handled internally by the service; no automation can select it`
        : `no event type has the code '${stream_type}'`;
      throw new DomainError('unknown_stream_type', `stream_type: ${why}; valid codes: ${CODES.join(', ')}`, {
        argument: 'stream_type',
        stream_types: CODES,
      });
    }
    const runner = accountForStreamType(await loadAccounts(ctx.db, ctx.userId), account, type);
    return {
      account_id: runner.id,
      account_name: runner.name,
      ...streamContract(stream_type)!,
      template: automationTemplate(stream_type)!,
    };
  },
});
