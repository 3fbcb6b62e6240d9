import type { Knex } from 'knex';
import { findOperation } from '../../catalog/queries.js';
import type { OperationDependencies } from '../../domain/automation/events.js';
import { DomainError } from '../../domain/shared/errors.js';
import { operationUnavailable, pinnedRevision } from '../mutation/catalog-admission.js';

// An automation's operation_dependencies (spec 4.4, 9.3; docs/decisions/109): each qualified
// operation it uses, pinned to the catalog revision and the schema digest its author read.
// create_automation, update_automation and run_automation check them against the current
// catalog: a revision no longer current, or a digest that moved, is `schema_changed`; an
// operation an automation cannot use (not a reviewed queued write or report request) is
// `operation_unavailable`. A live run checks each qualified action it pushes against the
// automation's saved pin the same way (src/runtime/outbox/index.ts).

export async function checkOperationDependencies(
  db: Knex,
  dependencies: OperationDependencies | undefined,
): Promise<void> {
  for (const [key, pin] of Object.entries(dependencies ?? {}))
    await checkPinnedOperation(db, key, pin, `operation_dependencies.${key}`);
}

/** One dependency: its pinned revision current and its digest unchanged, an operation an automation may use. */
export async function checkPinnedOperation(
  db: Knex,
  key: string,
  pin: OperationDependencies[string],
  at: string,
): Promise<void> {
  const current = await pinnedRevision(db, pin.catalog_revision, `${at}.catalog_revision`);
  const op = await findOperation(db, key, current);
  if (!op)
    throw new DomainError(
      'invalid',
      `${at}: no operation '${key}' in catalog revision ${current}; find one with search_amazon_operations`,
      { argument: at },
    );
  if (op.review !== 'queued_write' && op.review !== 'report') throw operationUnavailable(op, at, 'queued_write');
  if (op.schema_digest !== pin.schema_digest)
    throw new DomainError(
      'schema_changed',
      `${at}.schema_digest: '${pin.schema_digest}' is not the operation's digest in revision ${current}; read it again with get_amazon_operation and pin its schema_digest`,
      { argument: `${at}.schema_digest`, current_revision: current, schema_digest: op.schema_digest },
    );
}
