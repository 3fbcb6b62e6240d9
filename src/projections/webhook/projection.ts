import { webhookEventSchemas, type WebhookEvent } from '../../domain/webhook/events.js';
import { eventProjection } from '../tables.js';

// Webhook settings (spec 2.13): one row per webhook, removed ones kept with `removed_at` so a
// replayed event finds its row. Header values are left out (an Authorization header is a
// secret); the delivery worker reads them from the account's stream. A row remembers the last
// revision of its account's stream it applied: a replay changes nothing.

export const WEBHOOKS_TABLE = 'webhooks';

function changes(event: WebhookEvent): Record<string, unknown> {
  switch (event.type) {
    case 'WebhookConfigured':
      return {}; // inserted whole
    case 'WebhookUpdated': {
      const { name, url, headers, kind } = event.data;
      return { name, url, header_names: Object.keys(headers), kind };
    }
    case 'WebhookEnabled':
      return { enabled: true };
    case 'WebhookDisabled':
      return { enabled: false };
    case 'WebhookSecretRotated':
      return { secret_rotated_at: event.data.at };
    case 'WebhookRemoved':
      return { enabled: false, removed_at: event.data.at };
  }
}

export const webhooksProjection = eventProjection<WebhookEvent>({
  name: 'webhooks',
  version: 1,
  events: webhookEventSchemas,
  tables: {
    [WEBHOOKS_TABLE]: {
      columns: {
        webhook_id: 'uuid primary',
        account_id: 'uuid',
        name: 'text',
        url: 'text',
        header_names: 'text[]',
        kind: 'text',
        enabled: 'boolean',
        created_at: 'timestamptz',
        created_by: 'text',
        updated_at: 'timestamptz',
        secret_rotated_at: 'timestamptz null',
        removed_at: 'timestamptz null',
        /** the last revision of the account's webhook stream applied to this row */
        revision: 'integer',
      },
      indexes: [['account_id', 'name']],
    },
  },
  async apply(trx, event, recorded, schema) {
    const revision = Number(recorded.revision);
    const rows = () => trx.withSchema(schema).table(WEBHOOKS_TABLE);
    if (event.type === 'WebhookConfigured') {
      const d = event.data;
      await rows()
        .insert({
          webhook_id: d.webhook_id,
          account_id: d.account_id,
          name: d.name,
          url: d.url,
          header_names: Object.keys(d.headers),
          kind: d.kind,
          enabled: true,
          created_at: d.at,
          created_by: d.by,
          updated_at: d.at,
          revision,
        })
        .onConflict('webhook_id')
        .ignore();
      return;
    }
    await rows()
      .where({ webhook_id: event.data.webhook_id })
      .where('revision', '<', revision)
      .update({ ...changes(event), updated_at: event.data.at, revision });
  },
});
