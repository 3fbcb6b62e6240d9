import type { Knex } from 'knex';
import type { HeldPartitions } from '../domain/shared/partitions.js';

/** Keeps the rows whose account (`column`, a uuid or its text) falls in a held partition: partitionOf, in SQL. */
export const inPartitions = (query: Knex.QueryBuilder, column: string, p: HeldPartitions): void =>
  void query.whereRaw(
    `('x' || left(encode(sha256(convert_to(??::text, 'UTF8')), 'hex'), 8))::bit(32)::bigint % ? = any(?::int[])`,
    [column, p.count, [...p.held]],
  );
