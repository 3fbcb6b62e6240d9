import { ACTION_STATUSES } from '../../domain/automation-run/events.js';
import { STATUSES } from '../../domain/mutation/events.js';
import { TARGET_TYPES } from '../../domain/mutation/payloads.js';
import { accountsForRead, selectAccounts } from '../../mcp/accounts.js';
import type { AccountView } from '../../projections/accounts/queries.js';
import { eventRow } from '../../mcp/events.js';
import type { ToolContext } from '../../mcp/tool.js';
import { listMutations } from '../../mcp/tools/list_mutations.js';
import { listAutomationActions, type ActionRow } from '../../projections/automation-runs/queries.js';
import { encodeKeyset, type Keyset } from '../../projections/keyset.js';
import { searchEvents } from '../../projections/events/queries.js';
import type { ReceiptSummary } from '../../projections/mutations/queries.js';
import { listDeliveries, type DeliveryRow } from '../../projections/webhook/queries.js';
import { answerOf } from './reads.js';

// The Activity timeline: automation actions, mutation receipts, webhook deliveries and incoming
// marketplace events, newest first by (time, id). A page reads each kind from the cursor with one row more than the page,
// merges and cuts (docs/decisions/156-seller-console.md).

export const KINDS = ['action', 'receipt', 'delivery', 'event'] as const;
export type Kind = (typeof KINDS)[number];

/** the statuses each kind has: a status filter applies to the kinds that have it */
export const STATUSES_OF: Record<Kind, readonly string[]> = {
  action: ACTION_STATUSES,
  receipt: [...STATUSES, 'pending'],
  delivery: ['pending', 'delivered', 'failed', 'cancelled'],
  event: [],
};

export interface TimelineFilter {
  /** one account's activity (an account id); every account of the reader's when absent */
  account?: string;
  kind?: Kind;
  status?: string;
  /** only this automation's actions (an automation id: activity.ts checks it) */
  automation?: string;
  /** only the receipts of this target */
  target?: { type: (typeof TARGET_TYPES)[number]; id: string };
  before?: Keyset;
  limit: number;
}

export type Item =
  | { kind: 'action'; at: string; id: string; row: ActionRow }
  | { kind: 'receipt'; at: string; id: string; row: ReceiptSummary }
  | { kind: 'delivery'; at: string; id: string; row: DeliveryRow }
  | { kind: 'event'; at: string; id: string; row: ReturnType<typeof eventRow> };

/** Newest first by (time, id): ids are UUIDs, compared as PostgreSQL compares them. */
export const newestFirst = (a: Item, b: Item): number =>
  Date.parse(b.at) - Date.parse(a.at) || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);

/** which kinds the filter reads */
export function kindsOf(f: Omit<TimelineFilter, 'limit'>): Kind[] {
  if (f.automation) return ['action'];
  if (f.target) return ['receipt'];
  return KINDS.filter((k) => (!f.kind || k === f.kind) && (!f.status || STATUSES_OF[k].includes(f.status)));
}

export async function readTimeline(
  ctx: ToolContext,
  f: TimelineFilter,
): Promise<{ accounts: AccountView[]; items: Item[]; next: Keyset | null }> {
  const kinds = kindsOf(f);
  const every = await accountsForRead(ctx, undefined);
  // an account that is not the reader's is refused as the tools refuse it (account_not_found)
  const accounts = selectAccounts(every, f.account, 'read');
  const accountIds = accounts.map((a) => a.id);
  const more = f.limit + 1;
  const iso = (at: string) => new Date(at).toISOString();
  const reads = await Promise.all(
    kinds.map(async (kind): Promise<Item[]> => {
      if (kind === 'action') {
        const { rows } = await listAutomationActions(ctx.db, {
          accountIds,
          ...(f.automation ? { automation_id: f.automation } : {}),
          ...(f.status ? { status: f.status as ActionRow['status'] & string } : {}),
          limit: more,
          timeline: { before: f.before ?? null },
        });
        return rows.map((row) => ({ kind, at: iso(row.decided_at), id: row.id, row }));
      }
      if (kind === 'receipt') {
        const { mutations } = await answerOf<{ mutations: ReceiptSummary[] }>(
          listMutations,
          {
            ...(f.account ? { account: f.account } : {}),
            ...(f.status ? { status: f.status } : {}),
            ...(f.target ? { target_type: f.target.type, target_id: f.target.id } : {}),
            // list_mutations pages on the same keyset: any row's is a cursor for it
            ...(f.before ? { cursor: encodeKeyset(f.before) } : {}),
            limit: more,
          },
          ctx,
        );
        return mutations.map((row) => ({ kind, at: iso(row.created_at), id: row.id, row }));
      }
      if (kind === 'event') {
        const { rows } = await searchEvents(ctx.db, {
          account_ids: accountIds,
          limit: more,
          timeline: { before: f.before ?? null },
        });
        const names = new Map(accounts.map((a) => [a.id, a.name]));
        return rows.map((r) => ({
          kind,
          at: r.occurred_at.toISOString(),
          id: r.id,
          row: eventRow(r, names.get(r.account_id)!),
        }));
      }
      const perAccount = await Promise.all(
        accountIds.map((id) =>
          listDeliveries(ctx.db, id, {
            ...(f.status ? { status: f.status as DeliveryRow['status'] } : {}),
            before: f.before ?? null,
            limit: more,
          }),
        ),
      );
      return perAccount.flat().map((row) => ({ kind, at: iso(row.requested_at), id: row.delivery_id, row }));
    }),
  );
  const merged = reads.flat().sort(newestFirst);
  const items = merged.slice(0, f.limit);
  const last = items.at(-1);
  return { accounts: every, items, next: merged.length > f.limit && last ? { at: last.at, id: last.id } : null };
}
