// Whether a failure says "later" rather than "never": the database (PostgreSQL, or EventStoreDB
// where it holds the log) or the network between us and it was away, busy or gave way (an outage,
// a restart, a failover, a deadlock, a lock or statement timeout), so the same work done again can
// succeed. Everything else (a constraint broken, a value PostgreSQL refuses, an error in our code)
// would fail the same way every time.

/** SQLSTATE classes and codes that end when the server, the network or the other transaction does. */
const TRANSIENT_CLASSES = ['08', '40', '53', '57', '58'];
const TRANSIENT_CODES = new Set([
  '55P03', // lock_not_available (lock_timeout)
  '55006', // object_in_use
  '25P02', // in_failed_sql_transaction: what follows an earlier failure in the same transaction
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

export function isTransient(err: unknown, depth = 0): boolean {
  if (depth > 8 || err === null || typeof err !== 'object') return false;
  const { code, message, cause, name, type, metadata } = err as Record<string, unknown>;
  if (typeof code === 'string') {
    if (code.length === 5 && (TRANSIENT_CLASSES.includes(code.slice(0, 2)) || TRANSIENT_CODES.has(code))) return true;
    if (SOCKET_ERRORS.has(code)) return true;
  }
  if (typeof type === 'string' && ESDB_TYPES.has(type)) return true;
  if (typeof code === 'number' && metadata !== undefined && GRPC_CODES.has(code)) return true;
  if (name === 'KnexTimeoutError') return true;
  if (typeof message === 'string' && CONNECTION_GONE.test(message)) return true;
  return cause !== undefined && isTransient(cause, depth + 1);
}
