import { isDeepStrictEqual } from 'node:util';
import { DomainError } from '../shared/errors.js';
import type { Decider } from '../shared/decider.js';
import { stableId } from '../shared/ids.js';
import {
  accountEventSchemas,
  type AccountEvent,
  type AdvertisingProfile,
  type EntityType,
  type Marketplace,
} from './events.js';
import { evolve, initialState, type AccountState } from './state.js';

export type ObservedProfile = Omit<AdvertisingProfile, 'id'>;

export type AccountCommand =
  | { type: 'RegisterAccount'; account_id: string; user_id: string; name: string; entity_type: EntityType }
  | { type: 'ConnectSelling'; account_id: string; provider_id: string; credentials: string }
  | { type: 'ObserveSellingParticipations'; account_id: string; marketplaces: Marketplace[] }
  | { type: 'ConnectAdvertising'; account_id: string; provider_id: string; credentials: string }
  | { type: 'ObserveAdvertisingProfiles'; account_id: string; profiles: ObservedProfile[] };

function requireRegistered(state: AccountState, accountId: string): void {
  if (!state.registered) throw new DomainError('account_not_found', `account ${accountId} is not registered`);
}

/** A connection is made again when the provider account or the credential set it uses changed. */
const sameConnection = (
  current: { provider_id: string; credentials: string | null } | null,
  command: { provider_id: string; credentials: string },
) => current?.provider_id === command.provider_id && current.credentials === command.credentials;

const byKey =
  <T>(key: (t: T) => string) =>
  (a: T, b: T) =>
    key(a).localeCompare(key(b));

/** A selling or advertising connection, made again only when the provider account or the
 * credential set changed; its id is stable for the account, the kind and the provider's id. */
function connect(
  state: AccountState,
  { account_id, provider_id, credentials }: { account_id: string; provider_id: string; credentials: string },
  kind: 'selling' | 'ads',
): AccountEvent[] {
  requireRegistered(state, account_id);
  if (sameConnection(state[kind], { provider_id, credentials })) return [];
  const data = { account_id, connection_id: stableId(`${kind}:${account_id}`, provider_id), provider_id, credentials };
  return [kind === 'selling' ? { type: 'SellingConnected', data } : { type: 'AdvertisingConnected', data }];
}

/** Observations are recorded only when they differ from what the account already knows. */
export function decide(command: AccountCommand, state: AccountState): AccountEvent[] {
  const account_id = command.account_id;
  switch (command.type) {
    case 'RegisterAccount':
      if (state.registered) {
        if (state.user_id !== command.user_id)
          throw new DomainError('conflict', `account ${account_id} belongs to another user`);
        return [];
      }
      if (!command.name.trim()) throw new DomainError('invalid', 'name: must not be empty');
      return [
        {
          type: 'AccountRegistered',
          data: { account_id, user_id: command.user_id, name: command.name, entity_type: command.entity_type },
        },
      ];
    case 'ConnectSelling':
      return connect(state, command, 'selling');
    case 'ObserveSellingParticipations': {
      requireRegistered(state, account_id);
      if (!state.selling) throw new DomainError('not_connected', `account ${account_id} has no selling connection`);
      const marketplaces = [...command.marketplaces].sort(byKey((m) => m.marketplace_id));
      if (isDeepStrictEqual(marketplaces, state.selling.marketplaces)) return [];
      return [{ type: 'SellingParticipationsObserved', data: { account_id, marketplaces } }];
    }
    case 'ConnectAdvertising':
      return connect(state, command, 'ads');
    case 'ObserveAdvertisingProfiles': {
      requireRegistered(state, account_id);
      if (!state.ads)
        throw new DomainError('owner_not_connected', `account ${account_id} has no advertising connection`);
      const profiles = command.profiles
        .map((p) => ({ id: stableId(`profile:${account_id}`, p.provider_profile_id), ...p }))
        .sort(byKey((p) => p.provider_profile_id));
      if (isDeepStrictEqual(profiles, state.ads.profiles)) return [];
      return [{ type: 'AdvertisingProfilesObserved', data: { account_id, profiles } }];
    }
  }
}

export const accountDecider: Decider<AccountCommand, AccountState, AccountEvent> = {
  aggregate: 'account',
  schemas: accountEventSchemas,
  initialState,
  evolve,
  decide,
};
