// Whether a failure says "later" rather than "never": the database (PostgreSQL, or EventStoreDB
// where it holds the log) or the network between us and it was away, busy or gave way (an outage,
// a restart, a failover, a deadlock, a lock or statement timeout), so the same work done again can
// succeed. Everything else (a constraint broken, a value PostgreSQL refuses, an error in our code)
// would fail the same way every time.

/**
 * SQLSTATEs that end when the server, the network or the other transaction does: connection
 * failures (not 08P01, a protocol violation our statement would repeat), serialization failures
 * and deadlocks, too many connections, a lock not had within lock_timeout, a statement cancelled
 * (statement_timeout, an operator), the server shutting down or starting. Not whole classes: some
 * of their codes (disk full, out of shared memory) would fail the same batch the same way again.
 */
const TRANSIENT_CODES = new Set([
  '08000',
  '08001',
  '08003',
  '08004',
  '08006',
  '08007',
  '40001',
  '40P01',
  '53300',
  '55P03',
  '57014',
  '57P01',
  '57P02',
  '57P03',
]);

/** Node's socket errors: nobody listening, the connection cut, a name or route not there now. */
const SOCKET_ERRORS = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
]);

/** EventStoreDB's client: its error types, and gRPC's status codes where it passes them on unconverted (4, 14). */
const ESDB_TYPES = new Set(['unavailable', 'deadline-exceeded', 'timeout', 'not-leader']);
const GRPC_CODES = new Set([4, 14]);

/** node-postgres' and knex's words for a connection that ended or could not be had (they carry no code). */
const CONNECTION_GONE =
  /^(Connection terminated|Client has encountered a connection error|Client was closed|Knex: Timeout acquiring a connection|timeout exceeded when trying to connect|Connection is closed)/;

/** True when the failure (or one of its causes) passes: the same work done again may succeed. */
export function isTransient(err: unknown, depth = 0): boolean {
  if (depth > 8 || err === null || typeof err !== 'object') return false;
  const { code, message, cause, name, type, metadata } = err as Record<string, unknown>;
  if (typeof code === 'string' && (TRANSIENT_CODES.has(code) || SOCKET_ERRORS.has(code))) return true;
  if (typeof type === 'string' && ESDB_TYPES.has(type)) return true;
  if (typeof code === 'number' && metadata !== undefined && GRPC_CODES.has(code)) return true;
  if (name === 'KnexTimeoutError') return true;
  if (typeof message === 'string' && CONNECTION_GONE.test(message)) return true;
  return cause !== undefined && isTransient(cause, depth + 1);
}
