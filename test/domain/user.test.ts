import { given } from '../support/gwt.js';
import { userDecider } from '../../src/domain/user/decide.js';
import type { UserEvent } from '../../src/domain/user/events.js';

const user_id = '5d1f4e1a-8a43-4f51-9d2a-6f1f1f1f1f1f';
const token_id = '0b7d2c10-1111-4222-8333-944444444444';
const token_hash = 'a'.repeat(64);
const registered: UserEvent = { type: 'UserRegistered', data: { user_id, name: 'Ada' } };
const scopes = ['mcp:read'] as const;
const issued: UserEvent = {
  type: 'ApiTokenIssued',
  data: { user_id, token_id, token_hash, label: 'laptop', scopes: ['mcp:read'] },
};
/** as recorded before tokens had scopes */
const issuedUnscoped: UserEvent = { type: 'ApiTokenIssued', data: { user_id, token_id, token_hash, label: 'laptop' } };
const revoked: UserEvent = { type: 'ApiTokenRevoked', data: { user_id, token_id } };
const deleted: UserEvent = { type: 'UserDeleted', data: { user_id } };
const by = 'grace';
const granted: UserEvent = { type: 'OperatorRoleGranted', data: { user_id, by } };
const revokedRole: UserEvent = { type: 'OperatorRoleRevoked', data: { user_id, by } };

describe('user decider', () => {
  it('registers a new user', () =>
    given(userDecider, []).when({ type: 'RegisterUser', user_id, name: 'Ada' }).then([registered]));
  it('registering again with the same name changes nothing', () =>
    given(userDecider, [registered]).when({ type: 'RegisterUser', user_id, name: 'Ada' }).then([]));
  it('refuses to rename through registration', () =>
    given(userDecider, [registered])
      .when({ type: 'RegisterUser', user_id, name: 'Bob' })
      .thenThrows('conflict', /already registered/));
  it('refuses an empty name', () =>
    given(userDecider, []).when({ type: 'RegisterUser', user_id, name: '  ' }).thenThrows('invalid', /name/));
  it('issues a token to a registered user', () =>
    given(userDecider, [registered])
      .when({ type: 'IssueApiToken', user_id, token_id, token_hash, label: 'laptop', scopes })
      .then([issued]));
  it('refuses a token for an unknown user', () =>
    given(userDecider, [])
      .when({ type: 'IssueApiToken', user_id, token_id, token_hash, label: 'x', scopes })
      .thenThrows('invalid', /no such user/));
  it('issuing the same token id twice is a no-op', () =>
    given(userDecider, [registered, issued])
      .when({ type: 'IssueApiToken', user_id, token_id, token_hash, label: 'laptop', scopes })
      .then([]));
  it('an unscoped token recorded before scopes existed still reads, and is revoked like any other', () =>
    given(userDecider, [registered, issuedUnscoped])
      .when({ type: 'RevokeApiToken', user_id, token_id })
      .then([revoked]));
  it('revokes an issued token', () =>
    given(userDecider, [registered, issued]).when({ type: 'RevokeApiToken', user_id, token_id }).then([revoked]));
  it('revoking twice is a no-op', () =>
    given(userDecider, [registered, issued, revoked]).when({ type: 'RevokeApiToken', user_id, token_id }).then([]));
  it('refuses to revoke an unknown token', () =>
    given(userDecider, [registered])
      .when({ type: 'RevokeApiToken', user_id, token_id })
      .thenThrows('invalid', /no such token/));

  describe('deletion', () => {
    it('deletes a registered user', () =>
      given(userDecider, [registered, issued]).when({ type: 'DeleteUser', user_id }).then([deleted]));
    it('deleting twice is a no-op, so a deletion can be retried', () =>
      given(userDecider, [registered, deleted]).when({ type: 'DeleteUser', user_id }).then([]));
    it('refuses to delete an unknown user', () =>
      given(userDecider, [])
        .when({ type: 'DeleteUser', user_id })
        .thenThrows('invalid', /no such user/));
    it('refuses a token for a deleted user, saying it was deleted', () =>
      given(userDecider, [registered, deleted])
        .when({ type: 'IssueApiToken', user_id, token_id, token_hash, label: 'x', scopes })
        .thenThrows('invalid', /account was deleted; it cannot be given tokens/));
    it('refuses to register a deleted user again', () =>
      given(userDecider, [registered, deleted])
        .when({ type: 'RegisterUser', user_id, name: 'Ada' })
        .thenThrows('invalid', /account was deleted/));
    it("a deleted user's tokens are revoked with it: revoking one records nothing", () =>
      given(userDecider, [registered, issued, deleted]).when({ type: 'RevokeApiToken', user_id, token_id }).then([]));
  });

  describe('the operator role', () => {
    it('grants it to a registered user, saying by whom', () =>
      given(userDecider, [registered]).when({ type: 'GrantOperatorRole', user_id, by }).then([granted]));
    it('granting it twice is a no-op', () =>
      given(userDecider, [registered, granted]).when({ type: 'GrantOperatorRole', user_id, by }).then([]));
    it('refuses it to an unknown user', () =>
      given(userDecider, [])
        .when({ type: 'GrantOperatorRole', user_id, by })
        .thenThrows('invalid', /no such user/));
    it('refuses it to a deleted user, saying it was deleted', () =>
      given(userDecider, [registered, deleted])
        .when({ type: 'GrantOperatorRole', user_id, by })
        .thenThrows('invalid', /account was deleted; it cannot be granted the operator role/));
    it('revokes it from an operator', () =>
      given(userDecider, [registered, granted]).when({ type: 'RevokeOperatorRole', user_id, by }).then([revokedRole]));
    it('revoking it from a user who is no operator is a no-op', () =>
      given(userDecider, [registered]).when({ type: 'RevokeOperatorRole', user_id, by }).then([]));
    it('grants it again once revoked', () =>
      given(userDecider, [registered, granted, revokedRole])
        .when({ type: 'GrantOperatorRole', user_id, by })
        .then([granted]));
    it("a deleted user's role ends with it: revoking it records nothing", () =>
      given(userDecider, [registered, granted, deleted]).when({ type: 'RevokeOperatorRole', user_id, by }).then([]));
  });
});
