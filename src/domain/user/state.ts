import type { UserEvent } from './events.js';

export interface UserState {
  registered: boolean;
  name: string | null;
  /** token id → revoked? */
  tokens: ReadonlyMap<string, { revoked: boolean; token_hash: string }>;
}

export const initialState = (): UserState => ({ registered: false, name: null, tokens: new Map() });

export function evolve(state: UserState, event: UserEvent): UserState {
  switch (event.type) {
    case 'UserRegistered':
      return { ...state, registered: true, name: event.data.name };
    case 'ApiTokenIssued':
      return {
        ...state,
        tokens: new Map(state.tokens).set(event.data.token_id, { revoked: false, token_hash: event.data.token_hash }),
      };
    case 'ApiTokenRevoked': {
      const prior = state.tokens.get(event.data.token_id);
      return prior
        ? { ...state, tokens: new Map(state.tokens).set(event.data.token_id, { ...prior, revoked: true }) }
        : state;
    }
  }
}
