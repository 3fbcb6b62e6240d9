import { createHmac } from 'node:crypto';
import { isIP } from 'node:net';
import { z } from 'zod';

/** `vscode-file://*`: every origin of a non-web scheme (an Electron app's pages), as the SDK's Origin check takes it */
const SCHEME_WILDCARD = /^[a-z][a-z0-9+.-]*:\/\/\*$/;

/**
 * The hostnames of a comma-separated list, the only thing the Host and Origin checks compare: an
 * entry may be a hostname, `host:port` or an origin (`https://app.example.com`); a scheme
 * wildcard stays as it is.
 */
const hostnames = (list: string, ctx: z.RefinementCtx): string[] =>
  list
    .split(',')
    .map((h) => h.trim().toLowerCase())
    .filter(Boolean)
    .map((entry) => {
      if (SCHEME_WILDCARD.test(entry)) return entry;
      try {
        const { hostname } = new URL(entry.includes('://') ? entry : `http://${entry}`);
        if (hostname) return hostname;
      } catch {
        // reported below
      }
      ctx.addIssue({ code: 'custom', message: `'${entry}' names no host` });
      return z.NEVER;
    });

/** Names fastify's trustProxy takes for address ranges besides addresses and CIDRs. */
const PROXY_RANGES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/**
 * TRUST_PROXY as fastify's trustProxy: unset or `false` trusts no proxy (the peer's address is the
 * client's); a number trusts that many hops; otherwise the proxies' addresses, CIDRs or range
 * names, comma-separated. `true` (every X-Forwarded-For taken as given) is refused: any client
 * could then name any address (docs/decisions/130-demo-throttle-per-caller.md).
 */
const trustedProxies = (value: string, ctx: z.RefinementCtx): false | number | string[] => {
  const v = value.trim().toLowerCase();
  if (v === '' || v === 'false') return false;
  if (/^\d+$/.test(v)) return Number(v);
  const entries = v
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean);
  const bad = entries.find((e) => !PROXY_RANGES.has(e) && !isIP(e.split('/')[0]!));
  if (v === 'true' || bad !== undefined) {
    ctx.addIssue({
      code: 'custom',
      message: `'${bad ?? v}' is not a hop count, proxy address, CIDR or one of ${[...PROXY_RANGES].join(', ')}`,
    });
    return z.NEVER;
  }
  return entries;
};

// One place that reads the environment. Defaults point at the local services of a
// developer machine; every value can be overridden by the environment.
const schema = z.object({
  NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().default('127.0.0.1'),
  PUBLIC_BASE_URL: z.string().url().optional(),
  // Host names (Host header) and browser origins (Origin header) the MCP endpoints answer besides
  // localhost and PUBLIC_BASE_URL's host: comma-separated hostnames (an origin or host:port counts
  // as its hostname). Anything else is refused (DNS rebinding, foreign pages).
  MCP_ALLOWED_HOSTS: z.string().default('').transform(hostnames),
  MCP_ALLOWED_ORIGINS: z.string().default('').transform(hostnames),
  // The reverse proxies in front of the service, whose X-Forwarded-For names the client: the
  // demo's throttles count per client address, and sign-in limits per IP.
  TRUST_PROXY: z.string().default('').transform(trustedProxies),
  DATABASE_URL: z.string().default('postgres://postgres@127.0.0.1:5432/marketplace'),
  REDIS_URL: z.string().default('redis://127.0.0.1:6379'),
  REDIS_PREFIX: z.string().default('mas'),
  EVENTSTORE_URL: z.string().optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  // Marketplace endpoints. Unset means: run the built-in simulator on loopback.
  SELLING_API_URL: z.string().url().optional(),
  ADS_API_URL: z.string().url().optional(),
  LWA_TOKEN_URL: z.string().url().optional(),
  LWA_CLIENT_ID: z.string().default('simulator-client'),
  LWA_CLIENT_SECRET: z.string().default('simulator-secret'),
  // The seller authorization this deployment connects (the simulator's fictional seller by
  // default): refresh tokens of the selling and advertising connections, and the selling
  // partner id the authorization named. Empty disables that connection.
  SELLING_REFRESH_TOKEN: z.string().default('Atzr|demo-seller'),
  ADS_REFRESH_TOKEN: z.string().default('Atzr|demo-advertiser'),
  SELLING_PARTNER_ID: z.string().optional(),
  // A second, optional credential set: a vendor authorization, which `accounts connect
  // --credentials vendor` connects to a user of /mcp (the demo serves the seller only). Unset
  // means the simulator's fictional vendor when the simulator runs, and none against real
  // endpoints; empty disables that connection.
  VENDOR_SELLING_REFRESH_TOKEN: z.string().optional(),
  VENDOR_ADS_REFRESH_TOKEN: z.string().optional(),
  VENDOR_SELLING_PARTNER_ID: z.string().optional(),
  SIMULATOR_PORT: z.coerce.number().int().min(0).max(65535).default(3100),
  SIMULATOR_SEED: z.coerce.number().int().default(42),
  // The simulator's events (docs/marketplace-events.md): its live market's tick interval (0 stops
  // it), how long a new stream subscription waits for confirmation, and the push retries.
  SIMULATOR_MARKET_PACE_MS: z.coerce.number().int().min(0).default(5_000),
  SIMULATOR_STREAM_CONFIRM_MS: z.coerce.number().int().min(0).default(1_000),
  SIMULATOR_DELIVERY_ATTEMPTS: z.coerce.number().int().min(1).default(8),
  SIMULATOR_DELIVERY_RETRY_MS: z.coerce.number().int().min(1).default(500),
  // Accounts' event signing secrets derive from it (src/domain/event/delivery.ts); a default only
  // while the built-in simulator is the marketplace.
  INGESTION_SECRET: z.string().min(1, 'must not be empty').optional(),
  // The OAuth authorization server's keys (docs/decisions/101-oauth-keys.md): a JWK Set of private
  // signing keys and comma-separated cookie keys; unset, keys generated once and kept in the database.
  OAUTH_JWKS: z.string().optional(),
  OAUTH_COOKIE_KEYS: z.string().optional(),
  // A CA certificate file trusted when fetching OAuth Client ID Metadata Documents, which may then be
  // on loopback: honoured only when NODE_ENV=test (docs/decisions/102-oauth-test-ca.md).
  OAUTH_TEST_CA_FILE: z.string().optional(),
  /** the user the stdio entry serves; unset = the demo user */
  MCP_USER_ID: z.uuid().optional(),
  PROJECTOR_POLL_MS: z.coerce.number().int().positive().default(500),
  /** the projector role's own connections: its projections' batches never take the api's */
  PROJECTOR_CONNECTIONS: z.coerce.number().int().positive().default(4),
  /** how often the projector role vacuums and analyzes read-model tables, by autovacuum's rules */
  TABLE_MAINTENANCE_EVERY_MS: z.coerce.number().int().positive().default(60_000),
  SHUTDOWN_GRACE_MS: z.coerce.number().int().positive().default(10000),
  /** how often the worker re-establishes job schedulers missing from Redis (after a flush or failover) */
  SCHEDULES_SWEEP_MS: z.coerce.number().int().positive().default(60_000),
  /** how often the dispatcher re-enqueues pending receipts from the read model */
  DISPATCH_SWEEP_MS: z.coerce.number().int().positive().default(5000),
  /** deadline of one dispatched request; past it the receipt is uncertain */
  DISPATCH_TIMEOUT_MS: z.coerce.number().int().positive().default(30000),
  // Stream subscriptions (docs/decisions/066-stream-subscriptions.md): how often the sweep
  // compares what should be subscribed with what is, how long a while_needed type stays
  // subscribed after its last live automation stops, when a failed subscribe is tried again,
  // and how often an ads subscription waiting for confirmation is looked at.
  STREAMS_SWEEP_MS: z.coerce.number().int().positive().default(5_000),
  STREAMS_GRACE_MS: z.coerce.number().int().min(0).default(600_000),
  STREAMS_RETRY_FAILED_MS: z.coerce.number().int().positive().default(600_000),
  STREAMS_CONFIRM_POLL_MS: z.coerce.number().int().positive().default(2_000),
  // how often every active subscription is checked against what the marketplace says it has
  STREAMS_VERIFY_MS: z.coerce.number().int().positive().default(60_000),
  // Data syncs (docs/decisions/087-syncs-that-resume.md): a failed run's retries (doubling from
  // the first, up to the longest, until its next run is due), and how soon a job whose process
  // died runs again (its lock's life, and how often the worker looks for such jobs).
  SYNC_RETRY_FIRST_MS: z.coerce.number().int().positive().default(10_000),
  SYNC_RETRY_LONGEST_MS: z.coerce.number().int().positive().default(300_000),
  SYNC_LOCK_MS: z.coerce.number().int().min(1_000).default(15_000),
  SYNC_STALLED_CHECK_MS: z.coerce.number().int().min(500).default(5_000),
  // Webhooks (docs/decisions/073-webhook-signing.md and 075-webhook-private-networks.md): each
  // webhook's signing secret derives from this key
  // (unset: derived from INGESTION_SECRET); whether deliveries may reach
  // private, loopback, link-local and metadata addresses, and use plain http (local receivers,
  // tests; never in production); how often the sweep re-enqueues pending deliveries.
  WEBHOOK_SIGNING_KEY: z.string().min(1, 'must not be empty').optional(),
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: z.stringbool().default(false),
  WEBHOOK_SWEEP_MS: z.coerce.number().int().positive().default(30_000),
  // The secret read_amazon_operation seals its continuation cursors with (AES-256-GCM; unset:
  // derived from INGESTION_SECRET). Changing it invalidates the cursors already handed out.
  LIVE_READ_CURSOR_KEY: z.string().min(1, 'must not be empty').optional(),
  // the demo seller's console pages (`/`, `/activity`, …) per visitor per 60 seconds; benchmarks raise it.
  DEMO_PAGES_PER_MINUTE: z.coerce.number().int().positive().default(60),
  // run_automation's dry runs per caller per 60 seconds (spec 8: 30); benchmarks raise it.
  DRY_RUNS_PER_MINUTE: z.coerce.number().int().positive().default(30),
  /** marketplace events the live-runs reactor has taken and not finished (its accounts' batches, docs/decisions/147) */
  LIVE_RUNS_CONCURRENCY: z.coerce.number().int().positive().default(64),
  /** partitions the accounts fall in for live runs, held by the worker processes as leases (every worker of a deployment the same) */
  LIVE_PARTITIONS: z.coerce.number().int().positive().max(1024).default(32),
  // Seller accounts' mail (password reset links): an SMTP URL (smtps://user:pass@host), and the
  // sender. Unset: in development and tests each message goes to the log; in production none is sent.
  SMTP_URL: z.string().url().optional(),
  MAIL_FROM: z.string().default('Marketplace automation <no-reply@localhost>'),
  // The secret vault's keys (docs/decisions/095-secret-vault.md): `<id>:<base64 of 32 bytes>`,
  // comma-separated, the first seals; unset, one derived from INGESTION_SECRET outside production.
  SECRETS_KEYS: z.string().optional(),
  // The selling API application whose consent page the connections pages send a seller to, and the
  // pages themselves (unset: the simulator's with the simulator, else Seller Central's and LWA's).
  SELLING_APPLICATION_ID: z.string().optional(),
  SELLING_CONSENT_URL: z.url().optional(),
  ADS_AUTHORIZATION_URL: z.url().optional(),
});

export type Config = Omit<
  z.infer<typeof schema>,
  | 'VENDOR_SELLING_REFRESH_TOKEN'
  | 'VENDOR_ADS_REFRESH_TOKEN'
  | 'INGESTION_SECRET'
  | 'WEBHOOK_SIGNING_KEY'
  | 'LIVE_READ_CURSOR_KEY'
> & {
  INGESTION_SECRET: string;
  WEBHOOK_SIGNING_KEY: string;
  LIVE_READ_CURSOR_KEY: string;
  VENDOR_SELLING_REFRESH_TOKEN: string;
  VENDOR_ADS_REFRESH_TOKEN: string;
  useSimulator: boolean;
};

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    const first = parsed.error.issues[0];
    throw new ConfigError(`invalid configuration: ${first?.path.join('.')}: ${first?.message}`);
  }
  const c = parsed.data;
  const realEndpoints = [c.SELLING_API_URL, c.ADS_API_URL, c.LWA_TOKEN_URL].filter(Boolean).length;
  if (realEndpoints !== 0 && realEndpoints !== 3) {
    throw new ConfigError(
      'invalid configuration: set all of SELLING_API_URL, ADS_API_URL and LWA_TOKEN_URL, or none (none runs the built-in simulator)',
    );
  }
  const useSimulator = realEndpoints === 0;
  if (c.INGESTION_SECRET === undefined && !useSimulator)
    throw new ConfigError(
      'invalid configuration: INGESTION_SECRET: required when the marketplace is not the simulator',
    );
  const ingestionSecret = c.INGESTION_SECRET ?? SIMULATOR_INGESTION_SECRET;
  return {
    ...c,
    INGESTION_SECRET: ingestionSecret,
    // unset: a key of its own derived from the ingestion secret (one operator secret to keep)
    WEBHOOK_SIGNING_KEY:
      c.WEBHOOK_SIGNING_KEY ?? createHmac('sha256', ingestionSecret).update('webhook-signing-key').digest('base64'),
    LIVE_READ_CURSOR_KEY:
      c.LIVE_READ_CURSOR_KEY ?? createHmac('sha256', ingestionSecret).update('live-read-cursor-key').digest('base64'),
    VENDOR_SELLING_REFRESH_TOKEN: c.VENDOR_SELLING_REFRESH_TOKEN ?? (useSimulator ? 'Atzr|demo-vendor' : ''),
    VENDOR_ADS_REFRESH_TOKEN: c.VENDOR_ADS_REFRESH_TOKEN ?? (useSimulator ? 'Atzr|demo-vendor-advertiser' : ''),
    useSimulator,
  };
}

/** The simulator's deployments sign with this; never use it against the real marketplace. */
export const SIMULATOR_INGESTION_SECRET = 'simulator-ingestion-secret';

export class ConfigError extends Error {}
