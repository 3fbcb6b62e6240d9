import { userDecider } from '../../domain/user/decide.js';
import { generateApiToken, hashToken } from '../../domain/user/token.js';
import { newId } from '../../domain/shared/ids.js';
import type { Scope } from '../../domain/user/scopes.js';
import type { Position } from '../../eventstore/port.js';
import { handleCommand, type CommandContext } from '../shared/handler.js';

// Each returns where its events landed (null when nothing changed), so a caller can wait
// for the read model to include them.
export async function registerUser(ctx: CommandContext, user_id: string, name: string): Promise<Position | null> {
  return (await handleCommand(userDecider, user_id, { type: 'RegisterUser', user_id, name }, ctx)).position;
}

/** Issues a token and returns it in clear, the only time it is ever visible. */
export async function issueApiToken(
  ctx: CommandContext,
  user_id: string,
  label: string,
  scopes: readonly Scope[],
): Promise<{ token_id: string; token: string; position: Position | null }> {
  const token = generateApiToken();
  const token_id = newId();
  const { position } = await handleCommand(
    userDecider,
    user_id,
    { type: 'IssueApiToken', user_id, token_id, token_hash: hashToken(token), label, scopes },
    ctx,
  );
  return { token_id, token, position };
}

export async function revokeApiToken(ctx: CommandContext, user_id: string, token_id: string): Promise<Position | null> {
  return (await handleCommand(userDecider, user_id, { type: 'RevokeApiToken', user_id, token_id }, ctx)).position;
}

/** Closes a deleted account's user: its tokens stop working, nothing is issued to it ever after. */
export async function deleteUser(ctx: CommandContext, user_id: string): Promise<Position | null> {
  return (await handleCommand(userDecider, user_id, { type: 'DeleteUser', user_id }, ctx)).position;
}

/** Grants (or, `operator` false, revokes) the operator role; `by`: who did, as the log keeps it. */
export async function setOperatorRole(
  ctx: CommandContext,
  user_id: string,
  operator: boolean,
  by: string,
): Promise<Position | null> {
  const type = operator ? 'GrantOperatorRole' : 'RevokeOperatorRole';
  return (await handleCommand(userDecider, user_id, { type, user_id, by }, ctx)).position;
}
