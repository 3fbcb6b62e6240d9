import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { admin, dropRedisKeys, TEST_DB_NAME, TEST_REDIS_PREFIX, testDatabaseUrl } from './env.js';
import { Redis } from 'ioredis';
import type { Knex } from 'knex';
import { DEMO_USER_ID } from '../../src/domain/shared/ids.js';
import { loadAccounts } from '../../src/projections/accounts/queries.js';
import { syncQueue } from '../../src/workers/sync/queue.js';
import { cli, eventually, runEntry, waitForLog, type Spawned } from './processes.js';

// The service as `npm start` runs it, in a process of its own, and what end-to-end tests do
// with it: speak MCP to it with the SDK's client, and make users and tokens with the CLI.

export interface RunningServiceProcess {
  spawned: Spawned;
  /** base URL of its HTTP server */
  base: string;
}

const SERVICE_START_MS = 90_000;

/** Starts every role (or `roles`) and waits until it serves; a process that doesn't start is killed. */
export async function startServiceProcess(
  env: Record<string, string>,
  roles: string[] = [],
  node?: Parameters<typeof runEntry>[3],
): Promise<RunningServiceProcess> {
  const spawned = runEntry(
    'main.js',
    roles.flatMap((r) => ['--role', r]),
    env,
    node,
  );
  try {
    // a start that fails exits at once; a slow one (migrations, the catalog, the demo on a loaded machine) gets time
    const started = await waitForLog(spawned, (r) => r.msg === 'service started', SERVICE_START_MS);
    return { spawned, base: started.url as string };
  } catch (err) {
    await killIfRunning(spawned);
    throw err;
  }
}

/** The built-in simulator's base URL, from the service's log (it may listen on any port). */
export async function simulatorUrl(service: Spawned): Promise<string> {
  const line = await waitForLog(service, (r) => r.msg === 'marketplace simulator listening');
  return (line.endpoints as { sellingApiUrl: string }).sellingApiUrl;
}

export async function killIfRunning(s: Spawned): Promise<void> {
  if (s.child.exitCode !== null) return;
  s.child.kill('SIGKILL');
  await s.exit;
}

/** An MCP client of `url` (/mcp with a bearer token, or /demo/mcp). */
export async function connectMcp(url: string, token?: string): Promise<Client> {
  const client = new Client({ name: 'e2e', version: '1.0.0' });
  const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  return client;
}

/** A user made with the operator CLI, and a bearer token for /mcp. */
export async function createUserWithToken(
  env: Record<string, string>,
  name: string,
): Promise<{ userId: string; token: string }> {
  const userId = (await cli(['users', 'create', '--name', name], env)).trim();
  const token = /token \(shown once\): (\S+)/.exec(await cli(['tokens', 'create', '--user', userId], env))![1]!;
  return { userId, token };
}

/** The environment of a service on a database and Redis prefix of its own, on free ports. */
export const serviceEnv = (database: string, prefix: string): Record<string, string> => ({
  DATABASE_URL: testDatabaseUrl(database),
  REDIS_PREFIX: prefix,
  PORT: '0',
  SIMULATOR_PORT: '0',
  LOG_LEVEL: 'info',
  PROJECTOR_POLL_MS: '100',
});

/** The service on a database, Redis prefix and ports of its own, as `npm start` runs it. */
export interface OwnService {
  service: Spawned;
  /** base URL of its HTTP server */
  base: string;
  /** the service's environment, for CLI commands on its database and Redis prefix */
  env: Record<string, string>;
  /** kills it and drops its database and Redis keys */
  stop(): Promise<void>;
}

/**
 * Starts the service on a database and Redis prefix named for the test (the sweeps at start-up
 * would otherwise find what other tests left), without the demo vendor (its year of reports would
 * only slow the syncs these tests wait for).
 */
export async function startOwnService(name: string, extraEnv: Record<string, string> = {}): Promise<OwnService> {
  const database = `${TEST_DB_NAME}_e2e_${name}`;
  const prefix = `${TEST_REDIS_PREFIX}-e2e-${name}`;
  await admin((c) => c.query(`create database "${database}"`));
  const env = {
    ...serviceEnv(database, prefix),
    VENDOR_SELLING_REFRESH_TOKEN: '',
    VENDOR_ADS_REFRESH_TOKEN: '',
    ...extraEnv,
  };
  const started = await startServiceProcess(env);
  return {
    service: started.spawned,
    base: started.base,
    env,
    async stop() {
      await killIfRunning(started.spawned);
      await dropRedisKeys(`${prefix}:*`);
      if (!process.env.KEEP_TEST_DB) await admin((c) => c.query(`drop database if exists "${database}" with (force)`));
    },
  };
}

/** A service of its own with a CLI user whose seller account is connected. */
export interface ConnectedService {
  service: Spawned;
  simulator: string;
  client: Client;
  /** the user the CLI made, whom the client speaks for */
  userId: string;
  account: string;
  /** the service's environment, for CLI commands on its database and Redis prefix */
  env: Record<string, string>;
  stop(): Promise<void>;
}

/** Starts a service of its own (startOwnService), then makes a user, connects its account and speaks MCP to /mcp as that user. */
export async function startConnectedService(
  name: string,
  extraEnv: Record<string, string> = {},
): Promise<ConnectedService> {
  const own = await startOwnService(name, extraEnv);
  const simulator = await simulatorUrl(own.service);
  const { userId, token } = await createUserWithToken(own.env, name);
  const account = (await cli(['accounts', 'connect', '--user', userId], own.env)).trim();
  const client = await connectMcp(`${own.base}/mcp`, token);
  return {
    service: own.service,
    simulator,
    client,
    userId,
    account,
    env: own.env,
    async stop() {
      await client.close();
      await own.stop();
    },
  };
}

/** The demo seller's account id, once the read model shows it connected for selling and ads with its profiles. */
export const demoSellerConnected = (db: Knex): Promise<string> =>
  eventually(
    async () => {
      const seller = (await loadAccounts(db, DEMO_USER_ID)).find((a) => a.entity_type === 'seller');
      return seller?.selling && seller.ads?.profiles.length ? seller.id : undefined;
    },
    'the demo seller to be connected',
    // the connection job completes once the projector shows the account, which can queue
    // behind other work on a loaded 2-core machine (CI took over 30 s once)
    120_000,
  );

/**
 * Has the service's sync worker run the sync `name` (listings, ads-entities, …) of its account now,
 * besides its schedule, and waits until the service logs it done (no later read can race it).
 */
export async function runSync(s: ConnectedService, name: string): Promise<void> {
  const done = () =>
    s.service.logs.filter((r) => r.msg === 'sync done' && r.sync === name && r.account_id === s.account).length;
  const before = done();
  const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', { maxRetriesPerRequest: null });
  const queue = syncQueue(redis, s.env.REDIS_PREFIX!);
  try {
    await queue.add(name, { account_id: s.account });
  } finally {
    await queue.close();
    redis.disconnect();
  }
  await eventually(async () => (done() > before ? true : undefined), `the ${name} sync`, 120_000);
}
