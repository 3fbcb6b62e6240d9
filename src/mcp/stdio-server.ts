import { randomUUID } from 'node:crypto';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { pino } from 'pino';
import { DEMO_USER_ID } from '../domain/shared/ids.js';
import { loadConfig } from '../infra/config.js';
import { createDb } from '../infra/db.js';
import { createEventStore } from '../eventstore/index.js';
import { SERVICE_CATALOG } from './catalog.js';
import { buildMcpServer } from './mcp-server.js';

// The same tools over stdio for a local agent, as the user named by MCP_USER_ID (the
// demo user when unset). stdout carries the protocol, so logs go to stderr only.
async function main(): Promise<void> {
  const config = loadConfig();
  const logger = pino({ level: config.LOG_LEVEL, name: 'mcp-stdio' }, pino.destination(2));
  const userId = config.MCP_USER_ID ?? DEMO_USER_ID;
  const endpoint = userId === DEMO_USER_ID ? 'demo' : 'mcp';
  // knex's warnings (a failed connection, say) would go to stdout: to the log instead
  const knexLog = (level: 'warn' | 'error' | 'debug') => (message: unknown) => logger[level]({ knex: message });
  const db = createDb(
    config.DATABASE_URL,
    { min: 0, max: 2 },
    { warn: knexLog('warn'), error: knexLog('error'), deprecate: knexLog('warn'), debug: knexLog('debug') },
  );
  const store = createEventStore(config);
  // the SDK's stdio entry: the connection's opening pins its revision (2026-07-28, or a 2025
  // one through initialize); one server per connection (and one for a discarded discover probe)
  const serving = serveStdio(
    () =>
      buildMcpServer(() => {
        const requestId = randomUUID();
        return {
          db,
          userId,
          endpoint,
          logger: logger.child({ reqId: requestId }),
          requestId,
          now: () => new Date(),
          store,
        };
      }, SERVICE_CATALOG),
    { onerror: (err) => logger.warn({ err }, 'mcp stdio message not served') },
  );
  let closing: Promise<void> | undefined;
  const shutdown = () =>
    (closing ??= serving
      .close()
      .then(() => Promise.all([db.destroy(), store.close()]))
      .then(() => undefined));
  // the agent closing our stdin ends the session like a signal does
  for (const signal of ['SIGTERM', 'SIGINT'] as const) process.once(signal, () => void shutdown());
  process.stdin.once('end', () => void shutdown());
  logger.info({ userId, endpoint }, 'mcp stdio server ready');
}

main().catch((err: unknown) => {
  process.stderr.write(`mcp stdio: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
