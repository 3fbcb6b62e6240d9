import type { Knex } from '../infra/db.js';
import { hasSchema, schemaDigest, type OperationContract } from './operation.js';

// The catalog lives in PostgreSQL tables of its own, outside the event log (decision 104): it is
// a copy of provider documents, rebuilt by acquiring them again, and records nothing anyone did.
// A revision is the digest of the documents read; its operations are stored under it, the
// schema parts kept aside are stored once by their own digest, and one row says which revision is
// selected. A revision no longer selected keeps its row (so discovery can say it is stale) but
// not its operations.

export const CATALOG_SCHEMA = 'catalog';

/** A document (or part of one) the acquire could not catalog, and why. */
export interface SourceGap {
  /** the document's path relative to the source folder */
  document: string;
  family: string | null;
  kind: 'malformed' | 'no_contract' | 'unresolvable_refs' | 'duplicate_operation';
  detail: string;
}

export async function migrateCatalog(db: Knex | Knex.Transaction): Promise<void> {
  await db.raw(`create schema if not exists ${CATALOG_SCHEMA}`);
  await db.raw(`create table if not exists ${CATALOG_SCHEMA}.revisions (
    revision text primary key,
    source text not null,
    acquired_at timestamptz not null,
    documents integer not null,
    gaps jsonb not null)`);
  await db.raw(`create table if not exists ${CATALOG_SCHEMA}.selected (
    one boolean primary key default true check (one),
    revision text not null references ${CATALOG_SCHEMA}.revisions (revision),
    selected_at timestamptz not null)`);
  // contract as json, not jsonb: schemas keep their key order
  await db.raw(`create table if not exists ${CATALOG_SCHEMA}.operations (
    revision text not null references ${CATALOG_SCHEMA}.revisions (revision) on delete cascade,
    key text not null,
    provider text not null,
    family text not null,
    version text not null,
    operation_id text not null,
    method text not null,
    path text not null,
    summary text,
    deprecated boolean not null,
    has_schema boolean not null,
    search_text text not null,
    schema_digest text not null,
    contract json not null,
    primary key (revision, key))`);
  await db.raw(`create table if not exists ${CATALOG_SCHEMA}.parts (
    digest text primary key,
    body json not null)`);
}

/** What search matches every query word against: key, method, path, summary and tags, lower-cased. */
export function searchText(c: OperationContract): string {
  return [c.key, c.method, c.path, c.summary ?? '', ...c.tags].join(' ').toLowerCase();
}

export interface AcquiredCatalog {
  revision: string;
  source: string;
  documents: number;
  gaps: SourceGap[];
  operations: OperationContract[];
  /** digest → part */
  parts: Map<string, unknown>;
}

/**
 * Stores an acquired catalog and selects its revision, in one transaction under a lock (two
 * acquires at once store it once). The same revision already selected changes nothing; the
 * previously selected revision's operations go.
 * @returns whether anything was stored
 */
export async function storeCatalog(db: Knex, catalog: AcquiredCatalog, now: Date): Promise<boolean> {
  return db.transaction(async (trx) => {
    await trx.raw('select pg_advisory_xact_lock(hashtext(?))', ['catalog acquire']);
    const selected = await trx.withSchema(CATALOG_SCHEMA).table('selected').first('revision');
    if (selected?.revision === catalog.revision) return false;
    await trx
      .withSchema(CATALOG_SCHEMA)
      .table('revisions')
      .insert({
        revision: catalog.revision,
        source: catalog.source,
        acquired_at: now,
        documents: catalog.documents,
        gaps: JSON.stringify(catalog.gaps),
      })
      .onConflict('revision')
      .merge(['source', 'acquired_at', 'documents', 'gaps']);
    const parts = [...catalog.parts].map(([digest, body]) => ({ digest, body: JSON.stringify(body) }));
    for (let i = 0; i < parts.length; i += 500)
      await trx
        .withSchema(CATALOG_SCHEMA)
        .table('parts')
        .insert(parts.slice(i, i + 500))
        .onConflict('digest')
        .ignore();
    await trx.withSchema(CATALOG_SCHEMA).table('operations').where({ revision: catalog.revision }).delete();
    const rows = catalog.operations.map((c) => ({
      revision: catalog.revision,
      key: c.key,
      provider: c.provider,
      family: c.family,
      version: c.version,
      operation_id: c.operationId,
      method: c.method,
      path: c.path,
      summary: c.summary,
      deprecated: c.deprecated,
      has_schema: hasSchema(c),
      search_text: searchText(c),
      schema_digest: schemaDigest(c),
      contract: JSON.stringify(c),
    }));
    for (let i = 0; i < rows.length; i += 200)
      await trx
        .withSchema(CATALOG_SCHEMA)
        .table('operations')
        .insert(rows.slice(i, i + 200));
    await trx
      .withSchema(CATALOG_SCHEMA)
      .table('selected')
      .insert({ one: true, revision: catalog.revision, selected_at: now })
      .onConflict('one')
      .merge(['revision', 'selected_at']);
    await trx.withSchema(CATALOG_SCHEMA).table('operations').whereNot({ revision: catalog.revision }).delete();
    return true;
  });
}
