import { parseArgs } from 'node:util';
import { issueApiToken, registerUser, revokeApiToken } from './commands/user/execute.js';
import type { CommandContext } from './commands/shared/handler.js';
import { newId, UUID_PATTERN } from './domain/shared/ids.js';
import { DomainError } from './domain/shared/errors.js';
import { createEventStore, type Position } from './eventstore/index.js';
import { loadConfig, type Config } from './infra/config.js';
import { createDb, type Knex } from './infra/db.js';
import { createLogger } from './infra/logger.js';
import { migrate } from './infra/migrate.js';
import { migrateQueryViews, migrationSteps } from './migrations.js';
import { createCredentials, EmailTaken, normalizeEmail, resealTotpSecrets } from './identity/credentials.js';
import { checkRedis, ensureDatabase } from './infra/reachability.js';
import { createRedis } from './infra/redis.js';
import { admissionProjection } from './projections/admission/projection.js';
import { authProjection } from './projections/auth/projection.js';
import { setAdmissions } from './commands/admission/switch.js';
import { executeAccountCommand } from './commands/account/execute.js';
import type { ConnectionKind } from './domain/account/events.js';
import { accountsProjection } from './projections/accounts/projection.js';
import { executeDispatchControlCommand } from './commands/dispatch-control/execute.js';
import { resolveTarget } from './projections/admission/queries.js';
import { READ_MODEL_SCHEMA } from './projections/projection.js';
import { findUser, listTokens } from './projections/auth/queries.js';
import { Projector } from './projections/projector.js';
import { projections } from './projections/registry.js';
import { runRebuildCommand, UsageError } from './projections/rebuild-command.js';
import type { Queue } from 'bullmq';
import {
  connectionsQueue,
  reconnectAccount,
  scheduleConnectionSync,
  type ConnectionSyncJob,
} from './workers/connections-queue.js';
import { credentialSets, SELLER_CREDENTIALS } from './workers/credentials.js';
import { runWebhookCommand, WEBHOOK_USAGE } from './webhook-cli.js';
import { FEEDBACK_USAGE, runFeedbackCommand } from './feedback-cli.js';
import { CATALOG_USAGE, runCatalogCommand } from './catalog/cli.js';
import { readBacktest, requestBacktest } from './mcp/backtests.js';
import { backtestQueue, enqueueBacktest } from './runtime/backtest/jobs.js';
import { REVERT_USAGE, runRevertCommand } from './revert-cli.js';
import { OPERATORS_USAGE, runOperatorsCommand } from './operators-cli.js';
import { createVault, keyringFrom } from './secrets/vault.js';
import { PAT_SCOPES, SCOPES } from './domain/user/scopes.js';

const USAGE = `usage: npm run cli -- <command>
  users create --name <name> [--email <email>]
                                              register a user; prints its id (--email: its seller sign-in
                                              address, without a password: a reset link at /reset sets one)
  tokens create --user <user id> [--label <label>] [--scope read|write]
                                              issue a personal access token for /mcp; prints it once
                                              (write, the default, includes read)
  tokens list --user <user id>                list a user's tokens (never the tokens themselves)
  tokens revoke --user <user id> --token <token id>
  accounts connect --user <user id> [--credentials seller|vendor]
                                              connect a configured credential set (default seller)
                                              to a new account of the user (a running worker syncs it)
  accounts deactivate --account <id> [--connection selling|ads] [--reason <text>]
                                              stop using an account's connections (default both):
                                              no syncs; their raw provider data goes 30 days from today
  accounts reconnect --account <id> [--credentials seller|vendor]
                                              make its inactive connections active again once the
                                              marketplace accepts their authorization (a running worker
                                              reads them at once); stops the 30-day clock
  secrets rotate                              re-seal every stored marketplace secret (a connection
                                              made on the connections pages) and every seller's TOTP
                                              secret under SECRETS_KEYS' first key
  admissions disable [--reason <text>] | admissions enable
                                              pause or allow new marketplace write requests
                                              (queue_mutations, patch_listing); queued ones go on
${OPERATORS_USAGE}
  campaigns automation --campaign <local id> --switch on|off
                                              a campaign's Automation switch: off withholds every
                                              request that touches it (recorded, never sent)
  backtests start --user <user id> --automation <id> [--version <n>] [--since <iso>] [--until <iso>]
                                              backtest a saved automation over its recorded events (a
                                              running worker replays it); prints its id
  backtests show --user <user id> --backtest <id> [--cancel yes]
                                              a backtest's status, progress and totals (JSON); --cancel
                                              stops it first
  rebuild <projection> | rebuild --all        rebuild read models from the event log
${REVERT_USAGE}
${CATALOG_USAGE}
${WEBHOOK_USAGE}
${FEEDBACK_USAGE}`;

const CONNECTIONS = ['selling', 'ads'] as const;

/** The options of USAGE: each takes a value (`--name <name>`). */
const OPTIONS = [
  'name',
  'email',
  'user',
  'label',
  'token',
  'scope',
  'reason',
  'credentials',
  'account',
  'connection',
  'campaign',
  'switch',
  'automation',
  'version',
  'since',
  'until',
  'backtest',
  'cancel',
] as const;
type Option = (typeof OPTIONS)[number];

/** The name of a configured credential set, else a usage error. */
function configuredSet(config: Config, name: string): string {
  if (!credentialSets(config).has(name))
    throw new UsageError(`no credential set named ${name} is configured (seller: SELLING_*/ADS_*, vendor: VENDOR_*)`);
  return name;
}

/** Runs `fn` with the connection sync queue (a running worker takes its jobs). */
async function withConnectionsQueue(config: Config, fn: (queue: Queue<ConnectionSyncJob>) => Promise<void>) {
  await checkRedis(config.REDIS_URL);
  const redis = createRedis(config.REDIS_URL);
  const queue = connectionsQueue(redis, config.REDIS_PREFIX);
  try {
    await fn(queue);
  } finally {
    await queue.close();
    await redis.quit();
  }
}

/** An account as the read model has it, for the operator's account commands. */
async function accountById(
  db: Knex,
  account_id: string,
): Promise<{ user_id: string; credentials: string | null; selling: boolean; ads: boolean }> {
  if (!UUID_PATTERN.test(account_id)) throw new UsageError(`--account: '${account_id}' is not an account id (a uuid)`);
  const row = await db
    .withSchema(READ_MODEL_SCHEMA)
    .table('accounts')
    .where({ account_id })
    .first(
      'user_id',
      db.raw(`coalesce(selling->>'credentials', ads->>'credentials') as credentials`),
      db.raw('selling is not null as selling'),
      db.raw('ads is not null as ads'),
    );
  if (!row) throw new UsageError(`no account ${account_id}`);
  return row;
}

async function main(argv: string[]): Promise<void> {
  const [group, action, ...rest] = argv;
  const config = loadConfig();
  const logger = createLogger(config.LOG_LEVEL === 'info' ? 'warn' : config.LOG_LEVEL, 'cli');
  await ensureDatabase(config.DATABASE_URL);
  const db = createDb(config.DATABASE_URL, { min: 0, max: 4 });
  const store = createEventStore(config);
  const ctx: CommandContext = { store, metadata: { actor: { kind: 'user', id: 'cli' } } };
  const option = (name: Option, required = true): string | undefined => {
    const { values } = parseArgs({
      args: rest,
      options: Object.fromEntries(OPTIONS.map((o) => [o, { type: 'string' as const }])),
      strict: true,
    });
    const value = values[name];
    if (required && !value) throw new UsageError(`--${name} is required\n${USAGE}`);
    return value;
  };
  // Users and tokens must work the moment the command returns, running service or not.
  const project = async (position: Position | null | undefined, which = [authProjection]) => {
    const projector = new Projector(db, store, which, { logger, pollMs: 50 });
    projector.start();
    try {
      await projector.whenCaughtUp(position);
    } finally {
      await projector.stop();
    }
  };
  try {
    await migrate(db, migrationSteps(projections, { eventStoreInPostgres: !config.EVENTSTORE_URL }));
    if (group === 'webhook')
      return await runWebhookCommand(action, rest, {
        call: {
          store,
          db,
          by: process.env.USER ?? 'cli',
          actor: { kind: 'user', id: 'cli' },
          signingKey: config.WEBHOOK_SIGNING_KEY,
          allowPrivateNetworks: config.WEBHOOK_ALLOW_PRIVATE_NETWORKS,
        },
        redisUrl: config.REDIS_URL,
        redisPrefix: config.REDIS_PREFIX,
        logger,
        project,
        print: (line) => console.log(line),
      });
    switch (`${group} ${action}`) {
      case 'users create': {
        const user_id = newId();
        const email = option('email', false);
        if (email !== undefined) {
          const address = normalizeEmail(email);
          if (!address) throw new UsageError(`--email: '${email}' is not an email address`);
          // before the user is registered: a taken address stops here, leaving nothing behind
          await createCredentials(db, { user_id, email: address, password_hash: null }).catch((err: unknown) => {
            throw err instanceof EmailTaken
              ? new UsageError(`--email: ${address} already signs in to an account`)
              : err;
          });
        }
        await project(await registerUser(ctx, user_id, option('name')!));
        console.log(user_id);
        return;
      }
      case 'tokens create': {
        const scope = option('scope', false) ?? 'write';
        if (!Object.hasOwn(PAT_SCOPES, scope)) throw new UsageError(`--scope must be read or write\n${USAGE}`);
        const { token_id, token, position } = await issueApiToken(
          ctx,
          option('user')!,
          option('label', false) ?? 'cli',
          PAT_SCOPES[scope as keyof typeof PAT_SCOPES],
        );
        await project(position);
        console.log(`token id: ${token_id}\ntoken (shown once): ${token}`);
        return;
      }
      case 'tokens list':
        for (const t of await listTokens(db, option('user')!)) {
          console.log(
            `${t.token_id}  ${t.label}  ${(t.scopes ?? SCOPES).join(' ')}  created ${t.created_at.toISOString()}${t.revoked_at ? `  revoked ${t.revoked_at.toISOString()}` : ''}`,
          );
        }
        return;
      case 'tokens revoke':
        await project(await revokeApiToken(ctx, option('user')!, option('token')!));
        console.log('revoked');
        return;
      case 'accounts connect': {
        const user_id = option('user')!;
        if (!(await findUser(db, user_id)))
          throw new UsageError(`no user ${user_id}; create one with: users create --name <name>`);
        const credentials = configuredSet(config, option('credentials', false) ?? SELLER_CREDENTIALS);
        const account_id = newId();
        await withConnectionsQueue(config, (queue) =>
          scheduleConnectionSync(queue, { user_id, account_id, credentials }),
        );
        console.log(account_id);
        return;
      }
      case 'accounts deactivate': {
        const account_id = option('account')!;
        const account = await accountById(db, account_id);
        const which = option('connection', false);
        if (which !== undefined && which !== 'selling' && which !== 'ads')
          throw new UsageError(`--connection: '${which}' is neither selling nor ads\n${USAGE}`);
        const kinds =
          which === 'selling' || which === 'ads' ? [which as ConnectionKind] : CONNECTIONS.filter((k) => account[k]);
        const command = {
          type: 'DeactivateConnection' as const,
          account_id,
          cause: 'operator' as const,
          detail: option('reason', false) ?? `deactivated by ${process.env.USER ?? 'operator'}`,
          at: new Date().toISOString(),
        };
        const changed: string[] = [];
        for (const connection of kinds)
          if (await executeAccountCommand(ctx, { ...command, connection })) changed.push(connection);
        // connection_status shows it at once; a running worker's schedule keeper drops the syncs within its interval
        if (changed.length > 0) await project(undefined, [accountsProjection]);
        for (const connection of kinds)
          console.log(`${connection}: ${changed.includes(connection) ? 'inactive' : 'inactive already'}`);
        return;
      }
      case 'accounts reconnect': {
        const account_id = option('account')!;
        const account = await accountById(db, account_id);
        const credentials = configuredSet(
          config,
          option('credentials', false) ?? account.credentials ?? SELLER_CREDENTIALS,
        );
        await withConnectionsQueue(config, (queue) =>
          reconnectAccount(queue, { user_id: account.user_id, account_id, credentials }),
        );
        console.log(`reconnecting ${account_id} with credential set ${credentials}`);
        return;
      }
      case 'secrets rotate': {
        const keyring = keyringFrom(config);
        if (!keyring) throw new UsageError('SECRETS_KEYS is not configured: there is no key to rotate to');
        const rotated = await createVault(db, keyring).rotate();
        console.log(`re-sealed ${rotated} secret(s) under key ${keyring.current.id}`);
        const totp = await resealTotpSecrets(db, keyring);
        console.log(`re-sealed ${totp} TOTP secret(s) under key ${keyring.current.id}`);
        return;
      }
      case 'admissions disable':
      case 'admissions enable': {
        const by = process.env.USER ?? 'operator';
        const command =
          action === 'disable'
            ? {
                type: 'DisableAdmissions' as const,
                reason: option('reason', false) ?? null,
                by,
                at: new Date().toISOString(),
              }
            : { type: 'EnableAdmissions' as const, by, at: new Date().toISOString() };
        const { changed, position } = await setAdmissions(ctx, command);
        if (changed) await project(position, [admissionProjection]);
        console.log(`admissions ${action}d${changed ? '' : ' (already)'}`);
        return;
      }
      case 'campaigns automation': {
        const campaign_id = option('campaign')!.trim().toLowerCase();
        const state = option('switch')!;
        if (state !== 'on' && state !== 'off')
          throw new UsageError(`--switch: '${state}' is neither on nor off\n${USAGE}`);
        const accounts: { account_id: string }[] = await db
          .withSchema(READ_MODEL_SCHEMA)
          .table('accounts')
          .select('account_id');
        const found = await resolveTarget(
          db,
          accounts.map((a) => a.account_id),
          { type: 'Campaign', id: campaign_id },
        );
        if (!found)
          throw new UsageError(
            `no campaign with local id ${campaign_id} (use an id from list_campaigns or list_ads_entities)`,
          );
        const command = {
          type: 'SetCampaignAutomation' as const,
          account_id: found.account_id,
          campaign_id,
          enabled: state === 'on',
          at: new Date().toISOString(),
        };
        // in force at once: admission and the dispatcher read the flag's own stream
        const { position } = await executeDispatchControlCommand(ctx, command);
        console.log(`campaign ${campaign_id}: Automation switch ${state}${position ? '' : ' (already)'}`);
        return;
      }
      case 'backtests start':
      case 'backtests show': {
        const redis = createRedis(config.REDIS_URL);
        const queue = backtestQueue(redis, config.REDIS_PREFIX);
        const caller = {
          db,
          store,
          userId: option('user')!,
          now: () => new Date(),
          backtests: { enqueue: (id: string) => enqueueBacktest(queue, id) },
        };
        try {
          const version = option('version', false);
          const answer =
            action === 'start'
              ? await requestBacktest(caller, {
                  automation_id: option('automation')!,
                  version: version === undefined ? undefined : Number(version),
                  since: option('since', false),
                  until: option('until', false),
                })
              : await readBacktest(caller, option('backtest')!, option('cancel', false) === 'yes');
          const { result, ...rest } = answer;
          console.log(JSON.stringify({ ...rest, totals: result?.totals ?? null }, null, 2));
        } finally {
          await queue.close();
          await redis.quit();
        }
        return;
      }
      default:
        if (group === 'catalog')
          return await runCatalogCommand(action, rest, { db, print: (line) => console.log(line) });
        if (group === 'mutations' && action === 'revert')
          return await runRevertCommand(rest, { config, db, store, logger, print: (line) => console.log(line) });
        if (group === 'operators')
          return await runOperatorsCommand(action, rest, {
            db,
            ctx,
            by: process.env.USER ?? 'operator',
            project,
            print: (line) => console.log(line),
          });
        if (group === 'feedback')
          return await runFeedbackCommand(action, rest, { db, project, print: (line) => console.log(line) });
        if (group === 'rebuild') {
          await runRebuildCommand(argv.slice(1), { db, store, projections, logger, output: process.stdout });
          // a view whose tables the rebuild made (a new rollup's) exists from now on, not from the next start
          return await migrate(db, [migrateQueryViews]);
        }
        throw new UsageError(USAGE);
    }
  } finally {
    await store.close();
    await db.destroy();
  }
}

main(process.argv.slice(2)).catch((err: unknown) => {
  const message =
    err instanceof DomainError ? `${err.code}: ${err.detail}` : err instanceof Error ? err.message : String(err);
  console.error(message);
  process.exit(err instanceof UsageError ? 2 : 1);
});
