import type { Finding } from '../../domain/alert/decide.js';
import type { Knex } from '../../infra/db.js';
import { loadAccount } from '../../projections/accounts/queries.js';
import { failingAutomations } from '../../projections/automation-runs/queries.js';
import { listReceipts } from '../../projections/mutations/queries.js';
import type { StreamAccount } from '../../domain/stream/eligibility.js';
import { listStreams } from '../../projections/streams/queries.js';

// What needs the seller now, read from the read models the Overview reads (docs/decisions/160-alerts.md).
// Each finding's key names the condition, so that it is one alert while it lasts.

/** an automation is failing when this many of its latest runs in a row failed */
export const FAILING_RUNS = 3;
/** the uncertain receipts an alert names */
const NAMED_RECEIPTS = 5;

/** `streams`: every account as the subscriptions sweep sees them (allStreamAccounts), read once a sweep. */
export async function findingsOf(db: Knex, account_id: string, streams: readonly StreamAccount[]): Promise<Finding[]> {
  const account = await loadAccount(db, account_id);
  if (!account) return [];
  const findings: Finding[] = [];
  for (const [label, c] of [
    ['selling', account.selling],
    ['advertising', account.ads],
  ] as const)
    if (c?.inactive?.cause === 'authorization_refused')
      findings.push({
        key: `authorization:${c.id}`,
        kind: 'authorization_revoked',
        detail: `The marketplace revoked the authorization of ${account.name}'s ${label} connection on ${c.inactive.since}: ${c.inactive.detail}. Nothing is synced or sent through it until you reconnect it.`,
      });
  const streamAccount = streams.find((a) => a.id === account_id);
  if (streamAccount)
    for (const s of await listStreams(db, [streamAccount]))
      if (s.subscription === 'failed')
        findings.push({
          key: `stream:${s.stream_type}`,
          kind: 'stream_failed',
          detail: `The ${s.stream_type} event stream of ${account.name} failed to subscribe${s.error ? `: ${s.error}` : ''}. Automations on it get no events.`,
        });
  const { mutations: uncertain } = await listReceipts(db, {
    accountIds: [account_id],
    status: 'uncertain',
    limit: 100,
  });
  if (uncertain.length > 0)
    findings.push({
      key: 'receipts_uncertain',
      kind: 'receipts_uncertain',
      detail: `${uncertain.length === 100 ? '100 or more' : uncertain.length} receipt${uncertain.length === 1 ? ' was' : 's were'} left uncertain on ${account.name} (the marketplace's answer was lost; each is being reconciled and never sent again blindly): ${uncertain
        .slice(0, NAMED_RECEIPTS)
        .map((m) => `${m.id} (${m.action} on ${m.target_type} ${m.target_id})`)
        .join(', ')}${uncertain.length > NAMED_RECEIPTS ? ', …' : ''}.`,
    });
  for (const a of await failingAutomations(db, account_id, FAILING_RUNS))
    findings.push({
      key: `automation:${a.automation_id}`,
      kind: 'automation_failing',
      detail: `Automation ${a.automation_id} of ${account.name} failed its last ${FAILING_RUNS} runs${a.last_error ? `; the latest: ${a.last_error}` : ''}.`,
    });
  return findings;
}
