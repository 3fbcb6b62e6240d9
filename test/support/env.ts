import { randomBytes } from 'node:crypto';

// Each test run gets its own database and Redis key prefix, named once per process.
const runId = `${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;

export const TEST_DB_NAME = `test_${runId}`;
export const TEST_REDIS_PREFIX = `test-${runId}`;
export const ADMIN_DATABASE_URL = process.env.TEST_ADMIN_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export function testDatabaseUrl(): string {
  const u = new URL(ADMIN_DATABASE_URL);
  u.pathname = `/${TEST_DB_NAME}`;
  return u.toString();
}
