import type { WebhookEvent, WebhookSettings } from './events.js';

// An account's webhooks, by id (removed ones are gone: their names are free again).

export interface Webhook extends WebhookSettings {
  webhook_id: string;
  enabled: boolean;
  secret_nonce: string;
}

export interface WebhookSettingsState {
  webhooks: ReadonlyMap<string, Webhook>;
}

export const initialState = (): WebhookSettingsState => ({ webhooks: new Map() });

const changed = (state: WebhookSettingsState, id: string, change: Partial<Webhook>): WebhookSettingsState => {
  const webhooks = new Map(state.webhooks);
  const current = webhooks.get(id);
  if (current) webhooks.set(id, { ...current, ...change });
  return { webhooks };
};

export function evolve(state: WebhookSettingsState, event: WebhookEvent): WebhookSettingsState {
  switch (event.type) {
    case 'WebhookConfigured': {
      const { webhook_id, name, url, headers, kind, secret_nonce } = event.data;
      const webhooks = new Map(state.webhooks);
      webhooks.set(webhook_id, { webhook_id, name, url, headers, kind, secret_nonce, enabled: true });
      return { webhooks };
    }
    case 'WebhookUpdated': {
      const { webhook_id, name, url, headers, kind } = event.data;
      return changed(state, webhook_id, { name, url, headers, kind });
    }
    case 'WebhookEnabled':
      return changed(state, event.data.webhook_id, { enabled: true });
    case 'WebhookDisabled':
      return changed(state, event.data.webhook_id, { enabled: false });
    case 'WebhookSecretRotated':
      return changed(state, event.data.webhook_id, { secret_nonce: event.data.secret_nonce });
    case 'WebhookRemoved': {
      const webhooks = new Map(state.webhooks);
      webhooks.delete(event.data.webhook_id);
      return { webhooks };
    }
  }
}

/** The webhook with this name, if the account has one. */
export const webhookNamed = (state: WebhookSettingsState, name: string): Webhook | undefined =>
  [...state.webhooks.values()].find((w) => w.name === name);
