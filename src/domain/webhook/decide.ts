import { isDeepStrictEqual } from 'node:util';
import type { Decider } from '../shared/decider.js';
import { DomainError } from '../shared/errors.js';
import { webhookEventSchemas, type WebhookEvent, type WebhookHeaders, type WebhookKind } from './events.js';
import { checkHeaders, checkName, checkUrl, MAX_WEBHOOKS } from './rules.js';
import { evolve, initialState, webhookNamed, type Webhook, type WebhookSettingsState } from './state.js';

// The webhook settings of one account (spec 2.13): configure, update, enable, disable, remove and
// rotate the signing secret. Commands name a webhook by its name, unique per account.

type Who = { account_id: string; by: string; at: string };
/** Plain http URLs are accepted only where the operator allows private networks (tests, local receivers). */
type UrlPolicy = { allow_http: boolean };

export interface WebhookChanges {
  name?: string;
  url?: string;
  headers?: WebhookHeaders;
  kind?: WebhookKind;
}

export type WebhookCommand =
  | (Who &
      UrlPolicy & {
        type: 'ConfigureWebhook';
        webhook_id: string;
        name: string;
        url: string;
        headers: WebhookHeaders;
        kind: WebhookKind;
        secret_nonce: string;
      })
  | (Who & UrlPolicy & { type: 'UpdateWebhook'; name: string; changes: WebhookChanges })
  | (Who & { type: 'EnableWebhook' | 'DisableWebhook' | 'RemoveWebhook'; name: string })
  | (Who & { type: 'RotateWebhookSecret'; name: string; secret_nonce: string });

function named(state: WebhookSettingsState, name: string): Webhook {
  const found = webhookNamed(state, name);
  if (found) return found;
  const names = [...state.webhooks.values()].map((w) => w.name).sort();
  throw new DomainError(
    'not_found',
    `name: no webhook named '${name}' on this account${names.length ? ` (it has: ${names.join(', ')})` : ' (it has none)'}`,
    { argument: 'name' },
  );
}

function nameFree(state: WebhookSettingsState, name: string, except?: string): void {
  const holder = webhookNamed(state, name);
  if (holder && holder.webhook_id !== except)
    throw new DomainError('invalid', `name: this account already has a webhook named '${name}'`, { argument: 'name' });
}

export function decide(command: WebhookCommand, state: WebhookSettingsState): WebhookEvent[] {
  const { by, at } = command;
  switch (command.type) {
    case 'ConfigureWebhook': {
      const { webhook_id, account_id, name, url, headers, kind, secret_nonce } = command;
      if (state.webhooks.has(webhook_id)) return [];
      checkName(name);
      nameFree(state, name);
      checkUrl(url, command.allow_http);
      checkHeaders(headers);
      if (state.webhooks.size >= MAX_WEBHOOKS)
        throw new DomainError(
          'invalid',
          `name: this account already has ${MAX_WEBHOOKS} webhooks, the most it may have`,
          {
            argument: 'name',
          },
        );
      const data = { webhook_id, account_id, name, url, headers, kind, secret_nonce, by, at };
      return [{ type: 'WebhookConfigured', data }];
    }
    case 'UpdateWebhook': {
      const current = named(state, command.name);
      const next = {
        name: command.changes.name ?? current.name,
        url: command.changes.url ?? current.url,
        headers: command.changes.headers ?? current.headers,
        kind: command.changes.kind ?? current.kind,
      };
      if (command.changes.name !== undefined) {
        checkName(next.name);
        nameFree(state, next.name, current.webhook_id);
      }
      if (command.changes.url !== undefined) checkUrl(next.url, command.allow_http);
      if (command.changes.headers !== undefined) checkHeaders(next.headers);
      const same =
        next.name === current.name &&
        next.url === current.url &&
        next.kind === current.kind &&
        isDeepStrictEqual(next.headers, current.headers);
      return same ? [] : [{ type: 'WebhookUpdated', data: { webhook_id: current.webhook_id, ...next, by, at } }];
    }
    case 'EnableWebhook': {
      const current = named(state, command.name);
      return current.enabled ? [] : [{ type: 'WebhookEnabled', data: { webhook_id: current.webhook_id, by, at } }];
    }
    case 'DisableWebhook': {
      const current = named(state, command.name);
      return current.enabled ? [{ type: 'WebhookDisabled', data: { webhook_id: current.webhook_id, by, at } }] : [];
    }
    case 'RemoveWebhook': {
      const current = named(state, command.name);
      return [{ type: 'WebhookRemoved', data: { webhook_id: current.webhook_id, by, at } }];
    }
    case 'RotateWebhookSecret': {
      const current = named(state, command.name);
      const data = { webhook_id: current.webhook_id, secret_nonce: command.secret_nonce, by, at };
      return [{ type: 'WebhookSecretRotated', data }];
    }
  }
}

/** Stream `webhook-<account id>`. */
export const webhookDecider: Decider<WebhookCommand, WebhookSettingsState, WebhookEvent> = {
  aggregate: 'webhook',
  schemas: webhookEventSchemas,
  initialState,
  evolve,
  decide,
};
