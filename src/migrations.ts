import { migrateCatalog } from './catalog/storage.js';
import { migrateReportArtifacts } from './commands/report/artifacts.js';
import { compressEventData, migrateEventStore } from './eventstore/schema.js';
import type { MigrationStep } from './infra/migrate.js';
import { migrateProductTypeSchemaCache } from './mcp/product-type-schemas.js';
import type { Projection } from './projections/projection.js';
import { migrateProjections } from './projections/schema.js';
import { migrateReadYourWrites } from './projections/read-your-writes.js';
import { migrateIdentity } from './identity/schema.js';
import { migrateSecrets } from './secrets/vault.js';
import { migrateOAuth } from './oauth/adapter.js';
import { migrateViews } from './projections/views/migrate.js';
import { viewDefinitions } from './projections/views/registry.js';
import { migrateReactorCheckpoints } from './runtime/live/checkpoint.js';
import { migrateReactorPartitions } from './runtime/live/partitions.js';

/** query_data's views and role; again after a rebuild made tables a view reads (service.ts). */
export const migrateQueryViews: MigrationStep = (trx) => migrateViews(trx, viewDefinitions);

/**
 * The service's schema, in order: the event store table (when PostgreSQL holds the events), the
 * projector's bookkeeping and every given projection's live tables, query_data's views and role,
 * the product type schema cache, the reactors' checkpoints and partitions, what each user's reads wait for, the OAuth server's records, the operation catalog, personal data, sealed secrets, report artifacts, and the events' compression.
 */
export function migrationSteps(
  projections: readonly Projection[],
  options: { eventStoreInPostgres: boolean },
): MigrationStep[] {
  return [
    ...(options.eventStoreInPostgres ? [migrateEventStore] : []),
    (trx) => migrateProjections(trx, projections),
    migrateQueryViews,
    migrateProductTypeSchemaCache,
    migrateReactorCheckpoints,
    migrateReactorPartitions,
    migrateReadYourWrites,
    // the OAuth server's codes, tokens, clients and keys, outside the event log
    migrateOAuth,
    migrateCatalog,
    // personal data, outside the log and the read models
    migrateIdentity,
    // sealed marketplace secrets, outside the event log and the read models
    migrateSecrets,
    // report artifacts' bytes, outside the event log
    migrateReportArtifacts,
    // last: its ALTER holds appends back until the migration commits
    ...(options.eventStoreInPostgres ? [compressEventData] : []),
  ];
}
