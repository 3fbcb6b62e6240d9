import type { Knex } from 'knex';
import { DomainError } from '../domain/shared/errors.js';
import { createSellingClient, MarketplaceError, type ProductTypeDefinition } from '../marketplace/clients/index.js';
import type { MarketplaceAccess } from './tool.js';

// Product type definitions with their JSON Schema, cached 24 hours (spec 8) per (product type,
// marketplace) in PostgreSQL. The cache is shared by every account and user: we never pass a
// sellerId, so the provider's answer depends on the product type and marketplace only. It is
// a cache of provider documents, not a record of anything: no events, and losing it loses
// nothing. Entries age by the service's clock.

export const PRODUCT_TYPE_SCHEMA_TTL_MS = 86_400_000;
const TABLE = 'product_type_schemas';

/** Creates the cache table (run by migrate). `json`, not `jsonb`: the schema keeps its key order. */
export async function migrateProductTypeSchemaCache(db: Knex | Knex.Transaction): Promise<void> {
  await db.raw('create schema if not exists cache');
  await db.raw(`create table if not exists cache.${TABLE} (
    product_type text not null,
    marketplace_id text not null,
    definition json not null,
    schema json not null,
    fetched_at timestamptz not null,
    primary key (product_type, marketplace_id))`);
}

export interface CachedProductTypeSchema {
  /** the getDefinitionsProductType answer, keys unchanged */
  definition: ProductTypeDefinition;
  /** the JSON Schema document it links to */
  schema: Record<string, unknown>;
  fetched_at: Date;
}

/** The definition and schema from the cache while younger than 24 hours, else from the provider. */
export async function productTypeSchema(
  db: Knex,
  marketplace: MarketplaceAccess,
  refreshToken: string,
  productType: string,
  marketplaceId: string,
  now: Date,
): Promise<CachedProductTypeSchema> {
  const cached: CachedProductTypeSchema | undefined = await db
    .withSchema('cache')
    .table(TABLE)
    .where({ product_type: productType, marketplace_id: marketplaceId })
    .where('fetched_at', '>', new Date(now.getTime() - PRODUCT_TYPE_SCHEMA_TTL_MS))
    .first('definition', 'schema', 'fetched_at');
  if (cached) return cached;
  const client = createSellingClient({
    endpoint: marketplace.sellingApiUrl,
    lwa: marketplace.lwa,
    refreshToken,
    ...(marketplace.retry ? { retry: marketplace.retry } : {}),
  });
  const definition = await client.definitions
    .getDefinitionsProductType(productType, marketplaceId, { requirements: 'LISTING' })
    .catch((err: unknown) => {
      throw failure(err, productType, marketplaceId, true);
    });
  const schema = await client.definitions.getSchemaDocument(definition).catch((err: unknown) => {
    throw failure(err, productType, marketplaceId, false);
  });
  const entry = {
    product_type: productType,
    marketplace_id: marketplaceId,
    definition: JSON.stringify(definition),
    schema: JSON.stringify(schema),
    fetched_at: now,
  };
  await db.withSchema('cache').table(TABLE).insert(entry).onConflict(['product_type', 'marketplace_id']).merge();
  return { definition, schema, fetched_at: now };
}

/** A provider failure as the spec's codes: no definition (404 of the definition itself) is
 * `not_found`; a refusal (another 4xx) `amazon_error`; anything else (5xx, throttling, no
 * answer, an unreadable or mismatching document) `schema_unavailable`. Provider messages are
 * not repeated; status and code are. */
function failure(err: unknown, productType: string, marketplaceId: string, definitionStep: boolean): unknown {
  if (!(err instanceof MarketplaceError)) return err;
  const what = `the product type definition of ${productType} in ${marketplaceId}`;
  const why = `${err.status ?? 'no answer'}${err.code ? ` ${err.code}` : ''}`;
  if (definitionStep && err.status === 404)
    return new DomainError(
      'not_found',
      `the marketplace has no product type definition ${productType} for marketplace ${marketplaceId}`,
      { product_type: productType, marketplace_id: marketplaceId },
    );
  if (!err.retryable && err.status !== null && err.status < 500 && err.code !== 'invalid_response') {
    return new DomainError('amazon_error', `the marketplace refused ${what} (${why})`, { status: err.status });
  }
  return new DomainError('schema_unavailable', `the marketplace could not return ${what} (${why}); retry shortly`, {
    ...(err.retryAfterMs === undefined ? {} : { retry_after_seconds: Math.ceil(err.retryAfterMs / 1000) }),
  });
}
