import { recordMarketplaceEvent } from '../../commands/event/record.js';
import { storeArtifact } from '../../commands/report/artifacts.js';
import { aggregateStream, handleCommand, type CommandContext } from '../../commands/shared/handler.js';
import { reportDecider, type ReportCommand, type ReportState } from '../../domain/report/decide.js';
import type { ProviderTerminal, ReportRequestedData } from '../../domain/report/events.js';
import { REPORT_LIMITS } from '../../domain/report/limits.js';
import { reportOperation, reportTypeOf } from '../../domain/report/operations.js';
import { MarketplaceError } from '../../marketplace/clients/errors.js';
import { reportIdsWithWork } from '../../projections/reports/queries.js';
import type { HeldPartitions } from '../../domain/shared/partitions.js';
import { startSweeps } from '../sweeps.js';
import type { SyncDeps } from '../sync/job.js';
import { reportProvider } from './provider.js';

// The report worker (spec 2.11, 6.3): takes every outstanding report request from the read model
// and moves it one step at a time, each recorded on the request's stream before the next begins:
// submit (the provider's id recorded), check the status (a change recorded), transfer the artifact
// (stored protected, then recorded with size, media type, checksum and expiry), finalize (never
// imported automatically) and record the completion event, which starts the account's live
// automation of SELLING_REPORT_COMPLETED or ADS_REPORT_COMPLETED like any marketplace event.
//
// Several workers share the requests by the live reactor's partitions of accounts (each sweeps the
// accounts of the partitions it holds), so one request is not submitted by two at once.
//
// Nothing lives only in memory: the state is the log, and the sweep reads the read model again
// every round, so a restart at any point carries on from the last recorded step. A step done
// twice (a crash between the provider call and its record) records nothing twice; only a report
// created at the provider just before a crash is created again.

export interface ReportWorkerOptions {
  /** how often the outstanding requests are swept (default 1 s) */
  everyMs?: number;
  /** how long after a check a pending report is checked again, unless a caller asks (default 5 s) */
  checkEveryMs?: number;
  /** the partitions of accounts this worker holds (the live reactor's): two workers never submit one request twice */
  partitions?: () => HeldPartitions;
}

/** The message id of a request's completion event: one per receipt, so recording it twice records it once. */
export const completionMessageId = (mutation_id: string): string => `report-completed.${mutation_id}`;

/** Moves one request one or more steps on; `pending` when it waits for the provider. */
export async function advanceReport(
  deps: SyncDeps,
  mutation_id: string,
  checkedRecently = false,
): Promise<'pending' | 'completed' | 'missing'> {
  const ctx = (request: ReportRequestedData): CommandContext => ({
    store: deps.ctx.store,
    metadata: {
      actor: { kind: 'worker', id: 'reports' },
      account_id: request.account_id,
      ...(request.correlation ? { correlation_id: request.correlation.event } : {}),
    },
  });
  let { state } = await aggregateStream(deps.ctx.store, reportDecider, mutation_id);
  const request = state.requested;
  if (!request) return 'missing';
  const record = async (command: ReportCommand) => {
    await handleCommand(reportDecider, mutation_id, command, ctx(request));
    state = (await aggregateStream(deps.ctx.store, reportDecider, mutation_id)).state;
  };
  const at = () => deps.now().toISOString();
  const finalize = (provider_status: ProviderTerminal, error: string | null) =>
    record({ type: 'Finalize', provider_status, error, at: at() });

  if (!state.finalized) {
    // built only when the provider is called: a report checked recently waits without a read or a lookup
    let built: ReturnType<typeof reportProvider> | undefined;
    const provider = () => (built ??= reportProvider(deps, request));
    if (!state.provider_id) {
      try {
        await record({ type: 'RecordSubmission', provider_id: await (await provider()).create(), at: at() });
      } catch (err) {
        // the provider refused the request itself: nothing will come of retrying it
        if (!(err instanceof MarketplaceError) || err.retryable) throw err;
        await finalize('FATAL', `the provider refused the request (HTTP ${err.status ?? '?'}, ${err.code})`);
      }
    }
    if (!state.finalized && !state.artifact) {
      if (checkedRecently && !state.refresh_requested_at) return 'pending';
      const check = await (await provider()).check(state.provider_id!);
      await record({ type: 'RecordStatus', provider_status: check.status, at: at() });
      if (check.state === 'pending') return 'pending';
      if (check.state === 'done') {
        const stored = await storeArtifact(deps.db, {
          mutation_id,
          account_id: request.account_id,
          media_type: check.document.media_type,
          body: check.document.body,
          expires_at: new Date(deps.now().getTime() + REPORT_LIMITS.artifactTtlMs),
        });
        await record({
          type: 'StoreArtifact',
          artifact: { ...stored, continuation_token: check.document.continuation },
          at: at(),
        });
      } else
        await finalize(
          check.state === 'cancelled' ? 'CANCELLED' : check.state === 'empty' ? 'DONE' : 'FATAL',
          check.error,
        );
    }
    if (!state.finalized) await finalize('DONE', null);
  }
  if (!state.completion_recorded) {
    await recordCompletion(deps, state);
    await record({ type: 'MarkCompletionRecorded', at: at() });
  }
  return 'completed';
}

/** The completion event (spec 6.3), recorded as the account's event of its type. */
async function recordCompletion(deps: SyncDeps, state: ReportState): Promise<void> {
  const request = state.requested!;
  const finalized = state.finalized!;
  const type = reportOperation(request.operation ?? '')?.completion ?? 'SELLING_REPORT_COMPLETED';
  const reportType = reportTypeOf(request);
  await recordMarketplaceEvent(deps.ctx.store, {
    account_id: request.account_id,
    message_id: completionMessageId(request.mutation_id),
    stream_type: type,
    source: type === 'ADS_REPORT_COMPLETED' ? 'ads' : 'selling',
    occurred_at: finalized.at,
    received_at: finalized.at,
    payload: {
      eventType: type,
      eventTime: finalized.at,
      reportReceiptId: request.mutation_id,
      reportType,
      processingStatus: finalized.provider_status,
      ingestionStatus: finalized.ingestion_status,
      marketplaceIds: request.marketplace_ids,
      ...(request.profile_id ? { profileId: request.profile_id } : {}),
    },
  });
}

/** Sweeps the outstanding requests every `everyMs`, moving each on; a failing one is tried again next round. */
export function startReportWorker(deps: SyncDeps, options: ReportWorkerOptions = {}): { close(): Promise<void> } {
  const checkEveryMs = options.checkEveryMs ?? 5_000;
  const lastChecked = new Map<string, number>();
  const sweep = async () => {
    const ids = await reportIdsWithWork(deps.db, 200, options.partitions?.());
    for (const id of ids) {
      const recently = Date.now() - (lastChecked.get(id) ?? 0) < checkEveryMs;
      try {
        const outcome = await advanceReport(deps, id, recently);
        if (outcome === 'pending' && !recently) lastChecked.set(id, Date.now());
        if (outcome !== 'pending') lastChecked.delete(id);
      } catch (err) {
        deps.logger.warn({ mutation_id: id, err }, 'report request not advanced; trying again next round');
      }
    }
  };
  const sweeps = startSweeps(sweep, options.everyMs ?? 1_000, deps.logger, 'report sweep failed');
  return { close: () => sweeps.stop() };
}
