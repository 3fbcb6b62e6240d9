import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import pg from 'pg';
import { deleteKeys } from '../../src/infra/redis.js';

// Each test run gets its own database and Redis key prefix, named once per process.
const runId = `${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;

export const TEST_DB_NAME = `test_${runId}`;
export const TEST_REDIS_PREFIX = `test-${runId}`;
export const ADMIN_DATABASE_URL = process.env.TEST_ADMIN_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/** The URL of a database on the test server: the run's own, or another one a test makes. */
export function testDatabaseUrl(name: string = TEST_DB_NAME): string {
  const u = new URL(ADMIN_DATABASE_URL);
  u.pathname = `/${name}`;
  return u.toString();
}

/** Runs `fn` on a connection to the server's admin database (creating and dropping databases). */
export async function admin<T>(fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: ADMIN_DATABASE_URL });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** Deletes the Redis keys matching `pattern` (a queue prefix a test used, say). */
export async function dropRedisKeys(pattern: string): Promise<void> {
  const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  try {
    await deleteKeys(redis, pattern);
  } finally {
    redis.disconnect();
  }
}
