import { completeSync, observePage } from '../../commands/observations.js';
import type { CommandContext } from '../../commands/handler.js';
import type { ObservationKey } from '../../domain/observation/events.js';

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
