import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from './infra/config.js';
import { exitWhenIdle } from './infra/exit.js';
import { createLogger } from './infra/logger.js';
import { ROLES, startService, type Role } from './service.js';

/** A failed start-up that left something open (a half-started role) still ends this soon after. */
const START_FAILURE_EXIT_MS = 5_000;

// `npm start` runs every role in one process; `--role api|projector|worker|simulator`
// (repeatable) runs only those, so the service can scale out over several processes.
async function main(): Promise<void> {
  const { values } = parseArgs({ options: { role: { type: 'string', multiple: true } }, strict: true });
  const unknown = (values.role ?? []).filter((r) => !(ROLES as readonly string[]).includes(r));
  if (unknown.length) throw new ConfigError(`unknown role ${unknown.join(', ')}; roles are ${ROLES.join(', ')}`);
  const config = loadConfig();
  const roles = new Set<Role>(values.role?.length ? (values.role as Role[]) : ROLES);
  const logger = createLogger(config.LOG_LEVEL);
  const service = await startService(config, roles, logger);
  logger.info(
    {
      roles: [...roles],
      url: service.url,
      mcp: service.url && `${service.url}/mcp`,
      demo: service.url && `${service.url}/demo/mcp`,
    },
    'service started',
  );

  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'draining');
    const force = setTimeout(() => {
      logger.error('drain took too long; exiting');
      process.exit(1);
    }, config.SHUTDOWN_GRACE_MS);
    force.unref();
    service.stop().then(
      () => {
        logger.info('stopped cleanly');
        process.exit(0);
      },
      (err: unknown) => {
        logger.error({ err }, 'stop failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}

main().catch((err: unknown) => {
  // Start-up problems (an unreachable service, a bad setting) get one line naming what and
  // how to fix it, never a stack trace; LOG_LEVEL=debug shows the stack too.
  console.error(`cannot start: ${err instanceof Error ? err.message : String(err)}`);
  if (process.env.LOG_LEVEL === 'debug') console.error(err);
  exitWhenIdle(1, START_FAILURE_EXIT_MS);
});
