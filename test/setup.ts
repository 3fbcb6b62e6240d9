import { admin, dropRedisKeys, TEST_DB_NAME, TEST_REDIS_PREFIX, testDatabaseUrl } from './support/env.js';

// Mocha root hooks: a fresh database for the whole run, dropped after; tests read
// DATABASE_URL and REDIS_PREFIX from the environment like the service does.

export const mochaHooks = {
  async beforeAll(this: Mocha.Context) {
    this.timeout(30000);
    await admin((c) => c.query(`create database "${TEST_DB_NAME}"`));
    process.env.DATABASE_URL = testDatabaseUrl();
    process.env.REDIS_PREFIX = TEST_REDIS_PREFIX;
    process.env.NODE_ENV = 'test';
    process.env.LOG_LEVEL ??= 'silent';
    // services the tests spawn keep the simulator's market still; a test raises the events it needs
    process.env.SIMULATOR_MARKET_PACE_MS ??= '0';
  },
  async afterAll(this: Mocha.Context) {
    this.timeout(30000);
    if (process.env.KEEP_TEST_DB) return;
    await admin((c) => c.query(`drop database if exists "${TEST_DB_NAME}" with (force)`));
    await dropRedisKeys(`${TEST_REDIS_PREFIX}:*`);
  },
};
