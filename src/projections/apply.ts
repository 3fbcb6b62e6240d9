import type { Knex } from 'knex';
import type { RecordedEvent } from '../eventstore/port.js';
import { isTransient } from '../infra/transient.js';
import { wants, type Projection } from './projection.js';

/** An event the projection's `apply` threw on (not for a reason that passes: infra/transient.ts); the batch it was in is rolled back. */
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

/** Applies the events the projection handles (and its filter keeps), in order; other events are skipped. */
export async function applyEvents(
  trx: Knex.Transaction,
  projection: Projection,
  events: readonly RecordedEvent[],
  schema: string,
): Promise<void> {
  const handled = events.filter((e) => wants(projection, e));
  const applyMany = projection.applyMany?.bind(projection);
  // set-based where the projection can, inside a savepoint so a failure falls back to one at a time
  if (applyMany && handled.length > 1) {
    const applied = await trx
      .transaction((sp) => applyMany(sp, handled, schema))
      .then(
        () => true,
        () => false,
      );
    if (applied) return;
  }
  for (const event of handled) {
    try {
      await projection.apply(trx, event, schema);
    } catch (err) {
      // the database away or busy: the batch is read and applied again, the projection not stopped
      if (isTransient(err)) throw err;
      throw new ApplyError(projection.name, event, err);
    }
  }
}
