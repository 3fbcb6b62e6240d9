import type { Knex } from '../infra/db.js';
import type { HttpMethod, OperationContract } from './operation.js';
import { isExecutable, PROVIDERS, REVIEWED, reviewOf, type Provider, type Review } from './reviewed.js';
import { CATALOG_SCHEMA, type SourceGap } from './storage.js';

// Reads of the operation catalog, for the discovery tools and for whoever executes a reviewed
// operation (live reads, reports, qualified catalog actions). Reviews come from reviewed.ts at
// read time, so a review changes nothing stored.

const table = (db: Knex, name: string) => db.withSchema(CATALOG_SCHEMA).table(name);

/** The selected catalog revision; null before the first acquire. */
export async function currentRevision(db: Knex): Promise<string | null> {
  const row = await table(db, 'selected').first('revision');
  return row?.revision ?? null;
}

/** Whether a revision was ever acquired (a known one not selected is stale; an unknown one was never ours). */
export async function revisionKnown(db: Knex, revision: string): Promise<boolean> {
  return (await table(db, 'revisions').where({ revision }).first('revision')) !== undefined;
}

/** One operation as cataloged: its normalized contract, digest, review and whether it runs. */
export interface CatalogOperation extends OperationContract {
  revision: string;
  schema_digest: string;
  has_schema: boolean;
  executable: boolean;
  /** reviewed kind, `restricted`, or null for a generic operation */
  review: NonNullable<Review>['kind'] | null;
  /** the target type a reviewed operation runs against */
  target_type: string | null;
  /** for a reviewed queued write: the spec 4.8 action */
  action: string | null;
  /** whether what it returns feeds the service's own read models */
  ingested: boolean;
}

/** The operation with that key at the revision (default: the selected one), or null when it has none. */
export async function findOperation(db: Knex, key: string, revision?: string): Promise<CatalogOperation | null> {
  const at = revision ?? (await currentRevision(db));
  if (at === null) return null;
  const row = await table(db, 'operations')
    .where({ revision: at, key })
    .first('revision', 'contract', 'schema_digest', 'has_schema');
  if (!row) return null;
  const review = reviewOf(key);
  return {
    ...(row.contract as OperationContract),
    revision: row.revision,
    schema_digest: row.schema_digest,
    has_schema: row.has_schema,
    executable: isExecutable(key),
    review: review?.kind ?? null,
    target_type: review && 'target_type' in review ? review.target_type : null,
    action: review && 'action' in review ? (review.action ?? null) : null,
    ingested: review !== null && 'ingested' in review && review.ingested,
  };
}

/** A schema part kept aside, by its digest. */
export async function findPart(db: Knex, digest: string): Promise<unknown> {
  const row = await table(db, 'parts').where({ digest }).first('body');
  return row?.body;
}

export interface SearchFilters {
  words: string[];
  provider?: Provider;
  family?: string;
  method?: HttpMethod;
  deprecated?: boolean;
  executable?: boolean;
}

export interface SearchRow {
  key: string;
  provider: Provider;
  family: string;
  method: HttpMethod;
  path: string;
  summary: string | null;
  deprecated: boolean;
  executable: boolean;
}

/** LIKE's own characters in a query word match themselves. */
const likeWord = (word: string) => `%${word.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

const executableKeys = REVIEWED.map((r) => r.key);

function matching(db: Knex, revision: string, f: SearchFilters) {
  const q = table(db, 'operations').where({ revision });
  for (const word of f.words) q.andWhereRaw(`search_text like ? escape '\\'`, [likeWord(word)]);
  if (f.provider) q.andWhere({ provider: f.provider });
  if (f.family) q.andWhere({ family: f.family });
  if (f.method) q.andWhere({ method: f.method });
  if (f.deprecated !== undefined) q.andWhere({ deprecated: f.deprecated });
  if (f.executable === true) q.whereIn('key', executableKeys);
  if (f.executable === false) q.whereNotIn('key', executableKeys);
  return q;
}

/** One page of the operations matching every filter (every word in each row), in key order, and the total and families of all of them. */
export async function searchOperations(
  db: Knex,
  revision: string,
  filters: SearchFilters,
  page: { limit: number; offset: number },
): Promise<{ rows: SearchRow[]; total: number; families: { provider: Provider; family: string; count: number }[] }> {
  const [rows, families] = await Promise.all([
    matching(db, revision, filters)
      .orderBy('key')
      .limit(page.limit)
      .offset(page.offset)
      .select('key', 'provider', 'family', 'method', 'path', 'summary', 'deprecated'),
    matching(db, revision, filters)
      .groupBy('provider', 'family')
      .orderBy(['provider', 'family'])
      .select('provider', 'family', db.raw('count(*)::int as count')),
  ]);
  return {
    rows: rows.map((r) => ({ ...r, executable: isExecutable(r.key) })),
    total: families.reduce((sum, f) => sum + f.count, 0),
    families,
  };
}

/** Spec 4.9's coverage counts of one provider, computed from the stored operations and the reviews. */
export interface Coverage {
  provider: Provider;
  acquired: number;
  schema: number;
  live_read: number;
  queued: number;
  automation: number;
  ingested: number;
}

export async function coverage(db: Knex, revision: string): Promise<Coverage[]> {
  const rows: { provider: Provider; key: string; has_schema: boolean }[] = await table(db, 'operations')
    .where({ revision })
    .select('provider', 'key', 'has_schema');
  return PROVIDERS.map((provider) => {
    const mine = rows.filter((r) => r.provider === provider);
    const reviewed = mine.map((r) => reviewOf(r.key)).filter((r) => r !== null && r.kind !== 'restricted');
    const count = (kinds: string[]) => reviewed.filter((r) => kinds.includes(r.kind)).length;
    return {
      provider,
      acquired: mine.length,
      schema: mine.filter((r) => r.has_schema).length,
      live_read: count(['live_read']),
      queued: count(['report', 'queued_write']),
      // queued requests and writes are both usable in automations; live reads are not (spec 4.9)
      automation: count(['report', 'queued_write']),
      ingested: reviewed.filter((r) => 'ingested' in r && r.ingested).length,
    };
  });
}

export interface RevisionInfo {
  revision: string;
  source: string;
  acquired_at: Date;
  documents: number;
  gaps: SourceGap[];
}

export async function revisionInfo(db: Knex, revision: string): Promise<RevisionInfo | null> {
  const row = await table(db, 'revisions')
    .where({ revision })
    .first('revision', 'source', 'acquired_at', 'documents', 'gaps');
  return row ?? null;
}

/** Every family of a revision with its contract versions and how many operations each has. */
export async function familiesOf(
  db: Knex,
  revision: string,
): Promise<{ provider: Provider; family: string; versions: string[]; operations: number }[]> {
  const rows: { provider: Provider; family: string; version: string; count: number }[] = await table(db, 'operations')
    .where({ revision })
    .groupBy('provider', 'family', 'version')
    .orderBy(['provider', 'family', 'version'])
    .select('provider', 'family', 'version', db.raw('count(*)::int as count'));
  const out: { provider: Provider; family: string; versions: string[]; operations: number }[] = [];
  for (const r of rows) {
    const last = out.at(-1);
    if (last && last.provider === r.provider && last.family === r.family) {
      last.versions.push(r.version);
      last.operations += r.count;
    } else out.push({ provider: r.provider, family: r.family, versions: [r.version], operations: r.count });
  }
  return out;
}
