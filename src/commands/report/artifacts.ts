import { createHash } from 'node:crypto';
import type { Knex } from 'knex';

// Report artifacts as transferred (spec 2.11): their bytes, kept protected in a table of their own
// (outside the event log, which records only their size, media type, checksum and expiry), read
// back only for the receipt's owner (get_operation_result's preview, the download route).

const SCHEMA = 'report_artifacts';
const TABLE = 'artifacts';

/** The artifacts' table: a step of the service's migrations (src/migrations.ts). */
export async function migrateReportArtifacts(trx: Knex.Transaction): Promise<void> {
  await trx.raw(`create schema if not exists ${SCHEMA}`);
  await trx.raw(`create table if not exists ${SCHEMA}.${TABLE} (
    mutation_id uuid primary key,
    account_id uuid not null,
    media_type text not null,
    checksum text not null,
    expires_at timestamptz not null,
    body bytea not null)`);
}

export interface StoredArtifact {
  byte_size: number;
  media_type: string;
  checksum: string;
  expires_at: string;
}

export const checksumOf = (body: Buffer): string => `sha256:${createHash('sha256').update(body).digest('hex')}`;

/** Stores the artifact (again: the same bytes, once) and says what the receipt records of it. */
export async function storeArtifact(
  db: Knex,
  artifact: { mutation_id: string; account_id: string; media_type: string; body: Buffer; expires_at: Date },
): Promise<StoredArtifact> {
  const checksum = checksumOf(artifact.body);
  await db
    .withSchema(SCHEMA)
    .table(TABLE)
    .insert({ ...artifact, checksum })
    .onConflict('mutation_id')
    .merge();
  return {
    byte_size: artifact.body.length,
    media_type: artifact.media_type,
    checksum,
    expires_at: artifact.expires_at.toISOString(),
  };
}

/** `length` bytes of the artifact from `offset` (and its total size); null when it expired at `now` or never came. */
export async function readArtifact(
  db: Knex,
  mutation_id: string,
  now: Date,
  range?: { offset: number; length: number },
): Promise<{ bytes: Buffer; total: number; media_type: string } | null> {
  const body = range ? db.raw('substring(body from ? for ?) as body', [range.offset + 1, range.length]) : 'body';
  const row = await db
    .withSchema(SCHEMA)
    .table(TABLE)
    .where({ mutation_id })
    .where('expires_at', '>', now)
    .first<{ body: Buffer; total: number; media_type: string } | undefined>(
      body,
      db.raw('octet_length(body)::int as total'),
      'media_type',
    );
  return row ? { bytes: row.body, total: row.total, media_type: row.media_type } : null;
}
