import type { Knex } from 'knex';
import type { RecordedEvent } from '../eventstore/port.js';
import type { Projection } from './projection.js';

/** An event the projection's `apply` threw on; the batch it was in is rolled back. */
export class ApplyError extends Error {
  constructor(
    readonly projection: string,
    readonly event: RecordedEvent,
    override readonly cause: unknown,
  ) {
    super(
      `projection ${projection} failed on event ${event.id} (${event.type} in ${event.streamId}): ${cause instanceof Error ? cause.message : String(cause)}`,
    );
    this.name = 'ApplyError';
  }
}

/** Applies the events the projection handles, in order; other events are skipped. */
export async function applyEvents(
  trx: Knex.Transaction,
  projection: Projection,
  events: readonly RecordedEvent[],
  schema: string,
): Promise<void> {
  for (const event of events) {
    if (!projection.handles.includes(event.type)) continue;
    try {
      await projection.apply(trx, event, schema);
    } catch (err) {
      throw new ApplyError(projection.name, event, err);
    }
  }
}
