import pg from 'pg';

// Statements a process sends to PostgreSQL, counted on the client side: `pg_stat_statements`
// would count them server-side but needs a restart to load. Its own module so a worker process
// the benchmark starts can load it alone (statements-preload.ts) without the benchmark's code.

let statements = 0;
let counting = false;
/** by kind: the statement's first words, its spacing folded */
const byKind = new Map<string, number>();
const KIND_CHARS = 70;

// A text's count and kind, worked out once: the same few texts are sent thousands of times, and
// splitting and folding each again cost the process under measurement about 1.5% of its CPU.
const TEXTS_KEPT = 10_000;
const texts = new Map<string, { n: number; kind: string }>();
function described(text: string): { n: number; kind: string } {
  let d = texts.get(text);
  if (!d) {
    d = {
      n: text.split(';').filter((s) => s.trim() !== '').length || 1,
      kind: text.replace(/\s+/g, ' ').trim().slice(0, KIND_CHARS),
    };
    if (texts.size < TEXTS_KEPT) texts.set(text, d);
  }
  return d;
}

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
      const { n, kind } = described(text);
      statements += n;
      byKind.set(kind, (byKind.get(kind) ?? 0) + n);
      return query.apply(this, a);
    } as typeof pg.Client.prototype.query;
  }
  const from = statements;
  return () => statements - from;
}

/** The statements of each kind sent from the call on, most first: where statementCounter's count comes from. */
export function statementKinds(): () => Array<[kind: string, count: number]> {
  const from = new Map(byKind);
  return () =>
    [...byKind]
      .map(([kind, n]): [string, number] => [kind, n - (from.get(kind) ?? 0)])
      .filter(([, n]) => n > 0)
      .sort((a, b) => b[1] - a[1]);
}
