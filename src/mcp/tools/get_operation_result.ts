import { z } from 'zod';
import { readArtifact } from '../../commands/report/artifacts.js';
import { continuationOf } from '../../commands/report/request.js';
import { handleCommand } from '../../commands/shared/handler.js';
import { refreshable, reportDecider } from '../../domain/report/decide.js';
import { reportView } from '../../domain/report/view.js';
import { DomainError } from '../../domain/shared/errors.js';
import { UUID_PATTERN } from '../../domain/shared/ids.js';
import { loadAccounts } from '../../projections/accounts/queries.js';
import { findReport } from '../../projections/reports/queries.js';
import { defineTool } from '../tool.js';
import { recordingStore } from '../admission.js';

// Spec 4.9 get_operation_result: a report receipt (2.11) with its provider status, protected
// artifact and ingestion status, a bounded preview of the artifact's bytes (follow next_cursor),
// and the path its whole artifact downloads from with the caller's MCP bearer token.

export const PREVIEW_DEFAULT_BYTES = 4_096;
export const PREVIEW_MAX_BYTES = 16_384;

/** Where a receipt's artifact downloads from (the route in src/mcp/report-artifacts.ts). */
export const artifactPath = (mutation_id: string): string => `/reports/${mutation_id}/artifact`;

const nullable = <T extends z.ZodType>(schema: T, description: string) => schema.nullable().describe(description);

export const reportReceiptSchema = z
  .object({
    mutation_id: z.string().describe('the report receipt id'),
    account_id: z.string(),
    status: z
      .enum(['queued', 'submitted', 'transferred', 'completed'])
      .describe('queued, submitted (the provider has it), transferred (artifact stored), completed (finalized)'),
    operation: nullable(
      z.string(),
      'the qualified operation key; null for adopted requests whose payload was not kept',
    ),
    target: z.object({ type: z.string(), id: z.string() }),
    catalog_revision: z.string(),
    marketplace_ids: z.array(z.string()).describe('the marketplaces the request covers'),
    provider_id: nullable(z.string(), "the provider's report or query id, once submitted"),
    provider_status: nullable(z.string(), "the provider's status (terminal once completed: DONE, CANCELLED, FATAL)"),
    ingestion_status: nullable(
      z.literal('not_scheduled'),
      'not_scheduled once completed: customer-requested artifacts are never imported automatically',
    ),
    byte_size: nullable(z.number().int(), 'null until the artifact transfer succeeded'),
    media_type: nullable(z.string(), 'null until transfer'),
    checksum: nullable(z.string(), 'sha256:<hex> of the stored bytes; null until transfer'),
    expires_at: nullable(z.string(), 'ISO 8601: when the stored artifact expires; null until transfer'),
    previous_page: nullable(z.string(), "the previous page's receipt when this follows a continuation"),
    has_continuation: z.boolean().describe('this page has a next page (completion is not the whole query)'),
    digest: z.string().describe('server-owned digest of what was executed'),
    correlation: nullable(
      z.object({
        root: z.string(),
        parent: z.string().nullable(),
        event: z.string(),
        delivery: z.string(),
        output: z.number().int(),
      }),
      '{ root, parent, event, delivery, output } when an automation requested it, else null',
    ),
    depth: z.number().int().describe('1, or its place in a chain of report completions (at most 5)'),
    error: nullable(z.string(), 'why no artifact came, when none did'),
    requested_at: z.string(),
    completed_at: nullable(z.string(), 'when it was finalized'),
  })
  .describe('the report receipt (spec 2.11)');

export const getOperationResult = defineTool({
  name: 'get_operation_result',
  description: `Reads a report request's receipt (from request_report or an automation): provider status, the protected artifact (byte size, media type, checksum, expiry), ingestion status (never imported automatically), and a preview of the artifact's bytes: limit bytes (default ${PREVIEW_DEFAULT_BYTES}, at most ${PREVIEW_MAX_BYTES}) from cursor; follow next_cursor for more. download_path serves the whole artifact with your MCP bearer token (Authorization: Bearer …). refresh: true schedules a status check of a report the provider already has (never creates one). continuation, when a page has a next one, goes to request_report.`,
  annotations: {
    title: 'Get operation result',
    readOnlyHint: true,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false,
  },
  input: {
    mutation_id: z.string().min(1).describe('the report receipt id'),
    cursor: z.string().min(1).max(100).optional().describe("the previous answer's next_cursor"),
    limit: z
      .number()
      .int()
      .min(1)
      .max(PREVIEW_MAX_BYTES)
      .optional()
      .describe(`preview bytes (default ${PREVIEW_DEFAULT_BYTES})`),
    refresh: z.boolean().optional().describe("schedules a status check of the provider's report"),
  },
  output: z.object({
    receipt: reportReceiptSchema,
    refresh_scheduled: z
      .boolean()
      .describe('true when refresh scheduled a status check (the provider id is known and the request is not final)'),
    preview: z
      .object({
        offset: z.number().int().describe('the first byte shown'),
        bytes: z.number().int().describe('how many bytes are shown'),
        text: z.string().describe('those bytes as UTF-8'),
      })
      .nullable()
      .describe('null until the artifact is stored, or once it expired'),
    next_cursor: z.string().nullable().describe('the cursor of the next preview bytes; null at the end'),
    download_path: z
      .string()
      .nullable()
      .describe('GET it on this service with your MCP bearer token for the whole artifact; null without one'),
    continuation: z
      .string()
      .nullable()
      .describe('pass it to request_report to queue the next page; null when there is none'),
  }),
  async handler(input, ctx) {
    const id = input.mutation_id.trim().toLowerCase();
    const accounts = (await loadAccounts(ctx.db, ctx.userId)).map((a) => a.id);
    const state = UUID_PATTERN.test(id) ? await findReport(ctx.db, accounts, id) : null;
    if (!state)
      throw new DomainError('not_found', `mutation_id: no report receipt '${input.mutation_id}' on your accounts`, {
        argument: 'mutation_id',
      });
    let refresh_scheduled = false;
    if (input.refresh && refreshable(state)) {
      await handleCommand(
        reportDecider,
        id,
        { type: 'RequestRefresh', by: ctx.userId, at: ctx.now().toISOString() },
        {
          store: recordingStore(ctx),
          metadata: { actor: { kind: 'user', id: ctx.userId }, account_id: state.requested!.account_id },
        },
      );
      refresh_scheduled = true;
    }
    const receipt = reportView(state);
    const offset = input.cursor === undefined ? 0 : offsetOf(input.cursor, id);
    const limit = input.limit ?? PREVIEW_DEFAULT_BYTES;
    const artifact = state.artifact ? await readArtifact(ctx.db, id, ctx.now(), { offset, length: limit }) : null;
    const end = artifact ? offset + artifact.bytes.length : 0;
    return {
      receipt,
      refresh_scheduled,
      preview: artifact ? { offset, bytes: artifact.bytes.length, text: artifact.bytes.toString('utf8') } : null,
      next_cursor: artifact && end < artifact.total ? cursorOf(end, id) : null,
      download_path: artifact ? artifactPath(id) : null,
      continuation: receipt.status === 'completed' && receipt.has_continuation ? continuationOf(id) : null,
    };
  },
});

/** A preview cursor: the next byte's offset, bound to the receipt it reads. */
const cursorOf = (offset: number, id: string): string => Buffer.from(`${offset}:${id}`).toString('base64url');

function offsetOf(cursor: string, id: string): number {
  const [offset, of] = Buffer.from(cursor, 'base64url').toString('utf8').split(':');
  const n = Number(offset);
  if (of !== id || !Number.isSafeInteger(n) || n < 0 || cursorOf(n, id) !== cursor)
    throw new DomainError(
      'invalid_cursor',
      "cursor: not a next_cursor of this receipt's preview; read it again without cursor",
      {
        argument: 'cursor',
      },
    );
  return n;
}
