import { sha256 } from './canonical.js';

// Accounts in partitions: the unit several worker processes share the live reactor's and the
// report worker's work by (docs/decisions/135-partitioned-live-runs.md).

/** The partition an account's events fall in: the first 32 bits of its id's SHA-256, modulo `count`; the same in every process. */
export const partitionOf = (account_id: string, count: number): number =>
  Number.parseInt(sha256(account_id).slice(0, 8), 16) % count;

/** The partitions a worker holds, out of how many. */
export interface HeldPartitions {
  count: number;
  held: readonly number[];
}
