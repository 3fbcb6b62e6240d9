import { performance } from 'node:perf_hooks';
import type { CallToolResult, Tool as ToolListing, ToolAnnotations } from '@modelcontextprotocol/server';
import { z } from 'zod';
import type { Knex } from '../infra/db.js';
import type { DispatchNotifier } from '../commands/mutation/dispatch-notifier.js';
import type { EventStore } from '../eventstore/port.js';
import type { LwaClient, RetryPolicy } from '../marketplace/clients/index.js';
import type { Logger } from '../infra/logger.js';
import type { Sandbox } from '../runtime/sandbox/index.js';
import type { DryRunGate } from './dry-runs.js';
import type { LiveReadAccess } from '../catalog/live-read/execute.js';
import { DomainError } from '../domain/shared/errors.js';
import type { Principal } from './auth.js';
import { argumentBoundsError } from './argument-bounds.js';
import { type Lap, phaseClock } from './phases.js';
import { withOwnWrites } from './read-your-writes.js';
import { appLink } from './resources/apps.js';
import { errorResult, inputError, jsonResult, unexpectedError, unstorableTextAt } from './errors.js';

export type Endpoint = 'mcp' | 'demo';

/** How tools that call the marketplace live reach it: the same endpoints and credentials the
 * sync workers use (SyncDeps). */
export interface MarketplaceAccess {
  sellingApiUrl: string;
  lwa: LwaClient;
  /** the selling connection's refresh token; absent when none is configured */
  sellingRefreshToken?: string;
  /** the clients' retry policy, shortened for calls a user waits on */
  retry?: Partial<RetryPolicy>;
}

/** What a tool handler gets besides its input: who calls, through which endpoint. */
export interface ToolContext {
  db: Knex;
  userId: string;
  endpoint: Endpoint;
  /**
   * On the demo, where every visitor is the demo user: the visitor's address (throttle.ts' demoCaller), whose
   * calls the per-user limits count apart from other visitors'. Absent elsewhere.
   */
  caller?: string;
  /** the token's holder, scopes and client on /mcp; absent on the demo endpoint and over stdio */
  principal?: Principal;
  /** already carries the request id */
  logger: Pick<Logger, 'debug' | 'info' | 'warn' | 'error'>;
  requestId: string;
  /** ends a phase of the call's time (phases.ts); set only while someone listens */
  lap?: Lap;
  /** the service's clock (tests and the simulator's time travel set their own) */
  now: () => Date;
  /** where write tools record their events; absent where the service serves reads only */
  store?: EventStore;
  /** where write tools hand the receipts they queued; absent, the dispatch workers' sweep finds them */
  dispatch?: DispatchNotifier;
  /** absent where the service has no marketplace to call */
  marketplace?: MarketplaceAccess;
  /** where dry runs run automations; absent, run_automation answers `unavailable` */
  sandbox?: Sandbox;
  /** the dry runs' rate limit and one-at-a-time state (Redis, shared by every api process) */
  dryRuns?: DryRunGate;
  /** what read_amazon_operation reads the marketplace with; absent, it answers `unavailable` */
  liveReads?: LiveReadAccess;
  /** where backtest_automation hands the backtests it starts; absent, it starts none (`unavailable`) */
  backtests?: BacktestStarter;
}

/** What a call may use besides who calls: the service's store, sandbox, queues and marketplace access. */
export type ToolServices = Pick<
  ToolContext,
  'store' | 'dispatch' | 'marketplace' | 'sandbox' | 'dryRuns' | 'liveReads' | 'backtests'
>;

/** Hands a recorded backtest to the backtest workers. */
export interface BacktestStarter {
  enqueue(backtest_id: string): Promise<void>;
}

/** Every hint a client may act on, stated (spec 4.1's kind decides `readOnlyHint`). */
export type CompleteAnnotations = Required<
  Pick<ToolAnnotations, 'title' | 'readOnlyHint' | 'destructiveHint' | 'idempotentHint' | 'openWorldHint'>
>;

/** A tool's answer: an object whose schema is the tool's `outputSchema`. */
export type OutputSchema = z.ZodType<Record<string, unknown>>;

export interface ToolSpec<Shape extends z.ZodRawShape, Output extends OutputSchema> {
  name: string;
  description: string;
  annotations: CompleteAnnotations;
  /** the arguments; the object is made strict, so any other key is `unknown_argument` */
  input: Shape;
  /** the spec's own error for a required argument left out, where it has one (else `invalid`) */
  missing?: { [K in keyof Shape]?: () => DomainError };
  /**
   * The answer's schema: it gives the listing's `outputSchema` and shapes what the handler returns
   * (keys it does not name are not sent); an answer it refuses is a bug, answered `unavailable`.
   */
  output: Output;
  /** the `ui://` resource of an MCP App that draws this tool's answer (resources/apps.ts); the answer stays the same */
  app?: string;
  handler: (input: z.output<z.ZodObject<Shape, z.core.$strict>>, ctx: ToolContext) => Promise<z.input<Output>>;
}

export interface Tool {
  name: string;
  listing: ToolListing;
  call(args: unknown, ctx: ToolContext): Promise<CallToolResult>;
}

/**
 * A tool that only reads the service's own data (no write, no marketplace call): its name, its
 * title, and the annotations every such tool declares, so they are said once.
 */
export function readTool<Shape extends z.ZodRawShape, Output extends OutputSchema>(
  name: string,
  title: string,
  spec: Omit<ToolSpec<Shape, Output>, 'name' | 'annotations'>,
): Tool {
  return defineTool({
    ...spec,
    name,
    annotations: { title, readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  });
}

/** A zod schema as the JSON Schema a tool listing carries (no `$schema` key). */
function jsonSchemaOf(schema: z.ZodType, io: 'input' | 'output') {
  const { $schema: _, ...json } = z.toJSONSchema(schema, { target: 'draft-7', io });
  return json;
}

export function defineTool<Shape extends z.ZodRawShape, Output extends OutputSchema>(
  spec: ToolSpec<Shape, Output>,
): Tool {
  const schema = z.strictObject(spec.input);
  // We validate ourselves (not the SDK) so that failures carry the spec's codes.
  const inputSchema = jsonSchemaOf(schema, 'input');
  return {
    name: spec.name,
    listing: {
      name: spec.name,
      description: spec.description,
      annotations: spec.annotations,
      inputSchema: inputSchema as ToolListing['inputSchema'],
      outputSchema: jsonSchemaOf(spec.output, 'output') as ToolListing['outputSchema'],
      ...(spec.app ? { _meta: appLink(spec.app) } : {}),
    },
    async call(args, ctx) {
      const clock = phaseClock(spec.name);
      const result = await withOwnWrites(ctx, (ctx) => {
        clock?.lap('own writes');
        return respond(args, clock ? { ...ctx, lap: clock.lap } : ctx);
      });
      clock?.publish();
      return result;
    },
  };

  async function respond(args: unknown, ctx: ToolContext): Promise<CallToolResult> {
    const started = performance.now();
    const log = (level: 'info' | 'error', fields: Record<string, unknown>) =>
      ctx.logger[level](
        { tool: spec.name, duration_ms: Math.round((performance.now() - started) * 1000) / 1000, ...fields },
        'tool call',
      );
    try {
      // bounded first: everything after walks the arguments recursively
      const unbounded = argumentBoundsError(args);
      if (unbounded) throw unbounded;
      const parsed = schema.safeParse(args ?? {});
      if (!parsed.success) throw inputError(parsed.error, args, spec.missing);
      const unstorable = unstorableTextAt(parsed.data);
      if (unstorable)
        throw new DomainError(
          'invalid',
          `${unstorable}: holds a NUL character (\\u0000) or a lone UTF-16 surrogate, which cannot be stored; remove it`,
          { argument: unstorable },
        );
      ctx.lap?.('arguments');
      const answer = await spec.handler(parsed.data, ctx);
      const shaped = spec.output.safeParse(answer);
      if (!shaped.success)
        throw new Error(`${spec.name}: the answer does not match its output schema`, { cause: shaped.error });
      ctx.lap?.('output schema');
      const result = jsonResult(shaped.data);
      ctx.lap?.('JSON text');
      log('info', { outcome: 'ok' });
      return result;
    } catch (err) {
      if (err instanceof DomainError) {
        log('info', { outcome: 'error', code: err.code });
        return errorResult(err);
      }
      const answer = unexpectedError();
      log('error', { outcome: 'error', code: answer.code, err });
      return errorResult(answer);
    }
  }
}
