import pg from 'pg';

// Statements a process sends to PostgreSQL, counted on the client side: `pg_stat_statements`
// would count them server-side but needs a restart to load. Its own module so a worker process
// the benchmark starts can load it alone (statements-preload.ts) without the benchmark's code.

let statements = 0;
let counting = false;

/**
 * Counts the statements this process sends to PostgreSQL (every pool's client: knex's, the
 * event store's), from the call on. A multi-statement text counts once per statement in it.
 */
export function statementCounter(): () => number {
  if (!counting) {
    counting = true;
    const query = pg.Client.prototype.query as (...a: unknown[]) => unknown;
    pg.Client.prototype.query = function (this: pg.Client, ...a: unknown[]) {
      const config = a[0] as string | { text?: string } | undefined;
      const text = typeof config === 'string' ? config : (config?.text ?? '');
      statements += text.split(';').filter((s) => s.trim() !== '').length || 1;
      return query.apply(this, a);
    } as typeof pg.Client.prototype.query;
  }
  const from = statements;
  return () => statements - from;
}
