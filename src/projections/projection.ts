import type { Knex } from 'knex';
import {
  filters,
  keeps,
  type DataFilter,
  type EventStore,
  type Position,
  type RecordedEvent,
  type TypedRead,
} from '../eventstore/port.js';

/** Live read-model tables live in this schema; a rebuild fills a fresh schema, then swaps. */
export const READ_MODEL_SCHEMA = 'rm';

/**
 * A projection builds read-model tables from the global log. `apply` must be idempotent
 * in effect (applying the same event twice leaves the same rows) and must write only to
 * tables in `schema`, so a rebuild can build a fresh copy beside the live one.
 */
export interface Projection {
  name: string;
  /** bump when the tables or the fold change: a new version is rebuilt from position zero */
  version: number;
  /** event types this projection reads; others are skipped without a call */
  handles: readonly string[];
  /** of those, only the events this keeps (its observed datasets' pages): the others are not even loaded */
  filter?: DataFilter;
  /** the table names (without schema) this projection owns */
  tables: readonly string[];
  createTables(db: Knex | Knex.Transaction, schema: string): Promise<void>;
  apply(trx: Knex.Transaction, event: RecordedEvent, schema: string): Promise<void>;
  /**
   * Optional set-based form of `apply` for a run of consecutive handled events: it must leave
   * the same rows as applying them one by one. If it throws, the run is applied again one event
   * at a time, so the error names the event.
   */
  applyMany?(trx: Knex.Transaction, events: readonly RecordedEvent[], schema: string): Promise<void>;
}

/** Whether the projection applies this event: one of its types, and kept by its filter. */
export const wants = (projection: Projection, event: Pick<RecordedEvent, 'type' | 'data'>): boolean =>
  projection.handles.includes(event.type) && keeps(projection.filter, event);

/**
 * One read of the log for these projections (the live ones standing at one position): every type
 * one of them handles; of a type each of them filters on the same field, only what one of their
 * filters keeps. A type one of them takes whole, or filters on another field than the first
 * filtered type's, is read whole: the read is never narrower than what one of them wants.
 */
export function sharedRead(projections: readonly Projection[]): { types: string[]; filter?: DataFilter } {
  const types = [...new Set(projections.flatMap((p) => p.handles))];
  const filterOf = (type: string) => {
    const own = projections
      .filter((p) => p.handles.includes(type))
      .map((p) => (filters(p.filter, type) ? p.filter : null));
    return own.every((f) => f !== null) ? own : null;
  };
  const byType = types.map((type) => ({ type, filters: filterOf(type) }));
  const field = byType.find((t) => t.filters !== null)?.filters![0]!.field;
  const filtered = byType.filter(
    (t): t is { type: string; filters: DataFilter[] } => t.filters?.every((f) => f.field === field) ?? false,
  );
  if (field === undefined || filtered.length === 0) return { types };
  const values = [...new Set(filtered.flatMap((t) => t.filters.flatMap((f) => f.values)))];
  return { types, filter: { field, values, types: filtered.map((t) => t.type) } };
}

/** The projection's next read of the log after `after`: its types and filter only. */
export const readFor = (
  store: EventStore,
  projection: Projection,
  after: Position | null,
  batch: { limit: number; maxBytes?: number },
): Promise<TypedRead> =>
  store.readAllOfTypes({
    after,
    types: projection.handles,
    ...(projection.filter ? { filter: projection.filter } : {}),
    ...batch,
  });
