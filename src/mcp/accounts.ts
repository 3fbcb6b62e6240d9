import { z } from 'zod';
import { DomainError } from '../domain/shared/errors.js';
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
