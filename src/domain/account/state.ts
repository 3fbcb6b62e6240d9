import type { AccountEvent, AdvertisingProfile, EntityType, Marketplace } from './events.js';

export interface AccountState {
  registered: boolean;
  user_id: string | null;
  name: string | null;
  entity_type: EntityType | null;
  selling: {
    connection_id: string;
    provider_id: string;
    credentials: string | null;
    marketplaces: Marketplace[];
  } | null;
  ads: {
    connection_id: string;
    provider_id: string;
    credentials: string | null;
    profiles: AdvertisingProfile[];
  } | null;
}

export const initialState = (): AccountState => ({
  registered: false,
  user_id: null,
  name: null,
  entity_type: null,
  selling: null,
  ads: null,
});

const connectionOf = (d: { connection_id: string; provider_id: string; credentials?: string | undefined }) => ({
  connection_id: d.connection_id,
  provider_id: d.provider_id,
  credentials: d.credentials ?? null,
});

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
  }
}
