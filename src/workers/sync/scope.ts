import { completeSync, observePage } from '../../commands/observation/record.js';
import type { CommandContext } from '../../commands/shared/handler.js';
import type { ObservationKey } from '../../domain/observation/events.js';
import type { Knex } from 'knex';
import { READ_MODEL_SCHEMA } from '../../projections/projection.js';

/**
 * Records one complete read of a scope: each page as it arrives (unchanged pages record
 * nothing), then the page count. Returns how many events were recorded, 0 for a re-sync
 * of unchanged data. The next page is read while the last one is recorded (pages still
 * recorded in order, one at a time).
 */
export async function syncScope(
  ctx: CommandContext,
  key: ObservationKey,
  pages: AsyncIterable<unknown[]>,
  now: () => Date = () => new Date(),
): Promise<{ pages: number; recorded: number }> {
  let page = 0;
  let recorded = 0;
  let recording: Promise<number> | null = null;
  try {
    for await (const rows of pages) {
      if (recording) recorded += await recording;
      recording = observePage(ctx, key, page, rows, now());
      // its failure is awaited (and thrown) before anything else is recorded
      recording.catch(() => {});
      page++;
    }
  } finally {
    // a failed read still lets the page in flight finish before the error goes up
    if (recording) recorded += await recording;
  }
  recorded += await completeSync(ctx, key, page, now());
  return { pages: page, recorded };
}

/**
 * Records one complete read of a scope from a bulk report's pages, most likely for the first
 * time: up to `parallel` pages at once as they come (no more are taken from `pages` meanwhile, so
 * a streamed report is never whole in memory), each appended without reading its stream first
 * (see RecordOptions), then the page count. Returns the events recorded.
 */
export async function recordFirstRead(
  ctx: CommandContext,
  key: ObservationKey,
  pages: Iterable<unknown[]> | AsyncIterable<unknown[]>,
  now: () => Date,
  parallel: number,
): Promise<number> {
  const fresh = { fresh: true };
  const inFlight = new Set<Promise<void>>();
  let page = 0;
  let recorded = 0;
  let failed: { err: unknown } | null = null;
  try {
    for await (const rows of pages) {
      const appended: Promise<void> = observePage(ctx, key, page++, rows, now(), fresh)
        .then(
          (n) => void (recorded += n),
          (err: unknown) => void (failed ??= { err }),
        )
        .finally(() => inFlight.delete(appended));
      inFlight.add(appended);
      if (inFlight.size >= parallel) await Promise.race(inFlight);
      if (failed) break;
    }
  } finally {
    // a failed read still lets the pages in flight finish before the error goes up
    await Promise.all(inFlight);
  }
  if (failed) throw (failed as { err: unknown }).err;
  return recorded + (await completeSync(ctx, key, page, now(), fresh));
}

/** `fn` over the items, at most `limit` at once; results in the items' order. */
export async function mapLimited<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

/** A turn-taker: each call's `fn` starts once the calls before it have settled (failed or not). */
export function oneAtATime(): <R>(fn: () => Promise<R>) => Promise<R> {
  let tail: Promise<unknown> = Promise.resolve();
  return (fn) => {
    const run = tail.then(fn);
    tail = run.catch(() => undefined);
    return run;
  };
}

/** `fn` over the items, at most `limit` at once. A failure stops taking up more items and is thrown
 * once those under way have finished, so nothing of a failed run still writes while its retry runs. */
export async function forEachAtOnce<T>(
  items: readonly T[],
  limit: number,
  fn: (item: T) => Promise<void>,
): Promise<void> {
  let failed: { err: unknown } | null = null;
  await mapLimited(items, limit, (item) =>
    failed ? Promise.resolve() : fn(item).catch((err: unknown) => void (failed ??= { err })),
  );
  if (failed) throw (failed as { err: unknown }).err;
}

/** The scopes of `dataset` the account has a complete read of (only those under `prefix/`, when given). */
export async function completeScopes(
  db: Knex,
  account_id: string,
  dataset: string,
  prefix?: string,
): Promise<string[]> {
  const query = db.withSchema(READ_MODEL_SCHEMA).table('observed_scopes').where({ account_id, dataset });
  if (prefix !== undefined) query.andWhere('scope', 'like', `${prefix}/%`);
  return (await query.select('scope')).map((r: { scope: string }) => r.scope);
}
