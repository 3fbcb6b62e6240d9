import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { CommandContext } from '../../commands/shared/handler.js';
import type { LwaClient } from '../../marketplace/clients/index.js';
import type { CredentialsLookup } from '../credentials.js';

/** What every sync job gets: the event log, the read models (to find the account's
 * marketplaces, profiles and the credential set its connections name), the marketplace
 * endpoints, the configured credential sets, a logger. */
export interface SyncDeps {
  ctx: CommandContext;
  db: Knex;
  lwa: LwaClient;
  endpoints: { sellingApiUrl: string; adsApiUrl: string };
  credentials: CredentialsLookup;
  logger: Logger;
  /** the clock of the sync ("today" for trailing windows); tests pin it */
  now: () => Date;
}

/**
 * One kind of sync (e.g. listings, orders, ads entities, a report family). The worker runs
 * it for an account every `everyMs`; `run` must be idempotent: a second run over unchanged
 * marketplace data records nothing.
 */
export interface SyncJobDefinition {
  name: string;
  everyMs: number;
  /** BullMQ's priority (lower first, none before all): reads of history wait behind every account's entities */
  priority?: number;
  run(deps: SyncDeps, account_id: string): Promise<{ recorded: number }>;
}

/** A sync job that reads through the account's selling or advertising context: none, nothing to sync. */
export function syncWith<C>(
  contextOf: (deps: SyncDeps, account_id: string) => Promise<C | null>,
  job: {
    name: string;
    everyMs: number;
    run(deps: SyncDeps, account_id: string, context: C): Promise<{ recorded: number }>;
  },
): SyncJobDefinition {
  return {
    name: job.name,
    everyMs: job.everyMs,
    async run(deps, account_id) {
      const context = await contextOf(deps, account_id);
      return context ? job.run(deps, account_id, context) : { recorded: 0 };
    },
  };
}
