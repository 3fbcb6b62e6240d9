import { isDeepStrictEqual } from 'node:util';
import { DomainError } from '../shared/errors.js';
import type { Decider } from '../shared/decider.js';
import { stableId } from '../shared/ids.js';
import {
  accountEventSchemas,
  type AccountEvent,
  type AdvertisingProfile,
  type ConnectionKind,
  type EntityType,
  type InactiveCause,
  type Marketplace,
} from './events.js';
import { evolve, initialState, type AccountState } from './state.js';

export type ObservedProfile = Omit<AdvertisingProfile, 'id'>;

/** `reconnect`: the operator's reconnection, the only thing that makes an inactive connection active again. */
interface Connect {
  account_id: string;
  provider_id: string;
  credentials: string;
  reconnect?: boolean;
}

export type AccountCommand =
  | { type: 'RegisterAccount'; account_id: string; user_id: string; name: string; entity_type: EntityType }
  | ({ type: 'ConnectSelling' } & Connect)
  | { type: 'ObserveSellingParticipations'; account_id: string; marketplaces: Marketplace[] }
  | ({ type: 'ConnectAdvertising' } & Connect)
  | { type: 'ObserveAdvertisingProfiles'; account_id: string; profiles: ObservedProfile[] }
  | {
      type: 'DeactivateConnection';
      account_id: string;
      connection: ConnectionKind;
      cause: InactiveCause;
      detail: string;
      at: string;
    };

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
 * credential set changed, or when the operator reconnects it while inactive; its id is stable
 * for the account, the kind and the provider's id. A routine connection sync never makes an
 * inactive connection active again. */
function connect(
  state: AccountState,
  { account_id, provider_id, credentials, reconnect = false }: Connect,
  kind: ConnectionKind,
): AccountEvent[] {
  requireRegistered(state, account_id);
  const current = state[kind];
  if (current?.inactive ? !reconnect : sameConnection(current, { provider_id, credentials })) return [];
  const data = { account_id, connection_id: stableId(`${kind}:${account_id}`, provider_id), provider_id, credentials };
  return [kind === 'selling' ? { type: 'SellingConnected', data } : { type: 'AdvertisingConnected', data }];
}

/** A connection goes inactive once: deactivating it again keeps the day its raw data is counted from. */
function deactivate(
  state: AccountState,
  command: Extract<AccountCommand, { type: 'DeactivateConnection' }>,
): AccountEvent[] {
  const { account_id, connection, cause, detail, at } = command;
  requireRegistered(state, account_id);
  const current = state[connection];
  if (!current)
    throw connection === 'selling'
      ? new DomainError('not_connected', `account ${account_id} has no selling connection`)
      : new DomainError('owner_not_connected', `account ${account_id} has no advertising connection`);
  if (current.inactive) return [];
  if (Number.isNaN(Date.parse(at))) throw new DomainError('invalid', `at: '${at}' is not a date-time`);
  return [
    {
      type: 'ConnectionDeactivated',
      data: { account_id, connection, connection_id: current.connection_id, cause, detail, at },
    },
  ];
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
    case 'DeactivateConnection':
      return deactivate(state, command);
  }
}

export const accountDecider: Decider<AccountCommand, AccountState, AccountEvent> = {
  aggregate: 'account',
  schemas: accountEventSchemas,
  initialState,
  evolve,
  decide,
};
