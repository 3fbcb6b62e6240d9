import { userEventSchemas, type UserEvent } from '../../domain/user/events.js';
import { parseEvent } from '../../domain/shared/decider.js';
import type { Projection } from '../projection.js';

// Users (with whether they hold the operator role) and their API tokens (hashes only, with their
// scopes), read by the bearer-token check of /mcp and the console's Settings.
export const authProjection: Projection = {
  name: 'auth',
  // 2: scopes (null: a token issued before scopes existed, holding every scope); 3: deleted users;
  // 4: the operator role
  version: 4,
  handles: [
    'UserRegistered',
    'ApiTokenIssued',
    'ApiTokenRevoked',
    'UserDeleted',
    'OperatorRoleGranted',
    'OperatorRoleRevoked',
  ],
  tables: ['users', 'api_tokens'],
  async createTables(db, schema) {
    await db.schema.withSchema(schema).createTable('users', (t) => {
      t.uuid('user_id').primary();
      t.text('name').notNullable();
      t.timestamp('created_at', { useTz: true }).notNullable();
      t.timestamp('deleted_at', { useTz: true });
      t.boolean('operator').notNullable().defaultTo(false);
    });
    await db.schema.withSchema(schema).createTable('api_tokens', (t) => {
      t.uuid('token_id').primary();
      t.uuid('user_id').notNullable().index();
      t.text('token_hash').notNullable().unique();
      t.text('label').notNullable();
      t.specificType('scopes', 'text[]');
      t.timestamp('created_at', { useTz: true }).notNullable();
      t.timestamp('revoked_at', { useTz: true });
    });
  },
  async apply(trx, recorded, schema) {
    const event = parseEvent<UserEvent>(userEventSchemas, recorded);
    const at = recorded.createdAt;
    switch (event.type) {
      case 'UserRegistered':
        await trx
          .withSchema(schema)
          .table('users')
          .insert({ user_id: event.data.user_id, name: event.data.name, created_at: at })
          .onConflict('user_id')
          .ignore();
        return;
      case 'ApiTokenIssued': {
        const { token_id, user_id, token_hash, label, scopes } = event.data;
        await trx
          .withSchema(schema)
          .table('api_tokens')
          .insert({ token_id, user_id, token_hash, label, scopes: scopes ?? null, created_at: at })
          .onConflict('token_id')
          .ignore();
        return;
      }
      case 'ApiTokenRevoked':
        await trx
          .withSchema(schema)
          .table('api_tokens')
          .where({ token_id: event.data.token_id })
          .whereNull('revoked_at')
          .update({ revoked_at: at });
        return;
      case 'UserDeleted':
        // marked, not removed, so that applying the log again cannot bring the user or a token back
        await trx
          .withSchema(schema)
          .table('users')
          .where({ user_id: event.data.user_id })
          .whereNull('deleted_at')
          .update({ deleted_at: at, operator: false });
        await trx
          .withSchema(schema)
          .table('api_tokens')
          .where({ user_id: event.data.user_id })
          .whereNull('revoked_at')
          .update({ revoked_at: at });
        return;
      case 'OperatorRoleGranted':
      case 'OperatorRoleRevoked':
        // a deleted user's role ended with it, whatever is applied again
        await trx
          .withSchema(schema)
          .table('users')
          .where({ user_id: event.data.user_id })
          .whereNull('deleted_at')
          .update({ operator: event.type === 'OperatorRoleGranted' });
        return;
    }
  },
};
