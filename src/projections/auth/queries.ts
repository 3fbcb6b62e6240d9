import type { Knex } from 'knex';
import type { Scope } from '../../domain/user/scopes.js';
import { READ_MODEL_SCHEMA } from '../projection.js';

/** `scopes` null: issued before scopes existed (every scope). */
export async function findActiveToken(
  db: Knex,
  tokenHash: string,
): Promise<{ token_id: string; user_id: string; scopes: Scope[] | null } | null> {
  const row = await db
    .withSchema(READ_MODEL_SCHEMA)
    .table('api_tokens')
    .select('token_id', 'user_id', 'scopes')
    .where({ token_hash: tokenHash })
    .whereNull('revoked_at')
    .first();
  return row ?? null;
}

export interface TokenRow {
  token_id: string;
  user_id: string;
  label: string;
  scopes: Scope[] | null;
  created_at: Date;
  revoked_at: Date | null;
}

export async function listTokens(db: Knex, userId: string): Promise<TokenRow[]> {
  return db
    .withSchema(READ_MODEL_SCHEMA)
    .table('api_tokens')
    .select('token_id', 'user_id', 'label', 'scopes', 'created_at', 'revoked_at')
    .where({ user_id: userId })
    .orderBy('created_at');
}

/** A user whose account was not deleted. */
export async function findUser(db: Knex, userId: string): Promise<{ user_id: string; name: string } | null> {
  const row = await db
    .withSchema(READ_MODEL_SCHEMA)
    .table('users')
    .select('user_id', 'name')
    .where({ user_id: userId })
    .whereNull('deleted_at')
    .first();
  return row ?? null;
}

/** Whether the user holds the operator role (a deleted user holds none). */
export async function isOperator(db: Knex, userId: string): Promise<boolean> {
  const row = await db
    .withSchema(READ_MODEL_SCHEMA)
    .table('users')
    .first('user_id')
    .where({ user_id: userId, operator: true })
    .whereNull('deleted_at');
  return row !== undefined;
}

/** The users who hold the operator role, by id. */
export async function listOperators(db: Knex): Promise<string[]> {
  const rows: { user_id: string }[] = await db
    .withSchema(READ_MODEL_SCHEMA)
    .table('users')
    .select('user_id')
    .where({ operator: true })
    .whereNull('deleted_at')
    .orderBy('user_id');
  return rows.map((r) => r.user_id);
}
