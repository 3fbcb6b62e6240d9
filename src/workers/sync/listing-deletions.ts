import type { CommandContext } from '../../commands/shared/handler.js';
import { executeMutationCommand } from '../../commands/mutation/execute.js';
import { DomainError } from '../../domain/shared/errors.js';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { pendingListingReceipts } from '../../projections/mutations/queries.js';
import { listingRow } from '../../projections/observed/listings.js';

// A listing the marketplace deleted takes its pending requests with it (spec 3.4): queued ones
// become `blocked`, a submission under way stays as it is until resolved. The evidence is the
// listings sync's own complete read of the marketplace: a SKU reported DELETED or no longer
// listed at all. Only a complete read decides, never the read model, which a rebuild empties.

/** Collects the SKUs a marketplace's read shows alive (any status but DELETED) while passing its pages on. */
export function liveSkus(
  pages: AsyncIterable<unknown[]>,
  marketplaceId: string,
  live: Set<string>,
): AsyncIterable<unknown[]> {
  return (async function* () {
    for await (const rows of pages) {
      for (const raw of rows) {
        const row = listingRow(raw, marketplaceId);
        if (row && row.status !== 'DELETED') live.add(row.sku as string);
      }
      yield rows;
    }
  })();
}

/**
 * Records RecordTargetDeleted on every pending receipt of the account's listings in that
 * marketplace whose SKU the complete read didn't show alive. Returns how many receipts changed.
 */
export async function retireDeletedListingTargets(
  deps: { db: Knex; ctx: CommandContext; logger: Logger; now: () => Date },
  account_id: string,
  marketplaceId: string,
  live: ReadonlySet<string>,
): Promise<number> {
  const pending = await pendingListingReceipts(deps.db, account_id, marketplaceId);
  let changed = 0;
  for (const r of pending.filter((p) => !live.has(p.sku))) {
    try {
      const { events } = await executeMutationCommand(deps.ctx, {
        type: 'RecordTargetDeleted',
        receipt_id: r.id,
        recorded_at: deps.now().toISOString(),
      });
      changed += events.length ? 1 : 0;
    } catch (err) {
      // settled since the read model listed it pending: nothing to withhold any more
      if (!(err instanceof DomainError)) throw err;
    }
  }
  if (changed)
    deps.logger.info({ account_id, marketplaceId, changed }, 'requests of listings the marketplace deleted withheld');
  return changed;
}
