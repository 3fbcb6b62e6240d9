import cliProgress from 'cli-progress';
import type { Knex } from 'knex';
import { comparePositions, type EventStore, type Position } from '../eventstore/port.js';
import type { Logger } from '../infra/logger.js';
import { READ_MODEL_SCHEMA, type Projection } from './projection.js';
import { rebuildProjection } from './rebuild.js';

export interface RebuildCommandDeps {
  db: Knex;
  store: EventStore;
  projections: readonly Projection[];
  logger: Logger;
  /** a terminal gets a progress bar, anything else plain progress lines (default: process.stderr) */
  output?: NodeJS.WritableStream & { isTTY?: boolean };
}

export class UsageError extends Error {}

const COUNT_PAGE = 10_000;

// Rebuilds of `--all` at once: one keeps about one core busy (this process and PostgreSQL mostly
// take turns; an orders rebuild left the 2-core machine 41 % idle), so two fill a 2-core machine.
const JOBS = 2;

/**
 * `rebuild <name>` or `rebuild --all` (argv without the command name): rebuilds the named
 * projections from position zero, two at a time, and swaps each in as it is done (the swaps one
 * at a time); the live projector may keep running. Throws `UsageError` for bad arguments; a
 * failed rebuild lets those under way finish, starts no other, and is thrown.
 */
export async function runRebuildCommand(argv: string[], deps: RebuildCommandDeps): Promise<void> {
  const selected = select(argv, deps.projections);
  const output = deps.output ?? process.stderr;
  // The port has no count: one pass over the log's positions (no payloads) sizes the bars.
  const total = await countEvents(deps.store);
  const bars = output.isTTY ? multiBar(output) : null;
  const waiting = await largestFirst(deps.db, selected);
  let failed = false;
  const worker = async () => {
    for (let projection = waiting.shift(); projection && !failed; projection = waiting.shift()) {
      const progress = bars ? barProgress(bars, projection.name, total) : lineProgress(output, projection.name, total);
      try {
        // The logger's lines would tear the bars apart; they go along with plain lines only.
        const { eventsRead } = await rebuildProjection(deps.db, deps.store, projection, {
          onProgress: progress.update,
          ...(bars ? {} : { logger: deps.logger }),
        });
        progress.done(eventsRead);
      } catch (err) {
        failed = true;
        throw err;
      }
    }
  };
  try {
    const settled = await Promise.allSettled(Array.from({ length: Math.min(JOBS, selected.length) }, worker));
    const [failure, ...more] = settled.filter((s): s is PromiseRejectedResult => s.status === 'rejected');
    for (const other of more) deps.logger.error({ err: other.reason }, 'another rebuild failed too');
    if (failure) throw failure.reason;
  } finally {
    bars?.stop();
  }
}

/**
 * The projections with the largest live tables first: a rebuild takes about as long as the rows
 * it writes, and the longest started last would run on alone (the orders rebuild, started
 * seventh, ran its last two minutes alone on the bench profile). New ones (no tables) keep their order.
 */
async function largestFirst(db: Knex, projections: readonly Projection[]): Promise<Projection[]> {
  const sizes = await Promise.all(
    projections.map(async (p) => {
      const tables = p.tables.map((t) => `${READ_MODEL_SCHEMA}.${t}`);
      const { rows } = await db.raw(
        'select coalesce(sum(pg_total_relation_size(to_regclass(t))), 0)::bigint as bytes from unnest(?::text[]) t',
        [tables],
      );
      return Number(rows[0].bytes);
    }),
  );
  return projections
    .map((p, i) => ({ p, size: sizes[i]! }))
    .sort((a, b) => b.size - a.size)
    .map(({ p }) => p);
}

function select(argv: string[], projections: readonly Projection[]): readonly Projection[] {
  const names = projections.map((p) => p.name).join(', ') || '(none registered)';
  const usage = `usage: rebuild <projection> | rebuild --all; projections: ${names}`;
  if (argv.length !== 1) throw new UsageError(usage);
  if (argv[0] === '--all') return projections;
  const projection = projections.find((p) => p.name === argv[0]);
  if (!projection) throw new UsageError(`unknown projection ${JSON.stringify(argv[0])}; ${usage}`);
  return [projection];
}

async function countEvents(store: EventStore): Promise<number> {
  let count = 0;
  let after: Position | null = null;
  for (;;) {
    const { through, passed } = await store.readAllOfTypes({ after, types: [], limit: COUNT_PAGE });
    if (through === null || (after !== null && comparePositions(through, after) <= 0)) return count;
    count += passed;
    after = through;
  }
}

/** Events read per second since `started`, and the time left at that pace (null until it has one). */
function pace(started: number, eventsRead: number, total: number): { rate: number; eta: number | null } {
  const seconds = (Date.now() - started) / 1000;
  const rate = seconds > 0 ? eventsRead / seconds : 0;
  return { rate: Math.round(rate), eta: rate > 0 ? Math.max(0, total - eventsRead) / rate : null };
}

const clock = (seconds: number | null): string => {
  if (seconds === null) return '?';
  const s = Math.ceil(seconds);
  return s < 60 ? `${s}s` : `${Math.floor(s / 60)}m${s % 60}s`;
};

interface Progress {
  update(eventsRead: number): void;
  done(eventsRead: number): void;
}

/** The terminal's bars: one per rebuild under way, each left at its end when done. */
function multiBar(stream: NodeJS.WritableStream): cliProgress.MultiBar {
  return new cliProgress.MultiBar(
    {
      stream,
      format: `{name} [{bar}] {percentage}% | {value}/{total} events | {rate} events/s | ETA {left} | {duration_formatted}`,
      hideCursor: true,
      // two bars and their figures on one screen: a shorter bar leaves room for the figures
      barsize: 20,
    },
    cliProgress.Presets.shades_classic,
  );
}

function barProgress(bars: cliProgress.MultiBar, name: string, total: number): Progress {
  const started = Date.now();
  const bar = bars.create(total, 0, { name, rate: 0, left: '?' });
  // Events appended during the rebuild are applied too: grow the bar rather than overflow it.
  const update = (n: number) => {
    if (n > bar.getTotal()) bar.setTotal(n);
    const { rate, eta } = pace(started, n, bar.getTotal());
    bar.update(n, { name, rate, left: clock(eta) });
  };
  return { update, done: update };
}

/** One line at the start, at every tenth of the log, and at the end. */
function lineProgress(output: NodeJS.WritableStream, projection: string, total: number): Progress {
  const line = (text: string) => output.write(`rebuild ${projection}: ${text}\n`);
  let nextPercent = 10;
  const started = Date.now();
  line(`started, ${total} events in the log`);
  return {
    update(eventsRead) {
      const percent = total === 0 ? 100 : Math.floor((eventsRead / total) * 100);
      if (percent < nextPercent) return;
      const { rate, eta } = pace(started, eventsRead, total);
      line(`${eventsRead}/${total} events, ${rate} events/s, ETA ${clock(eta)}`);
      nextPercent = Math.floor(percent / 10) * 10 + 10;
    },
    done(eventsRead) {
      line(`swapped in, ${eventsRead} events`);
    },
  };
}
