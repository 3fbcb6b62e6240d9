import { completeSync, observePage } from '../../commands/observations.js';
import type { CommandContext } from '../../commands/handler.js';
import type { ObservationKey } from '../../domain/observation/events.js';
import type { Knex } from 'knex';
import { READ_MODEL_SCHEMA } from '../../projections/projection.js';

/**
 * Records one complete read of a scope: each page as it arrives (unchanged pages record
 * nothing), then the page count. Returns how many events were recorded, 0 for a re-sync
 * of unchanged data.
 */
export async function syncScope(
  ctx: CommandContext,
  key: ObservationKey,
  pages: AsyncIterable<unknown[]>,
  now: () => Date = () => new Date(),
): Promise<{ pages: number; recorded: number }> {
  let page = 0;
  let recorded = 0;
  for await (const rows of pages) {
    recorded += await observePage(ctx, key, page, rows, now());
    page++;
  }
  recorded += await completeSync(ctx, key, page, now());
  return { pages: page, recorded };
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
