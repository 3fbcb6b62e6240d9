import type { Scope } from './scopes.js';
import { DomainError } from '../shared/errors.js';
import type { Decider } from '../shared/decider.js';
import { userEventSchemas, type UserEvent } from './events.js';
import { evolve, initialState, type UserState } from './state.js';

export type UserCommand =
  | { type: 'RegisterUser'; user_id: string; name: string }
  | {
      type: 'IssueApiToken';
      user_id: string;
      token_id: string;
      token_hash: string;
      label: string;
      scopes: readonly Scope[];
    }
  | { type: 'RevokeApiToken'; user_id: string; token_id: string }
  | { type: 'DeleteUser'; user_id: string }
  | { type: 'GrantOperatorRole'; user_id: string; by: string }
  | { type: 'RevokeOperatorRole'; user_id: string; by: string };

/** A deleted user is closed: what would make it act again is refused, saying so. */
const refuseDeleted = (state: UserState, user_id: string, what: string): void => {
  if (state.deleted) throw new DomainError('invalid', `user ${user_id}: the account was deleted; ${what}`);
};

export function decide(command: UserCommand, state: UserState): UserEvent[] {
  switch (command.type) {
    case 'RegisterUser':
      refuseDeleted(state, command.user_id, 'it cannot be registered again');
      if (state.registered) {
        if (state.name === command.name) return [];
        throw new DomainError('conflict', `user ${command.user_id} is already registered as "${state.name}"`);
      }
      if (!command.name.trim()) throw new DomainError('invalid', 'name: must not be empty');
      return [{ type: 'UserRegistered', data: { user_id: command.user_id, name: command.name } }];
    case 'IssueApiToken':
      if (!state.registered) throw new DomainError('invalid', `user ${command.user_id}: no such user`);
      refuseDeleted(state, command.user_id, 'it cannot be given tokens');
      if (state.tokens.has(command.token_id)) return [];
      return [
        {
          type: 'ApiTokenIssued',
          data: {
            user_id: command.user_id,
            token_id: command.token_id,
            token_hash: command.token_hash,
            label: command.label,
            scopes: [...command.scopes],
          },
        },
      ];
    case 'RevokeApiToken': {
      const token = state.tokens.get(command.token_id);
      if (!token)
        throw new DomainError('invalid', `token ${command.token_id}: no such token for user ${command.user_id}`);
      if (token.revoked) return [];
      return [{ type: 'ApiTokenRevoked', data: { user_id: command.user_id, token_id: command.token_id } }];
    }
    case 'DeleteUser':
      if (!state.registered) throw new DomainError('invalid', `user ${command.user_id}: no such user`);
      return state.deleted ? [] : [{ type: 'UserDeleted', data: { user_id: command.user_id } }];
    case 'GrantOperatorRole':
      if (!state.registered) throw new DomainError('invalid', `user ${command.user_id}: no such user`);
      refuseDeleted(state, command.user_id, 'it cannot be granted the operator role');
      if (state.operator) return [];
      return [{ type: 'OperatorRoleGranted', data: { user_id: command.user_id, by: command.by } }];
    case 'RevokeOperatorRole':
      if (!state.operator) return [];
      return [{ type: 'OperatorRoleRevoked', data: { user_id: command.user_id, by: command.by } }];
  }
}

export const userDecider: Decider<UserCommand, UserState, UserEvent> = {
  aggregate: 'user',
  schemas: userEventSchemas,
  initialState,
  evolve,
  decide,
};
