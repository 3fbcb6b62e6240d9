import type { AccountEvent, AdvertisingProfile, EntityType, InactiveCause, Marketplace } from './events.js';

/** Since when and why a connection is inactive; null while it is active. */
export type Inactive = { at: string; cause: InactiveCause; detail: string } | null;

interface Connection {
  connection_id: string;
  provider_id: string;
  credentials: string | null;
  inactive: Inactive;
}

export interface AccountState {
  registered: boolean;
  user_id: string | null;
  name: string | null;
  entity_type: EntityType | null;
  selling: (Connection & { marketplaces: Marketplace[] }) | null;
  ads: (Connection & { profiles: AdvertisingProfile[] }) | null;
}

export const initialState = (): AccountState => ({
  registered: false,
  user_id: null,
  name: null,
  entity_type: null,
  selling: null,
  ads: null,
});

/** A connection (re)made: active, whatever it was before. */
const connectionOf = (d: {
  connection_id: string;
  provider_id: string;
  credentials?: string | undefined;
}): Connection => ({
  connection_id: d.connection_id,
  provider_id: d.provider_id,
  credentials: d.credentials ?? null,
  inactive: null,
});

const deactivated = <C extends Connection>(connection: C | null, inactive: Inactive): C | null =>
  connection && { ...connection, inactive };

export function evolve(state: AccountState, event: AccountEvent): AccountState {
  switch (event.type) {
    case 'AccountRegistered':
      return {
        ...state,
        registered: true,
        user_id: event.data.user_id,
        name: event.data.name,
        entity_type: event.data.entity_type,
      };
    case 'SellingConnected':
      return { ...state, selling: { ...connectionOf(event.data), marketplaces: state.selling?.marketplaces ?? [] } };
    case 'SellingParticipationsObserved':
      return state.selling ? { ...state, selling: { ...state.selling, marketplaces: event.data.marketplaces } } : state;
    case 'AdvertisingConnected':
      return { ...state, ads: { ...connectionOf(event.data), profiles: state.ads?.profiles ?? [] } };
    case 'AdvertisingProfilesObserved':
      return state.ads ? { ...state, ads: { ...state.ads, profiles: event.data.profiles } } : state;
    case 'ConnectionDeactivated': {
      const { connection, at, cause, detail } = event.data;
      const inactive = { at, cause, detail };
      return connection === 'selling'
        ? { ...state, selling: deactivated(state.selling, inactive) }
        : { ...state, ads: deactivated(state.ads, inactive) };
    }
  }
}
