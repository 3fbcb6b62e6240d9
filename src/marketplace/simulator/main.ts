import { ConfigError, loadConfig } from '../../infra/config.js';
import { createLogger } from '../../infra/logger.js';
import { configuredLwaClient, createSimulator } from './app.js';
import { eventsOptionsFrom } from './events/index.js';

// Runs the simulator on its own: node dist/src/marketplace/simulator/main.js
// (SIMULATOR_PORT, SIMULATOR_SEED, SIMULATOR_MARKET_PACE_MS and the other SIMULATOR_* event
// settings, LWA_CLIENT_ID / LWA_CLIENT_SECRET from the environment).
async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger(config.LOG_LEVEL, 'simulator');
  const simulator = createSimulator({
    seed: config.SIMULATOR_SEED,
    lwaClients: [configuredLwaClient(config)],
    logger,
    events: eventsOptionsFrom(config),
  });
  const baseUrl = await simulator.listen({ port: config.SIMULATOR_PORT });
  logger.info(
    { baseUrl, seed: config.SIMULATOR_SEED, seller: simulator.seller.name },
    'marketplace simulator listening',
  );
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => void simulator.close().then(() => process.exit(0)));
  }
}

main().catch((error: unknown) => {
  // One line, no stack: a bad setting or a port already taken.
  const reason = error instanceof ConfigError || error instanceof Error ? error.message : String(error);
  console.error(`simulator: ${reason}`);
  process.exit(1);
});
