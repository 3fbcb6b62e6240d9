import type { UserEvent } from './events.js';

export interface UserState {
  registered: boolean;
  name: string | null;
  /** the account was deleted: nothing may make the user act again */
  deleted: boolean;
  /** may switch the operator's pauses on the console (cleared when the user is deleted) */
  operator: boolean;
  /** token id → revoked? (all of them once the user is deleted) */
  tokens: ReadonlyMap<string, { revoked: boolean; token_hash: string }>;
}

export const initialState = (): UserState => ({
  registered: false,
  name: null,
  deleted: false,
  operator: false,
  tokens: new Map(),
});

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
    case 'UserDeleted':
      // a deleted user's tokens all stop working with it, and its role ends
      return {
        ...state,
        deleted: true,
        operator: false,
        tokens: new Map([...state.tokens].map(([id, token]) => [id, { ...token, revoked: true }])),
      };
    case 'OperatorRoleGranted':
      return { ...state, operator: true };
    case 'OperatorRoleRevoked':
      return { ...state, operator: false };
  }
}
