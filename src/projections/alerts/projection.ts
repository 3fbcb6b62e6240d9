import { alertEventSchemas, type AlertEvent } from '../../domain/alert/events.js';
import { eventProjection } from '../tables.js';

// Alerts (docs/decisions/160-alerts.md): where each account's alerts go (the sweep visits the
// accounts that have a destination) and the alerts raised, with when each was handed off and when
// its condition cleared.

export const ALERT_DESTINATIONS_TABLE = 'alert_destinations';
export const ALERTS_TABLE = 'alerts';

/** `alert-<account id>` */
const accountOf = (streamId: string) => streamId.slice('alert-'.length);

export const alertsProjection = eventProjection<AlertEvent>({
  name: 'alerts',
  version: 1,
  events: alertEventSchemas,
  tables: {
    [ALERT_DESTINATIONS_TABLE]: {
      columns: {
        account_id: 'uuid primary',
        destination: 'jsonb',
        set_by: 'text',
        set_at: 'timestamptz',
      },
    },
    [ALERTS_TABLE]: {
      columns: {
        alert_id: 'uuid primary',
        account_id: 'uuid',
        key: 'text',
        kind: 'text',
        detail: 'text',
        destination: 'jsonb',
        raised_at: 'timestamptz',
        sent_at: 'timestamptz null',
        /** why it could not be handed off (its webhook gone or disabled) */
        refused: 'text null',
        cleared_at: 'timestamptz null',
      },
      indexes: [['account_id', 'raised_at']],
    },
  },
  async apply(trx, event, recorded, schema) {
    const table = (name: string) => trx.withSchema(schema).table(name);
    const account_id = accountOf(recorded.streamId);
    switch (event.type) {
      case 'AlertDestinationSet': {
        const { destination, by, at } = event.data;
        if (destination === null) await table(ALERT_DESTINATIONS_TABLE).where({ account_id }).delete();
        else
          await table(ALERT_DESTINATIONS_TABLE)
            .insert({ account_id, destination: JSON.stringify(destination), set_by: by, set_at: at })
            .onConflict('account_id')
            .merge();
        return;
      }
      case 'AlertRaised': {
        const { alert_id, key, kind, detail, destination, at } = event.data;
        await table(ALERTS_TABLE)
          .insert({ alert_id, account_id, key, kind, detail, destination: JSON.stringify(destination), raised_at: at })
          .onConflict('alert_id')
          .ignore();
        return;
      }
      case 'AlertSent':
        await table(ALERTS_TABLE)
          .where({ alert_id: event.data.alert_id })
          .update({ sent_at: event.data.at, refused: event.data.refused });
        return;
      case 'AlertCleared':
        await table(ALERTS_TABLE)
          .where({ account_id, key: event.data.key })
          .whereNull('cleared_at')
          .update({ cleared_at: event.data.at });
        return;
    }
  },
});
