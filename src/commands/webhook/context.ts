import type { EventStore } from '../../eventstore/port.js';
import type { Knex } from '../../infra/db.js';
import type { CommandContext } from '../shared/handler.js';

// What every webhook command shares: who acts, on what store, and the operator's settings that
// the rules depend on.

export interface WebhookCall {
  store: EventStore;
  db: Knex;
  /** who acts: a user id, `cli`, an operator's name */
  by: string;
  actor: NonNullable<CommandContext['metadata']['actor']>;
  /** the service's signing key: secrets derive from it (src/domain/webhook/secret.ts) */
  signingKey: string;
  /** the operator allows private networks, and with them plain http URLs */
  allowPrivateNetworks: boolean;
  now?: () => Date;
}

export const commandContext = (call: WebhookCall, account_id: string): CommandContext => ({
  store: call.store,
  metadata: { actor: call.actor, account_id },
});

export const nowOf = (call: Pick<WebhookCall, 'now'>): Date => (call.now ?? (() => new Date()))();
