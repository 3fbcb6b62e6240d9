import { z } from 'zod';
import { DomainError } from '../../domain/shared/errors.js';
import { SELECTABLE_STREAM_TYPES, streamType } from '../../domain/stream/types.js';
import { loadAccounts } from '../../projections/accounts/queries.js';
import { streamContract } from '../../runtime/contracts/index.js';
import { automationTemplate } from '../../runtime/contracts/templates.js';
import { accountArgument, accountForStreamType } from '../accounts.js';
import { readTool } from '../tool.js';

// Spec 4.3: the contract of handle(event, context) for one event type, straight from
// src/runtime/contracts (the same data the templates and the context builders use).

const CODES = SELECTABLE_STREAM_TYPES.map((t) => t.code);

export const describeStreamType = readTool('describe_stream_type', 'Describe an event type', {
  description:
    'The contract of an automation `handle(event, context)` for one event type: every field of `event` (the provider payload as sent; money as the marketplace sends it) and of `context` (money in major units) with type, units and nullability; `event` as a complete fixture (the sample run_automation uses); the setters (targets found in the context, the actions each takes and its `writable` payload keys: anything else is refused); how to queue `{ target, action, payload }` on `context.mutations` with the per-run limits; the default code template.',
  input: {
    stream_type: z.string().describe(`the event type code, one of ${CODES.join(', ')}`),
    account: accountArgument.describe(
      'an account id from connection_status; defaults to the first account that can run the event type',
    ),
  },
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
