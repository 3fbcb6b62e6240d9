import type { Knex } from 'knex';
import { reportDecider, replayVerdict } from '../../domain/report/decide.js';
import type { ReportCorrelation, ReportRequestedData } from '../../domain/report/events.js';
import { REPORT_LIMITS } from '../../domain/report/limits.js';
import { checkedParameters, reportMarketplaces, reportOperation } from '../../domain/report/operations.js';
import { reportView, type ReportView } from '../../domain/report/view.js';
import { canonicalJson, sha256 } from '../../domain/shared/canonical.js';
import { DomainError } from '../../domain/shared/errors.js';
import { stableId, UUID_PATTERN } from '../../domain/shared/ids.js';
import type { EventStore } from '../../eventstore/port.js';
import { pollUntil } from '../../infra/poll.js';
import type { AccountView } from '../../projections/accounts/queries.js';
import { hasApplied } from '../../projections/checkpoints.js';
import { reportsProjection } from '../../projections/reports/projection.js';
import { outstandingReports } from '../../projections/reports/queries.js';
import { aggregateStream, handleCreation } from '../shared/handler.js';
import { admissibleReportOperation } from './catalog.js';

// Admits one report request (spec 4.9 request_report; 3: a receipt with a mutation id): from a
// tool call, or from an automation run's outbox. The receipt's id derives from the caller's
// namespace and idempotency key, so the request's stream is created once: a retry with the same
// input finds it and replays it, another input is `idempotency_conflict`.
//
// Validated like catalog admission: the pinned revision (`schema_changed`), the operation
// (`operation_unavailable`), the target (`target_not_found`), derived values (`scope_mismatch`)
// and the native parameters (`invalid_parameters`). A continuation names the previous page's
// receipt and repeats its operation, target, parameters and revision. At most 10 requests of a
// namespace are outstanding, and a completion run's request is refused past depth 5.

export interface ReportDeps {
  db: Knex;
  store: EventStore;
  now: () => Date;
}

export interface ReportRequestInput {
  /** `user:<id>` for a tool call, `automation:<id>` for an automation's run */
  namespace: string;
  /** whose accounts the target must be on */
  accounts: readonly AccountView[];
  idempotency_key: string;
  operation?: string | undefined;
  target?: { type: string; id: string } | undefined;
  parameters?: Record<string, unknown> | undefined;
  catalog_revision?: string | undefined;
  continuation?: string | undefined;
  automation_id: string | null;
  /** an automation run's request: where it came from; its depth is the parent's + 1 */
  origin?: { correlation: Omit<ReportCorrelation, 'root'> & { root: string | null }; depth: number };
  /** who is recorded as acting */
  actor: { kind: 'user' | 'automation'; id: string };
  /** an automation's dry run: checked as it would be admitted, nothing recorded */
  simulate?: boolean;
}

export interface ReportAnswer {
  receipt: ReportView;
  replayed: boolean;
}

/** The receipt id a namespace's idempotency key names. */
export const reportReceiptId = (namespace: string, key: string): string =>
  stableId('report', `${namespace}\u0000${key}`);

/** `continuation` as get_operation_result hands it out: an opaque handle of the page it follows. */
export const continuationOf = (mutation_id: string): string => Buffer.from(`rc1:${mutation_id}`).toString('base64url');

function pageOf(continuation: string): string {
  const text = Buffer.from(continuation, 'base64url').toString('utf8');
  const id = text.startsWith('rc1:') ? text.slice(4) : '';
  if (!UUID_PATTERN.test(id) || continuationOf(id) !== continuation)
    throw new DomainError('invalid_cursor', 'continuation: not a continuation get_operation_result handed out', {
      argument: 'continuation',
    });
  return id.toLowerCase();
}

export async function requestReport(deps: ReportDeps, input: ReportRequestInput): Promise<ReportAnswer> {
  const mutation_id = reportReceiptId(input.namespace, input.idempotency_key);
  const fingerprint = sha256(
    canonicalJson({
      operation: input.operation ?? null,
      target: input.target ?? null,
      parameters: input.parameters ?? null,
      catalog_revision: input.catalog_revision ?? null,
      continuation: input.continuation ?? null,
    }),
  );
  const replay = async (): Promise<ReportAnswer | null> => {
    const { state } = await aggregateStream(deps.store, reportDecider, mutation_id);
    if (!state.requested) return null;
    replayVerdict(state.requested, fingerprint);
    return { receipt: reportView(state), replayed: true };
  };
  const earlier = await replay();
  if (earlier) return earlier;

  const request = await admissible(deps, input, mutation_id, fingerprint);
  if (input.simulate)
    return { receipt: reportView({ ...reportDecider.initialState(), requested: request }), replayed: false };
  return deps.db.transaction(async (trx) => {
    // one admission per namespace at a time, counted once the read model shows every earlier one
    await trx.raw('select pg_advisory_xact_lock(hashtext(?))', [`report-outstanding:${input.namespace}`]);
    const head = await deps.store.headPosition();
    if (head) await pollUntil(() => hasApplied(deps.db, reportsProjection.name, head), 5_000, 10);
    const outstanding = await outstandingReports(deps.db, input.namespace);
    if (outstanding >= REPORT_LIMITS.outstanding)
      throw new DomainError(
        'rate_limited',
        `${outstanding} report requests of ${input.automation_id ? `automation ${input.automation_id}` : 'yours'} are still outstanding; at most ${REPORT_LIMITS.outstanding}. Wait for one to complete (get_operation_result)`,
        { retry_after_seconds: 30 },
      );
    const created = await handleCreation(
      reportDecider,
      mutation_id,
      { type: 'RequestReport', request },
      {
        store: deps.store,
        metadata: {
          actor: input.actor,
          account_id: request.account_id,
          ...(request.correlation ? { correlation_id: request.correlation.event } : {}),
        },
      },
    );
    // another call with the same key won the creation meanwhile
    if (created.existed) return (await replay())!;
    return { receipt: reportView({ ...reportDecider.initialState(), requested: request }), replayed: false };
  });
}

/** The request as it would be recorded, or the admission error that refuses it. */
async function admissible(
  deps: ReportDeps,
  input: ReportRequestInput,
  mutation_id: string,
  fingerprint: string,
): Promise<ReportRequestedData> {
  const depth = input.origin ? input.origin.depth : 1;
  if (depth > REPORT_LIMITS.depth)
    throw new DomainError(
      'rate_limited',
      `this report would be number ${depth} of a chain of report completions; chains stop at depth ${REPORT_LIMITS.depth}`,
    );
  const base = {
    mutation_id,
    namespace: input.namespace,
    idempotency_key: input.idempotency_key,
    fingerprint,
    automation_id: input.automation_id,
    depth,
    correlation: input.origin
      ? { ...input.origin.correlation, root: input.origin.correlation.root ?? mutation_id }
      : null,
    at: deps.now().toISOString(),
  };
  if (input.continuation !== undefined) {
    const given = (['operation', 'target', 'parameters', 'catalog_revision'] as const).filter(
      (k) => input[k] !== undefined,
    );
    if (given.length > 0)
      throw new DomainError(
        'invalid',
        `${given.join(', ')}: a continuation repeats the previous page's request; pass continuation alone`,
        { argument: given[0]! },
      );
    const previous = pageOf(input.continuation);
    const { state } = await aggregateStream(deps.store, reportDecider, previous);
    const first = state.requested;
    if (!first || !input.accounts.some((a) => a.id === first.account_id) || !state.artifact?.continuation_token)
      throw new DomainError(
        'invalid_cursor',
        'continuation: no page of yours with a continuation; request the report again without it',
        { argument: 'continuation' },
      );
    await admissibleReportOperation(deps.db, first.operation!, first.catalog_revision);
    return {
      ...base,
      account_id: first.account_id,
      operation: first.operation,
      api: first.api,
      catalog_revision: first.catalog_revision,
      target: first.target,
      marketplace_ids: first.marketplace_ids,
      profile_id: first.profile_id,
      parameters: first.parameters,
      previous_page: previous,
      continuation_token: state.artifact.continuation_token,
    };
  }
  const missing = (['operation', 'target', 'catalog_revision'] as const).find((k) => input[k] === undefined);
  if (missing)
    throw new DomainError('invalid', `${missing}: required unless continuation is given`, { argument: missing });
  const operation = input.operation!;
  await admissibleReportOperation(deps.db, operation, input.catalog_revision!);
  const spec = reportOperation(operation);
  if (!spec)
    throw new DomainError(
      'operation_unavailable',
      `operation: ${operation} is not a report operation request_report queues (see search_amazon_operations)`,
      { argument: 'operation', reason: 'not_a_report' },
    );
  const parameters = checkedParameters(operation, input.parameters);
  const target = input.target!;
  const notFound = () =>
    new DomainError(
      'target_not_found',
      `target: no ${target.type} '${target.id}' on your accounts (${operation} runs on a ${spec.targetType}: ${spec.targetType === 'SellingPartner' ? "the selling connection's id from connection_status" : 'an advertising profile id from connection_status'})`,
      { argument: 'target' },
    );
  if (target.type !== spec.targetType) throw notFound();
  const id = target.id.toLowerCase();
  const fresh = (
    account_id: string,
    scope: Pick<ReportRequestedData, 'marketplace_ids' | 'profile_id' | 'parameters'>,
  ): ReportRequestedData => ({
    ...base,
    account_id,
    operation,
    api: spec.api,
    catalog_revision: input.catalog_revision!,
    target: { type: target.type, id },
    ...scope,
    previous_page: null,
    continuation_token: null,
  });
  if (spec.targetType === 'SellingPartner') {
    const account = input.accounts.find((a) => a.selling?.id === id);
    if (!account?.selling) throw notFound();
    const admitted = account.selling.marketplaces.map((m) => m.marketplace_id);
    const marketplace_ids = reportMarketplaces(parameters.marketplaceIds as string[] | undefined, admitted);
    return fresh(account.id, {
      marketplace_ids,
      profile_id: null,
      parameters: spec.api === 'reports' ? { ...parameters, marketplaceIds: marketplace_ids } : parameters,
    });
  }
  for (const account of input.accounts) {
    const profile = account.ads?.profiles.find((p) => p.id === id);
    if (profile)
      return fresh(account.id, {
        marketplace_ids: [profile.marketplace_id],
        profile_id: profile.provider_profile_id,
        parameters,
      });
  }
  throw notFound();
}
