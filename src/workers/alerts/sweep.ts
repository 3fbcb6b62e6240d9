import { markAlertSent, recordFindings } from '../../commands/alert/execute.js';
import type { CommandContext } from '../../commands/shared/handler.js';
import type { UnsentAlert } from '../../domain/alert/decide.js';
import { credentialsOf } from '../../identity/credentials.js';
import type { Knex } from '../../infra/db.js';
import type { Logger } from '../../infra/logger.js';
import type { Mailer } from '../../infra/mail.js';
import { READ_MODEL_SCHEMA } from '../../projections/projection.js';
import { ALERT_DESTINATIONS_TABLE } from '../../projections/alerts/projection.js';
import type { StreamAccount } from '../../domain/stream/eligibility.js';
import { allStreamAccounts } from '../../projections/streams/queries.js';
import { inPartitions } from '../../projections/partitions.js';
import { partitionOf, type HeldPartitions } from '../../domain/shared/partitions.js';
import { startSweeps } from '../sweeps.js';
import type { RunningWebhooks } from '../webhook/queue.js';
import { findingsOf } from './findings.js';

// The alerts sweep (docs/decisions/160-alerts.md): every minute, each account with a destination
// has its conditions read and recorded; the alerts raised and not yet handed off are then sent, a
// webhook's through the delivery queue (keyed by the alert: sent twice, it is delivered once), an
// email by the mailer. Each worker sweeps the accounts of the live reactor's partitions it holds,
// so two workers never mail one alert at once; the alert stream's expected revision lets one record
// a finding should a partition change hands mid-sweep, and a sweep that died before a hand-off was
// recorded sends it next time.

export interface AlertSweepDeps {
  db: Knex;
  ctx: CommandContext;
  webhooks: Pick<RunningWebhooks, 'postAlert'>;
  mailer: Mailer;
  now: () => Date;
  logger: Pick<Logger, 'error' | 'warn'>;
  /** the partitions of accounts this worker holds (the live reactor's); every account when absent */
  partitions?: () => HeldPartitions;
}

export const ALERT_SWEEP_EVERY_MS = 60_000;

async function send(deps: AlertSweepDeps, account_id: string, alert: UnsentAlert): Promise<string | null> {
  const d = alert.destination;
  if (d.kind === 'email') {
    const to = (await credentialsOf(deps.db, d.user_id))?.email;
    if (!to) return `user ${d.user_id} has no email address (the account was deleted)`;
    await deps.mailer.send({ to, subject: `Alert: ${alert.kind.replaceAll('_', ' ')}`, text: alert.detail });
    return null;
  }
  const posted = await deps.webhooks.postAlert({ accountId: account_id, webhook: d.webhook, alert });
  return 'refused' in posted ? posted.refused : null;
}

/** `streams`: allStreamAccounts, read once a sweep. */
export async function sweepAccountAlerts(
  deps: AlertSweepDeps,
  account_id: string,
  streams: readonly StreamAccount[],
): Promise<void> {
  const at = deps.now().toISOString();
  const state = await recordFindings(deps.ctx, account_id, await findingsOf(deps.db, account_id, streams), at);
  for (const alert of state.unsent) {
    const refused = await send(deps, account_id, alert);
    if (refused) deps.logger.warn({ account_id, alert_id: alert.alert_id, refused }, 'alert not handed off');
    await markAlertSent(deps.ctx, account_id, alert.alert_id, deps.now().toISOString(), refused);
  }
}

/** One sweep over the accounts whose alerts have a destination; an account's failure leaves the others. */
export async function sweepAlerts(deps: AlertSweepDeps): Promise<void> {
  const partitions = deps.partitions?.();
  if (partitions?.held.length === 0) return;
  const accounts: string[] = await deps.db
    .withSchema(READ_MODEL_SCHEMA)
    .table(ALERT_DESTINATIONS_TABLE)
    .modify((q) => partitions && inPartitions(q, 'account_id', partitions))
    .pluck('account_id');
  const streams = await allStreamAccounts(deps.db);
  for (const account_id of accounts) {
    // held still? a partition handed over mid-sweep is its new holder's to sweep
    const now = deps.partitions?.();
    if (now && !now.held.includes(partitionOf(account_id, now.count))) continue;
    await sweepAccountAlerts(deps, account_id, streams).catch((err: unknown) =>
      deps.logger.error({ err, account_id }, 'alerts sweep of an account failed'),
    );
  }
}

export const startAlertSweeps = (deps: AlertSweepDeps, everyMs = ALERT_SWEEP_EVERY_MS) =>
  startSweeps(() => sweepAlerts(deps), everyMs, deps.logger, 'alerts sweep failed');
