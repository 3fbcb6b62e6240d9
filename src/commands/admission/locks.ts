import { setTimeout as sleep } from 'node:timers/promises';
import type { Knex } from 'knex';
import { DomainError } from '../../domain/shared/errors.js';

// Admission's critical sections (an idempotency key's check-and-record, an identical creation's
// check-and-admit) run under PostgreSQL transaction advisory locks, two-key form in their own
// space. Locks are only ever tried, never waited for inside a transaction: a call that can't take
// one rolls back, frees its connection and tries again shortly, so twenty callers on one key
// don't hold twenty pool connections and no lock order can deadlock.

const SPACE = 'admission';
const RETRY_MS = 15;
const GIVE_UP_MS = 15_000;

class LockTaken extends Error {}

export interface LockScope {
  /** the transaction holding the locks: the section's reads go through it */
  trx: Knex.Transaction;
  /** takes more locks, or restarts the section from the top when one is taken */
  lock(names: readonly string[]): Promise<void>;
}

export async function underAdmissionLocks<T>(
  db: Knex,
  names: readonly string[],
  section: (scope: LockScope) => Promise<T>,
): Promise<T> {
  const deadline = Date.now() + GIVE_UP_MS;
  for (;;) {
    try {
      return await db.transaction(async (trx) => {
        const lock = async (more: readonly string[]) => {
          for (const name of [...new Set(more)].sort()) {
            const { rows } = await trx.raw('select pg_try_advisory_xact_lock(hashtext(?), hashtext(?)) as ok', [
              SPACE,
              name,
            ]);
            if (rows[0].ok !== true) throw new LockTaken();
          }
        };
        await lock(names);
        return section({ trx, lock });
      });
    } catch (err) {
      if (!(err instanceof LockTaken)) throw err;
      if (Date.now() > deadline)
        throw new DomainError(
          'busy',
          'another call with the same idempotency key or the same creation is still being admitted; retry shortly',
        );
      await sleep(RETRY_MS + Math.random() * RETRY_MS);
    }
  }
}
