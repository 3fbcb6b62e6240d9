import { currentRevision, findOperation } from '../../catalog/queries.js';
import { DomainError } from '../../domain/shared/errors.js';
import type { Knex } from '../../infra/db.js';

// Catalog admission of a report request (spec 7 "Catalog admission", 9.3): the pinned revision
// must be the selected one, and the operation a reviewed, executable report operation there.

export async function admissibleReportOperation(db: Knex, key: string, revision: string): Promise<void> {
  const current = await currentRevision(db);
  if (current === null || revision !== current)
    throw new DomainError(
      'schema_changed',
      `catalog_revision: ${revision} is not the current catalog revision${current ? ` (${current})` : ''}; rediscover the operation and pin the current revision`,
      { argument: 'catalog_revision', ...(current ? { current_revision: current } : {}) },
    );
  const operation = await findOperation(db, key, revision);
  const unavailable = (reason: string, why: string) =>
    new DomainError('operation_unavailable', `operation: ${key} ${why}`, { argument: 'operation', reason });
  if (!operation) throw unavailable('not_cataloged', `is not in catalog revision ${revision}`);
  if (operation.review === 'restricted') throw unavailable('restricted', 'is restricted and always refused');
  if (operation.review !== 'report')
    throw unavailable('not_a_report', 'is not one of the reviewed report operations request_report queues');
  if (!operation.executable) throw unavailable('adapter_missing', 'has no adapter that executes it');
}
