import { DISPATCH_CONTROL_EVENT_TYPES, type DispatchControlEvent } from '../../domain/dispatch-control/events.js';
import type { Projection } from '../projection.js';

// rm.dispatch_controls: one row per listing or campaign whose flag was ever set; `withheld` is
// true while the listing is blocked or the campaign's Automation switch is off. The dispatcher
// reads it under the target lock just before sending (spec 3.4).

export const DISPATCH_CONTROLS_TABLE = 'dispatch_controls';

export const dispatchControlsProjection: Projection = {
  name: 'dispatch_controls',
  version: 1,
  handles: DISPATCH_CONTROL_EVENT_TYPES,
  tables: [DISPATCH_CONTROLS_TABLE],
  async createTables(db, schema) {
    await db.schema.withSchema(schema).createTable(DISPATCH_CONTROLS_TABLE, (t) => {
      t.text('target_type').notNullable();
      t.text('target_id').notNullable();
      t.uuid('account_id').notNullable();
      t.boolean('withheld').notNullable();
      t.timestamp('set_at', { useTz: true }).notNullable();
      t.primary(['target_type', 'target_id']);
    });
  },
  async apply(trx, recorded, schema) {
    const event = { type: recorded.type, data: recorded.data } as DispatchControlEvent;
    const row =
      event.type === 'ListingBlockSet'
        ? { target_type: 'Listing', target_id: event.data.listing_id, account_id: event.data.account_id, withheld: event.data.blocked, set_at: event.data.set_at }
        : { target_type: 'Campaign', target_id: event.data.campaign_id, account_id: event.data.account_id, withheld: !event.data.enabled, set_at: event.data.set_at };
    // a replayed older event never overwrites a newer flag
    await trx.withSchema(schema).table(DISPATCH_CONTROLS_TABLE).insert(row).onConflict(['target_type', 'target_id']).merge().where(`${DISPATCH_CONTROLS_TABLE}.set_at`, '<=', row.set_at);
  },
};
