import { parseArgs } from 'node:util';
import { revertMutations } from './commands/revert/revert.js';
import type { EventStore } from './eventstore/port.js';
import type { Config } from './infra/config.js';
import type { Knex } from './infra/db.js';
import type { Logger } from './infra/logger.js';
import { checkRedis } from './infra/reachability.js';
import { createRedis } from './infra/redis.js';
import { createLwaClient } from './marketplace/clients/index.js';
import { selectionOf } from './mcp/tools/revert_mutations.js';
import { loadAccounts } from './projections/accounts/queries.js';
import { UsageError } from './projections/rebuild-command.js';
import { marketplaceEndpoints } from './service.js';
import { credentialsLookup } from './workers/credentials.js';
import { dispatchQueue, enqueueDispatch } from './workers/dispatch/queue.js';
import { revertReads } from './workers/dispatch/observed.js';

// `npm run cli -- mutations revert …`: revert_mutations for an operator acting for a user
// (docs/decisions/125-revert.md), with the same selection, plan and admission.

export const REVERT_USAGE = `  mutations revert --user <user id> (--receipt <id>... | --automation <id> --since <ISO 8601> | --key <idempotency key>)
                   [--overwrite] [--dry-run] [--idempotency-key <key>]
                                              queue the changes restoring what those receipts replaced
                                              (creations archived); prints one line per receipt`;

export async function runRevertCommand(
  rest: string[],
  deps: { config: Config; db: Knex; store: EventStore; logger: Logger; print(line: string): void },
): Promise<void> {
  const { values } = parseArgs({
    args: rest,
    options: {
      user: { type: 'string' },
      receipt: { type: 'string', multiple: true },
      automation: { type: 'string' },
      since: { type: 'string' },
      key: { type: 'string' },
      overwrite: { type: 'boolean', default: false },
      'dry-run': { type: 'boolean', default: false },
      'idempotency-key': { type: 'string' },
    },
    strict: true,
  });
  if (!values.user) throw new UsageError(`--user is required\n${REVERT_USAGE}`);
  const { config, db, store } = deps;
  const userId = values.user;
  const accounts = await loadAccounts(db, userId);
  const input = {
    ...(values.receipt ? { receipt_ids: values.receipt } : {}),
    ...(values.automation ? { automation_id: values.automation } : {}),
    ...(values.since ? { since: values.since } : {}),
    ...(values.key ? { admitted_with_key: values.key } : {}),
  };
  const selection = await selectionOf(
    input,
    { db, userId },
    accounts.map((a) => a.id),
  );
  await checkRedis(config.REDIS_URL);
  const redis = createRedis(config.REDIS_URL);
  const queue = dispatchQueue(redis, config.REDIS_PREFIX);
  try {
    const outcome = await revertMutations(
      {
        db,
        store,
        now: new Date(),
        logger: deps.logger,
        notifier: { queued: (ids) => enqueueDispatch(queue, ids) },
      },
      revertReads(db, store, liveReads(config, db)),
      {
        userId,
        accounts,
        selection,
        overwrite: values.overwrite,
        dry_run: values['dry-run'],
        idempotency_key: values['idempotency-key'],
        input: { ...input, overwrite: values.overwrite, dry_run: values['dry-run'] },
      },
    );
    for (const item of outcome.items)
      deps.print(
        `${item.receipt_id}  ${item.result}${item.receipt?.id ? ` ${item.receipt.id}` : ''}${item.detail ? `  ${item.detail}` : ''}`,
      );
    if (outcome.replayed) deps.print('(replayed: the first answer under this idempotency key)');
  } finally {
    await queue.close();
    await redis.quit();
  }
}

/**
 * The CLI reads targets live where the service does: the configured marketplace, or the built-in
 * simulator at SIMULATOR_PORT. A simulator on a port of its own choosing (0) can't be found from
 * here: the targets are then checked against their latest observation only.
 */
function liveReads(config: Config, db: Knex) {
  if (config.useSimulator && config.SIMULATOR_PORT === 0)
    return {
      unavailable:
        "SIMULATOR_PORT is 0, so the service's simulator listens on a port this CLI can't know; set SIMULATOR_PORT to that port",
    };
  const endpoints = marketplaceEndpoints(config, null);
  const lwa = createLwaClient({
    tokenUrl: endpoints.lwaTokenUrl,
    clientId: config.LWA_CLIENT_ID,
    clientSecret: config.LWA_CLIENT_SECRET,
  });
  return { lwa, endpoints, credentials: credentialsLookup(config, db), timeoutMs: 10_000 };
}
