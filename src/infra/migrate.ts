import type { Knex } from 'knex';
import { migrateEventStore } from '../eventstore/schema.js';
import { migrateProductTypeSchemaCache } from '../mcp/product-type-schemas.js';
import { migrateProjections } from '../projections/schema.js';
import type { Projection } from '../projections/projection.js';
import { migrateViews } from '../projections/views/migrate.js';
import { viewDefinitions } from '../projections/views/registry.js';

/**
 * Brings a database to the current schema: the event store table, the projector's
 * bookkeeping, every registered projection's live tables, query_data's views and
 * role, and the product type schema cache. Safe to run concurrently from several
 * processes (each step takes an advisory lock) and repeatedly.
 */
export async function migrate(
  db: Knex,
  projections: readonly Projection[],
  options: { eventStoreInPostgres: boolean },
): Promise<void> {
  await db.transaction(async (trx) => {
    await trx.raw('select pg_advisory_xact_lock(hashtext(?))', ['migrate']);
    if (options.eventStoreInPostgres) await migrateEventStore(trx);
    await migrateProjections(trx, projections);
    await migrateViews(trx, viewDefinitions);
    await migrateProductTypeSchemaCache(trx);
  });
}
