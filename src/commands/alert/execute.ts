import { alertDecider, type AlertState, type Finding } from '../../domain/alert/decide.js';
import type { AlertDestination } from '../../domain/alert/events.js';
import { DomainError } from '../../domain/shared/errors.js';
import { webhookDecider } from '../../domain/webhook/decide.js';
import { webhookNamed } from '../../domain/webhook/state.js';
import { advanced, aggregateStream, handleCommand, type CommandContext } from '../shared/handler.js';

// The alerts of an account (docs/decisions/160-alerts.md): where they go, and what a sweep found.

/** Sets (or, with null, clears) where the account's alerts go; a webhook must be one of the account's. */
export async function setAlertDestination(
  ctx: CommandContext,
  input: { account_id: string; destination: AlertDestination | null; by: string; at: string },
): Promise<void> {
  const d = input.destination;
  if (d?.kind === 'webhook') {
    const { state } = await aggregateStream(ctx.store, webhookDecider, input.account_id);
    if (!webhookNamed(state, d.webhook))
      throw new DomainError('not_found', `webhook: no webhook named '${d.webhook}' on this account`, {
        argument: 'webhook',
      });
  }
  await handleCommand(alertDecider, input.account_id, { type: 'SetAlertDestination', ...input }, ctx);
}

/** Records what a sweep found; answers the account's alerts afterwards (those to send among them). */
export async function recordFindings(
  ctx: CommandContext,
  account_id: string,
  findings: readonly Finding[],
  at: string,
): Promise<AlertState> {
  const known = await aggregateStream(ctx.store, alertDecider, account_id);
  const result = await handleCommand(
    alertDecider,
    account_id,
    { type: 'RecordFindings', account_id, findings, at },
    ctx,
    known,
  );
  return (advanced(alertDecider, known, result) ?? (await aggregateStream(ctx.store, alertDecider, account_id))).state;
}

/** The alert was handed to its destination (or could not be: `refused` says why). */
export async function markAlertSent(
  ctx: CommandContext,
  account_id: string,
  alert_id: string,
  at: string,
  refused: string | null,
): Promise<void> {
  await handleCommand(alertDecider, account_id, { type: 'MarkAlertSent', alert_id, at, refused }, ctx);
}
