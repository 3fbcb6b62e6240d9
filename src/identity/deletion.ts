import type { Knex } from 'knex';
import { revokeMarketplaceConnections } from '../commands/account/marketplace-connections.js';
import { deleteUser } from '../commands/user/execute.js';
import type { EventStore } from '../eventstore/port.js';
import { eraseIdentity } from './credentials.js';

// Deleting a seller's account (docs/decisions/094-account-deletion-and-export.md): its user closed
// through the user decider (UserDeleted: its API tokens stop working, none can be issued again), the marketplace connections it made disconnected (their
// secrets erased), what other parts keep for the user ended by their hooks, then every personal
// row erased, sessions included.

export interface AccountDeletion {
  db: Knex;
  store: EventStore;
  userId: string;
}

/**
 * What other parts do when an account is deleted, before its personal data goes (the OAuth
 * server's grants, say): they register here (`onAccountDeletion.push`).
 * A hook that throws stops the deletion, which the seller can then try again.
 */
export const onAccountDeletion: ((deletion: AccountDeletion) => Promise<void>)[] = [];

export async function deleteAccount(deletion: AccountDeletion): Promise<void> {
  const { db, store, userId } = deletion;
  const ctx = { store, metadata: { actor: { kind: 'user' as const, id: userId } } };
  // first, so nothing can be issued to the user while the rest is undone; a retry after a failed
  // hook finds it closed already and goes on
  await deleteUser(ctx, userId);
  await revokeMarketplaceConnections({ db, ctx }, userId);
  for (const hook of onAccountDeletion) await hook(deletion);
  await eraseIdentity(db, userId);
}
