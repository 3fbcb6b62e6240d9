import { randomUUID } from 'node:crypto';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { pino } from 'pino';
import { DEMO_USER_ID } from '../domain/shared/ids.js';
import { loadConfig } from '../infra/config.js';
import { createDb } from '../infra/db.js';
import { createEventStore } from '../eventstore/index.js';
import { buildMcpServer } from './mcp-server.js';

// The same tools over stdio for a local agent, as the user named by MCP_USER_ID (the
// demo user when unset). stdout carries the protocol, so logs go to stderr only.
async function main(): Promise<void> {
  const config = loadConfig();
  const logger = pino({ level: config.LOG_LEVEL, name: 'mcp-stdio' }, pino.destination(2));
  const userId = config.MCP_USER_ID ?? DEMO_USER_ID;
  const endpoint = userId === DEMO_USER_ID ? 'demo' : 'mcp';
  const db = createDb(config.DATABASE_URL, { min: 0, max: 2 });
  const store = createEventStore(config);
  const server = buildMcpServer(() => {
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
  });
  let closing: Promise<void> | undefined;
  const shutdown = () =>
    (closing ??= server
      .close()
      .then(() => Promise.all([db.destroy(), store.close()]))
      .then(() => undefined));
  // the agent closing our stdin ends the session like a signal does
  for (const signal of ['SIGTERM', 'SIGINT'] as const) process.once(signal, () => void shutdown());
  process.stdin.once('end', () => void shutdown());
  await server.connect(new StdioServerTransport());
  logger.info({ userId, endpoint }, 'mcp stdio server ready');
}

main().catch((err: unknown) => {
  process.stderr.write(`mcp stdio: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
