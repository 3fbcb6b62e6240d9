import type { Knex } from 'knex';
import { currentRevision, type CatalogOperation } from '../../catalog/queries.js';
import { DomainError } from '../../domain/shared/errors.js';

// Spec 7 "Catalog admission", shared by whatever executes a catalog operation (live reads,
// qualified catalog actions in queue_mutations, automations' operation_dependencies): a pinned
// revision must still be the current one, and an operation runs only the way it was reviewed.

/** The current revision when `pinned` is it; else `schema_changed` naming it. */
export async function pinnedRevision(db: Knex, pinned: string, argument: string): Promise<string> {
  const current = await currentRevision(db);
  if (current === null) throw new DomainError('unavailable', 'the operation catalog is not acquired yet; retry later');
  if (pinned !== current)
    throw new DomainError(
      'schema_changed',
      `${argument}: catalog revision '${pinned}' is no longer current; rediscover the operation (get_amazon_operation) and pin ${current}`,
      { argument, current_revision: current },
    );
  return current;
}

/** `operation_unavailable` for an operation that cannot run the way asked, with the reason. */
export function operationUnavailable(op: CatalogOperation, argument: string, wanted: 'live_read' | 'queued_write') {
  const refuse = (reason: string, why: string) =>
    new DomainError('operation_unavailable', `${argument}: '${op.key}' ${why}`, { argument, reason });
  switch (op.review) {
    case 'restricted':
      return refuse(
        'restricted_data_disabled',
        'returns restricted data (buyer personal data or restricted data tokens), which this service never reads',
      );
    case 'report':
      return refuse('report_operation', 'is a report request: queue it with request_report');
    case 'queued_write':
      return refuse('queued_write', 'writes: queue it with queue_mutations (a qualified catalog action)');
    case 'live_read':
      if (wanted === 'queued_write')
        return refuse('live_read', 'is a live read: read it with read_amazon_operation, it cannot be queued');
      break;
  }
  return refuse(
    'adapter_missing',
    `is cataloged but not a reviewed ${wanted === 'live_read' ? 'live read' : 'queued write'}: no adapter runs it (search_amazon_operations with executable: true lists those that run)`,
  );
}
