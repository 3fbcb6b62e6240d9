import { DomainError } from '../../domain/shared/errors.js';
import { newId } from '../../domain/shared/ids.js';
import { webhookDecider, type WebhookChanges } from '../../domain/webhook/decide.js';
import type { WebhookHeaders, WebhookKind } from '../../domain/webhook/events.js';
import { newSecretNonce, webhookSecret } from '../../domain/webhook/secret.js';
import { webhookNamed } from '../../domain/webhook/state.js';
import type { Position } from '../../eventstore/port.js';
import { accountExists } from '../../projections/accounts/queries.js';
import { aggregateStream, handleCommand } from '../shared/handler.js';
import { commandContext, nowOf, type WebhookCall } from './context.js';

// Webhook settings of an account (spec 2.13): managed by the seller in the console's Settings and
// by the operator CLI. The signing secret is returned only by configure and rotate: shown once.

export interface NewWebhook {
  account_id: string;
  name: string;
  url: string;
  headers: WebhookHeaders;
  kind: WebhookKind;
}

/** What a change recorded: where in the log (null when it changed nothing). */
export interface Recorded {
  position: Position | null;
}

async function record(call: WebhookCall, account_id: string, command: Parameters<typeof webhookDecider.decide>[0]) {
  return handleCommand(webhookDecider, account_id, command, commandContext(call, account_id));
}

const who = (call: WebhookCall, account_id: string) => ({ account_id, by: call.by, at: nowOf(call).toISOString() });

export async function configureWebhook(
  call: WebhookCall,
  input: NewWebhook,
): Promise<Recorded & { webhook_id: string; secret: string }> {
  if (!(await accountExists(call.db, input.account_id)))
    throw new DomainError('account_not_found', `account: no account '${input.account_id}'`, { argument: 'account' });
  const webhook_id = newId();
  const secret_nonce = newSecretNonce();
  const { position } = await record(call, input.account_id, {
    type: 'ConfigureWebhook',
    ...who(call, input.account_id),
    allow_http: call.allowPrivateNetworks,
    webhook_id,
    name: input.name,
    url: input.url,
    headers: input.headers,
    kind: input.kind,
    secret_nonce,
  });
  return { webhook_id, secret: webhookSecret(call.signingKey, webhook_id, secret_nonce), position };
}

export async function updateWebhook(
  call: WebhookCall,
  account_id: string,
  name: string,
  changes: WebhookChanges,
): Promise<Recorded> {
  const command = {
    type: 'UpdateWebhook' as const,
    ...who(call, account_id),
    allow_http: call.allowPrivateNetworks,
    name,
    changes,
  };
  return { position: (await record(call, account_id, command)).position };
}

export async function setWebhookEnabled(
  call: WebhookCall,
  account_id: string,
  name: string,
  enabled: boolean,
): Promise<Recorded> {
  const type = enabled ? ('EnableWebhook' as const) : ('DisableWebhook' as const);
  return { position: (await record(call, account_id, { type, ...who(call, account_id), name })).position };
}

export async function removeWebhook(call: WebhookCall, account_id: string, name: string): Promise<Recorded> {
  return {
    position: (await record(call, account_id, { type: 'RemoveWebhook', ...who(call, account_id), name })).position,
  };
}

/** A new secret for the webhook, shown once; the old one stops verifying from the next attempt on. */
export async function rotateWebhookSecret(
  call: WebhookCall,
  account_id: string,
  name: string,
): Promise<Recorded & { secret: string }> {
  const secret_nonce = newSecretNonce();
  const { position, events } = await record(call, account_id, {
    type: 'RotateWebhookSecret',
    ...who(call, account_id),
    name,
    secret_nonce,
  });
  const rotated = events[0]!;
  return { position, secret: webhookSecret(call.signingKey, rotated.data.webhook_id, secret_nonce) };
}

/** The account's webhook with this name as its stream has it (the authority, not the read model). */
export async function currentWebhook(call: Pick<WebhookCall, 'store'>, account_id: string, name: string) {
  const { state } = await aggregateStream(call.store, webhookDecider, account_id);
  return webhookNamed(state, name) ?? null;
}
