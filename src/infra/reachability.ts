import pg from 'pg';
import { Redis } from 'ioredis';

// Start-up probes: one line naming the service, the address tried and how to start it.
export class UnreachableError extends Error {}

function redact(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return url;
  }
}

export async function checkRedis(url: string): Promise<void> {
  const redis = new Redis(url, {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    connectTimeout: 3000,
    retryStrategy: () => null,
  });
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    await redis.ping();
  } catch (err) {
    throw new UnreachableError(
      `Redis unreachable at ${redact(url)} (${(err as Error).message}); start it with: redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no`,
    );
  } finally {
    // a refused connection has already ended; disconnecting it again would arm ioredis' 2 s
    // disconnect timer on a closed stream and hold the failed start-up open that long
    if (redis.status !== 'end') redis.disconnect();
  }
}

// Creates the database named in the URL when the server is up but the database is not.
export async function ensureDatabase(url: string): Promise<void> {
  const target = new URL(url);
  const name = decodeURIComponent(target.pathname.slice(1));
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const client = new pg.Client({ connectionString: admin.toString(), connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
  } catch (err) {
    throw new UnreachableError(
      `PostgreSQL unreachable at ${redact(admin.toString())} (${(err as Error).message}); start it with: pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start`,
    );
  }
  try {
    const found = await client.query('select 1 from pg_database where datname = $1', [name]);
    if (found.rowCount === 0) await client.query(`create database "${name.replace(/"/g, '""')}"`);
  } finally {
    await client.end().catch(() => undefined);
  }
}
