import type { Knex } from 'knex';
import type { ReportState } from '../../domain/report/decide.js';
import type { HeldPartitions } from '../../domain/shared/partitions.js';
import { inPartitions } from '../partitions.js';
import { READ_MODEL_SCHEMA } from '../projection.js';
import { REPORTS_TABLE } from './projection.js';

const rm = (db: Knex) => db.withSchema(READ_MODEL_SCHEMA).table(REPORTS_TABLE);

/** How many of the namespace's report requests are admitted and not yet finalized. */
export async function outstandingReports(db: Knex, namespace: string): Promise<number> {
  const row = await rm(db).where({ namespace, outstanding: true }).count<{ n: string }[]>('* as n');
  return Number(row[0]!.n);
}

/**
 * The receipts the worker still has work on (until their completion event is recorded), oldest
 * first; with `partitions`, only those of accounts in the partitions given (each worker its own).
 */
export async function reportIdsWithWork(db: Knex, limit: number, partitions?: HeldPartitions): Promise<string[]> {
  const rows: Array<{ mutation_id: string }> = await rm(db)
    .where({ work_due: true })
    .modify((q) => partitions && inPartitions(q, 'account_id', partitions))
    .orderBy('updated_at')
    .limit(limit)
    .select('mutation_id');
  return rows.map((r) => r.mutation_id);
}

/** A report receipt on one of the accounts; null when it is none of theirs (a foreign one reads as missing). */
export async function findReport(
  db: Knex,
  accountIds: readonly string[],
  mutation_id: string,
): Promise<ReportState | null> {
  const row = await rm(db)
    .where({ mutation_id })
    .whereIn('account_id', [...accountIds])
    .first<{ state: ReportState } | undefined>('state');
  return row?.state ?? null;
}
