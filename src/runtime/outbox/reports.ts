import type { AdmissionDeps } from '../../commands/admission/admit.js';
import type { MutationRequest } from '../../commands/admission/target.js';
import { requestReport } from '../../commands/report/request.js';
import { aggregateStream } from '../../commands/shared/handler.js';
import type { OperationDependencies } from '../../domain/automation/events.js';
import { reportDecider } from '../../domain/report/decide.js';
import { reportOperation } from '../../domain/report/operations.js';
import { DomainError } from '../../domain/shared/errors.js';
import type { OutboxAction, OutboxRun } from './index.js';

// Report requests in an automation's outbox (docs/decisions/112-automation-report-requests.md):
// `{ target, action: <qualified report operation key>, payload: <native parameters> }` on
// context.mutations, the operation declared in the automation's operation_dependencies (whose
// catalog_revision pins it). Each is admitted like request_report, in the automation's own
// namespace (at most 10 outstanding), keyed by the run and its place in the outbox, so a rerun
// replays it. A request of a report-completion run is one deeper than the report that ran it;
// past depth 5 it is refused.

/** Whether a push asks for a report rather than a change. */
export const isReportPush = (request: MutationRequest): boolean => reportOperation(request.action) !== undefined;

export async function admitReportPushes(
  deps: AdmissionDeps,
  run: OutboxRun,
  pushes: ReadonlyArray<{ index: number; request: MutationRequest }>,
  /** the automation's saved operation_dependencies */
  dependencies: OperationDependencies,
): Promise<OutboxAction[]> {
  if (pushes.length === 0) return [];
  const automation_id = run.caused_by.automation_id;
  const store = deps.store;
  const parent =
    run.parentReport && store ? (await aggregateStream(store, reportDecider, run.parentReport)).state.requested : null;
  const actions: OutboxAction[] = [];
  for (const { index, request } of pushes) {
    const base = { index, target: request.target, action: request.action, value: null };
    try {
      const pinned = dependencies[request.action];
      if (!pinned)
        throw new DomainError(
          'invalid',
          `context.mutations[${index}].action: ${request.action} is not declared in the automation's operation_dependencies; declare it with its catalog_revision and schema_digest`,
        );
      if (!store) throw new DomainError('unavailable', 'report requests are not recorded here');
      const answer = await requestReport(
        { db: deps.db, store, now: () => deps.now },
        {
          namespace: `automation:${automation_id}`,
          accounts: [run.account],
          idempotency_key: `${run.caused_by.run_id}/${index}`,
          operation: request.action,
          target: request.target,
          parameters: request.payload,
          catalog_revision: pinned.catalog_revision,
          automation_id,
          origin: {
            correlation: {
              root: parent?.correlation?.root ?? parent?.mutation_id ?? null,
              parent: parent?.mutation_id ?? null,
              event: run.caused_by.event_id ?? run.caused_by.run_id,
              delivery: run.caused_by.run_id,
              output: index,
            },
            depth: (parent?.depth ?? 0) + 1,
          },
          actor: { kind: 'automation', id: automation_id },
          simulate: run.mode === 'dry',
        },
      );
      actions.push({ ...base, status: 'applied', report_id: answer.receipt.mutation_id });
    } catch (err) {
      if (!(err instanceof DomainError)) throw err;
      const error = { code: err.code, detail: err.detail };
      actions.push({ ...base, status: 'failed', error_message: `${err.code}: ${err.detail}`, error });
    }
  }
  return actions;
}
