import type { Knex } from 'knex';
import { z } from 'zod';
import { DomainError } from '../../domain/shared/errors.js';
import { withAccessToken } from '../../marketplace/clients/authorized.js';
import { createHttp, endpointUrl } from '../../marketplace/clients/http.js';
import { MarketplaceError, type LwaClient } from '../../marketplace/clients/index.js';
import type { AccountView } from '../../projections/accounts/queries.js';
import { READ_MODEL_SCHEMA } from '../../projections/projection.js';
import { connectionCredentials, type CredentialsLookup } from '../../workers/credentials.js';
import { operationUnavailable, pinnedRevision } from '../../commands/mutation/catalog-admission.js';
import { findOperation, type CatalogOperation } from '../queries.js';
import { LIVE_READ_ADAPTERS, type LiveReadAdapter } from './adapters.js';
import { takeSlot, type Budget } from './budget.js';
import { openCursor, sealCursor, type CursorBinding } from './cursor.js';
import { requestParts, type RequestParts } from './parameters.js';
import { resolveReadTarget, type ReadScope } from './target.js';

// One page of a reviewed live read (spec 4.9 `read_amazon_operation`, 7 "Catalog admission" and
// "Live read"; docs/decisions/107 and 108): checked like an admission (revision, review,
// target, parameters, cursor), then one provider call through the marketplace clients' HTTP
// layer with the connection's own credentials, inside a 30 s deadline that includes the wait for
// a slot of the shared provider budget. The answer is handed back as the provider sent it and
// stored nowhere; a page over 64 KiB (its cursor included) is refused whole.

export const LIVE_READ_DEADLINE_MS = 30_000;
export const LIVE_READ_MAX_BYTES = 64 * 1024;
/** The longest wait for a budget slot before answering rate_limited (docs/decisions/108). */
export const BUDGET_MAX_WAIT_MS = 5_000;

export interface LiveReadAccess {
  endpoints: { sellingApiUrl: string; adsApiUrl: string };
  lwa: LwaClient;
  /** the configured credential sets a connection names */
  credentials: CredentialsLookup;
  budget: Budget;
  /** the AES-256 key cursors are sealed with (cursorKey of the configured secret) */
  cursorKey: Buffer;
  /** the read's deadline; spec 8's 30 s unless a test shortens it */
  deadlineMs?: number;
}

export interface LiveReadCall {
  userId: string;
  accounts: readonly AccountView[];
  operation: string;
  catalog_revision: string;
  target: { type: string; id: string };
  parameters?: Record<string, unknown> | undefined;
  cursor?: string | undefined;
  now: Date;
}

export interface LiveReadPage {
  operation: string;
  catalog_revision: string;
  target: { type: string; id: string };
  scope: { account_id: string; seller_id: string | null; marketplace_id: string | null; profile_id: string | null };
  status: number;
  result: unknown;
  next_cursor: string | null;
  read_at: string;
}

/** The operation, its adapter and the target's scope, or the admission error that refuses the read. */
async function admit(db: Knex, call: LiveReadCall) {
  const current = await pinnedRevision(db, call.catalog_revision, 'catalog_revision');
  const op = await findOperation(db, call.operation, current);
  if (!op)
    throw new DomainError(
      'invalid',
      `operation: no operation '${call.operation}' in catalog revision ${current}; find one with search_amazon_operations`,
      { argument: 'operation' },
    );
  const adapter = op.review === 'live_read' ? LIVE_READ_ADAPTERS[op.operationId] : undefined;
  if (!adapter) throw operationUnavailable(op, 'operation', 'live_read');
  if (call.target.type !== adapter.target)
    throw new DomainError(
      'invalid',
      `target.type: '${op.key}' reads ${adapter.target} targets, not ${call.target.type}`,
      {
        argument: 'target.type',
      },
    );
  const scope = await resolveReadTarget(db, call.accounts, call.target);
  return { op, adapter, scope };
}

export async function readOperation(db: Knex, access: LiveReadAccess, call: LiveReadCall): Promise<LiveReadPage> {
  const startedAt = Date.now();
  const deadlineMs = access.deadlineMs ?? LIVE_READ_DEADLINE_MS;
  const { op, adapter, scope } = await admit(db, call);
  const binding: CursorBinding = {
    userId: call.userId,
    operation: op.key,
    catalogRevision: op.revision,
    target: { type: call.target.type, id: call.target.id.trim().toLowerCase() },
  };
  let parameters = call.parameters ?? {};
  let continuation: string | undefined;
  if (call.cursor !== undefined) {
    if (call.parameters !== undefined)
      throw new DomainError(
        'invalid',
        'parameters: a continuation reads with the first page’s parameters, which its cursor carries; leave parameters out',
        { argument: 'parameters' },
      );
    ({ parameters, continuation } = openCursor(access.cursorKey, binding, call.cursor, call.now));
  }
  const parts = requestParts(
    op,
    parameters,
    {
      derived: adapter.derive(scope),
      ...(adapter.withinScope ? { withinScope: adapter.withinScope(scope) } : {}),
      ...(adapter.defaults ? { defaults: adapter.defaults(scope) } : {}),
      ...(adapter.paging ? { paging: adapter.paging.parameter } : {}),
    },
    continuation,
  );
  const remaining = () => deadlineMs - (Date.now() - startedAt);
  const answer = await withinDeadline(remaining(), deadlineMs, async () => {
    await waitForBudget(access.budget, op, adapter, scope, remaining());
    return send(db, access, op, scope, parts, remaining());
  });
  const mismatch = adapter.identity?.(answer.body, scope) ?? null;
  if (mismatch)
    throw new DomainError('invalid_response', `the marketplace's answer failed its identity check: ${mismatch}`);
  const next = adapter.paging?.next(answer.body);
  const page: LiveReadPage = {
    operation: op.key,
    catalog_revision: op.revision,
    target: call.target,
    scope: {
      account_id: scope.account.id,
      seller_id: scope.sellerId ?? null,
      marketplace_id: scope.marketplaceId ?? null,
      profile_id: scope.profileId ?? null,
    },
    status: answer.status,
    result: answer.body,
    next_cursor:
      typeof next === 'string' && next !== ''
        ? sealCursor(access.cursorKey, binding, { continuation: next, parameters }, call.now)
        : null,
    read_at: call.now.toISOString(),
  };
  const bytes = Buffer.byteLength(JSON.stringify(page));
  if (bytes > LIVE_READ_MAX_BYTES)
    throw new DomainError(
      'response_too_large',
      `the page is ${bytes} bytes, over the ${LIVE_READ_MAX_BYTES}-byte limit of a live read; nothing is returned. Ask for a smaller page (a page size or filter parameter)`,
      { bytes },
    );
  return page;
}

/** Runs `work` or answers deadline_exceeded once `ms` have passed (the call still in flight is abandoned). */
async function withinDeadline<T>(ms: number, deadlineMs: number, work: () => Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const passed = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new DomainError(
            'deadline_exceeded',
            `the read passed its ${deadlineMs / 1000} second deadline (quota waits included); retry later or ask for less`,
          ),
        ),
      Math.max(0, ms),
    );
  });
  try {
    return await Promise.race([work(), passed]);
  } finally {
    clearTimeout(timer);
  }
}

async function waitForBudget(
  budget: Budget,
  op: CatalogOperation,
  adapter: LiveReadAdapter,
  scope: ReadScope,
  remainingMs: number,
): Promise<void> {
  // the provider counts per selling partner or advertiser; a profile's reads, per profile
  const who = scope.profileId ?? scope.sellerId ?? scope.advertiserId ?? scope.account.id;
  const slot = await takeSlot(
    budget,
    `${op.provider}:${op.operationId}:${who}`,
    adapter.rate,
    Math.min(BUDGET_MAX_WAIT_MS, remainingMs),
  );
  if ('retryAfterMs' in slot)
    throw new DomainError(
      'rate_limited',
      `the shared budget of ${op.operationId} for this ${scope.profileId ? 'profile' : 'seller'} has no slot for ${Math.ceil(slot.retryAfterMs / 1000)} seconds (${adapter.rate.perSecond} per second, bursts of ${adapter.rate.burst}, shared by every user of it)`,
      { retry_after_seconds: Math.max(1, Math.ceil(slot.retryAfterMs / 1000)) },
    );
  if (slot.waitMs > 0) await new Promise((resolve) => setTimeout(resolve, slot.waitMs));
}

/** The refresh token of the target's connection, from the credential set it names. */
async function refreshTokenOf(db: Knex, access: LiveReadAccess, scope: ReadScope): Promise<string> {
  const row: { selling: { credentials?: string | null } | null; ads: { credentials?: string | null } | null } = await db
    .withSchema(READ_MODEL_SCHEMA)
    .table('accounts')
    .where({ account_id: scope.account.id })
    .first('selling', 'ads');
  const credentials = await connectionCredentials(access.credentials, row?.[scope.connection]);
  const token = scope.connection === 'ads' ? credentials.ads_refresh_token : credentials.selling_refresh_token;
  if (!token)
    throw new DomainError(
      'not_connected',
      `account ${scope.account.id} (${scope.account.name}): the service holds no credentials of its ${scope.connection === 'ads' ? 'advertising' : 'selling'} connection`,
    );
  return token;
}

const queryText = (query: Record<string, unknown>) => {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query))
    params.set(k, Array.isArray(v) ? v.join(',') : typeof v === 'object' ? JSON.stringify(v) : String(v));
  const text = params.toString();
  return text ? `?${text}` : '';
};

async function send(
  db: Knex,
  access: LiveReadAccess,
  op: CatalogOperation,
  scope: ReadScope,
  parts: RequestParts,
  remainingMs: number,
): Promise<{ status: number; body: unknown }> {
  const refreshToken = await refreshTokenOf(db, access, scope);
  const ads = op.provider === 'ads_api';
  const path = op.path.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(parts.path[name] ?? ''));
  const url =
    endpointUrl(ads ? access.endpoints.adsApiUrl : access.endpoints.sellingApiUrl, path) + queryText(parts.query);
  // a user waits: a few quick attempts, each inside what is left of the deadline
  const http = createHttp({
    attempts: 3,
    timeoutMs: Math.max(1, Math.min(10_000, remainingMs)),
    minDelayMs: 200,
    maxDelayMs: 2_000,
    maxRetryAfterMs: Math.max(0, remainingMs - 1_000),
  });
  const accept = Object.keys(op.responses['200']?.content ?? {})[0];
  let status = 0;
  try {
    const body = await withAccessToken(access.lwa, refreshToken, (accessToken) =>
      http({
        api: ads ? 'ads API' : 'selling API',
        method: op.method,
        url,
        headers: {
          ...parts.headers,
          ...(ads
            ? { authorization: `Bearer ${accessToken}`, 'amazon-advertising-api-clientid': access.lwa.clientId }
            : { 'x-amz-access-token': accessToken }),
          ...(accept ? { accept } : {}),
          ...(parts.mediaType ? { 'content-type': parts.mediaType } : {}),
        },
        ...(parts.body ? { json: parts.body } : {}),
        // a read: safe to send again after a lost answer whatever its verb
        idempotent: true,
        schema: z.unknown(),
        onAnswer: (a) => {
          status = a.status;
        },
      }),
    );
    return { status, body };
  } catch (err) {
    throw providerFailure(err, op);
  }
}

/** A provider failure as spec 7's live-read codes; the provider's own message is never repeated. */
function providerFailure(err: unknown, op: CatalogOperation): unknown {
  if (!(err instanceof MarketplaceError)) return err;
  const what = `${op.operationId}: the marketplace answered ${err.status ?? 'nothing'}${err.code ? ` (${err.code})` : ''}`;
  const request = err.requestId ? { provider_request_id: err.requestId } : {};
  if (err.code === 'invalid_response')
    return new DomainError(
      'invalid_response',
      `${op.operationId}: the marketplace's answer could not be read`,
      request,
    );
  if (err.status === 429)
    return new DomainError('rate_limited', `${what}: the marketplace's own quota is spent; retry later`, {
      retry_after_seconds: Math.max(1, Math.ceil((err.retryAfterMs ?? 1000) / 1000)),
      ...request,
    });
  if (err.status === null || err.status >= 500 || err.status === 408)
    return new DomainError(
      'amazon_unavailable',
      `${what}; the marketplace is unreachable or failing, retry later`,
      request,
    );
  return new DomainError('amazon_error', `${what}: it refused the read`, { status: err.status, ...request });
}
