import { z } from 'zod';
import { DomainError } from '../domain/shared/errors.js';
import { connectionFor, type StreamType } from '../domain/stream/types.js';
import { loadAccounts, type AccountView } from '../projections/accounts/queries.js';
import type { ToolContext } from './tool.js';

// The shared `account` argument (spec 1.5, 4.2): reads without it cover every account;
// writes need it once the user has more than one.

export const accountArgument = z
  .string()
  .optional()
  .describe(
    'an account id from connection_status; reads: omit to cover every account; writes: required when more than one account is connected',
  );

export type AccountUse = 'read' | 'write';

/** The pure rule, on the caller's accounts: which of them the call covers. */
export function selectAccounts(
  accounts: readonly AccountView[],
  account: string | undefined,
  use: AccountUse,
): AccountView[] {
  if (account !== undefined) {
    const wanted = account.trim().toLowerCase();
    const found = accounts.find((a) => a.id === wanted);
    if (!found)
      throw new DomainError(
        'account_not_found',
        `no connected account has the id '${account}'; ${existing(accounts)}`,
        { accounts: accounts.map((a) => a.id) },
      );
    return [found];
  }
  if (use === 'read') return [...accounts];
  if (accounts.length === 1) return [accounts[0]!];
  if (accounts.length === 0) throw new DomainError('account_not_found', 'no account is connected', { accounts: [] });
  throw new DomainError(
    'account_required',
    `this tool writes and ${accounts.length} accounts are connected: pass account; ${existing(accounts)}`,
    {
      accounts: accounts.map((a) => a.id),
    },
  );
}

function existing(accounts: readonly AccountView[]): string {
  if (accounts.length === 0) return 'no account is connected';
  return `existing accounts: ${accounts.map((a) => `${a.id} (${a.name})`).join(', ')}`;
}

/** Accounts a read covers: the one named, or all of the caller's. */
export async function accountsForRead(ctx: ToolContext, account: string | undefined): Promise<AccountView[]> {
  return selectAccounts(await loadAccounts(ctx.db, ctx.userId), account, 'read');
}

/** The single account a write applies to. */
export async function accountForWrite(ctx: ToolContext, account: string | undefined): Promise<AccountView> {
  return selectAccounts(await loadAccounts(ctx.db, ctx.userId), account, 'write')[0]!;
}

/** Accounts a seller-data read covers (listings, sales): seller accounts with a selling
 * connection; a named account without one is `not_connected`. */
export async function sellingAccountsForRead(ctx: ToolContext, account: string | undefined): Promise<AccountView[]> {
  const accounts = await accountsForRead(ctx, account);
  const selling = accounts.filter((a) => a.entity_type === 'seller' && a.selling !== null);
  if (account !== undefined && selling.length === 0) {
    const a = accounts[0]!;
    throw new DomainError(
      'not_connected',
      `account ${a.id} (${a.name}) has no selling connection${a.entity_type === 'vendor' ? ' (it is a vendor account)' : ''}`,
      { account: a.id },
    );
  }
  return selling;
}

/** The account that runs an event type (spec 4.3, 5.5): the one named, or the first that can; a
 * seller type on a vendor account is `stream_type_not_for_entity`, a missing connection
 * `owner_not_connected`. */
export function accountForStreamType(
  accounts: readonly AccountView[],
  account: string | undefined,
  type: StreamType,
): AccountView {
  const connection = connectionFor(type);
  const forEntity = (a: AccountView) => !(type.sellerOnly && a.entity_type === 'vendor');
  const connected = (a: AccountView) => a[connection]?.connected === true;
  const candidates = selectAccounts(accounts, account, 'read');
  const found = candidates.find((a) => forEntity(a) && connected(a));
  if (found) return found;
  const named = account !== undefined ? `account ${candidates[0]!.id} (${candidates[0]!.name})` : 'no account of yours';
  if (candidates.length > 0 && !candidates.some(forEntity))
    throw new DomainError(
      'stream_type_not_for_entity',
      `${type.code} is a seller event type and ${account !== undefined ? `${named} is a vendor account` : 'every account of yours is a vendor account'}`,
      { stream_type: type.code },
    );
  throw new DomainError(
    'owner_not_connected',
    `${type.code} needs ${connection === 'ads' ? 'an advertising' : 'a selling'} connection and ${named}${
      account !== undefined ? ' has none' : ' has one'
    }${candidates.length === 0 ? ' (no account is connected)' : ''}`,
    { stream_type: type.code, connection },
  );
}
