import type { Knex } from 'knex';
import { accountEventSchemas, type AccountEvent } from '../../domain/account/events.js';
import { parseEvent } from '../../domain/shared/decider.js';
import type { Projection } from '../projection.js';

// Accounts with their selling and advertising connections, and advertising profiles.
// Connection `active` is derived at read time (see queries.ts), so the rows hold only
// what was observed, and since when and why a connection is inactive (`inactive`, absent
// while it is active).
export const accountsProjection: Projection = {
  name: 'accounts',
  version: 2,
  handles: [
    'AccountRegistered',
    'SellingConnected',
    'SellingParticipationsObserved',
    'AdvertisingConnected',
    'AdvertisingProfilesObserved',
    'ConnectionDeactivated',
  ],
  tables: ['accounts', 'advertising_profiles'],
  async createTables(db, schema) {
    await db.schema.withSchema(schema).createTable('accounts', (t) => {
      t.uuid('account_id').primary();
      t.uuid('user_id').notNullable().index();
      t.text('name').notNullable();
      t.text('entity_type').notNullable();
      t.jsonb('selling');
      t.jsonb('ads');
      t.timestamp('created_at', { useTz: true }).notNullable();
      t.timestamp('updated_at', { useTz: true }).notNullable();
    });
    await db.schema.withSchema(schema).createTable('advertising_profiles', (t) => {
      t.uuid('profile_id').primary();
      t.uuid('account_id').notNullable().index();
      t.text('provider_profile_id').notNullable();
      t.text('marketplace_id').notNullable();
      t.text('country_code').notNullable();
      t.text('currency_code').notNullable();
      t.text('timezone').notNullable();
      t.text('account_name').notNullable();
      t.jsonb('account_info').notNullable();
    });
  },
  async apply(trx, recorded, schema) {
    const event = parseEvent<AccountEvent>(accountEventSchemas, recorded);
    const at = recorded.createdAt;
    const accounts = () => trx.withSchema(schema).table('accounts');
    switch (event.type) {
      case 'AccountRegistered': {
        const { account_id, user_id, name, entity_type } = event.data;
        await accounts()
          .insert({ account_id, user_id, name, entity_type, created_at: at, updated_at: at })
          .onConflict('account_id')
          .merge(['user_id', 'name', 'entity_type']);
        return;
      }
      case 'SellingConnected':
      case 'AdvertisingConnected': {
        const column = event.type === 'SellingConnected' ? 'selling' : 'ads';
        const { account_id, connection_id, provider_id, credentials = null } = event.data;
        // jsonb || keeps observed marketplaces when a connection is re-made, which makes it
        // active again; `credentials` is the name of the configured credential set the syncs
        // use for this connection
        await accounts()
          .where({ account_id })
          .update({
            [column]: trx.raw(`(coalesce(??, '{}'::jsonb) - 'inactive') || ?::jsonb`, [
              column,
              JSON.stringify({ id: connection_id, provider_id, credentials }),
            ]),
            updated_at: at,
          });
        return;
      }
      case 'SellingParticipationsObserved':
        await accounts()
          .where({ account_id: event.data.account_id })
          .update({
            selling: trx.raw(`selling || ?::jsonb`, [JSON.stringify({ marketplaces: event.data.marketplaces })]),
            updated_at: at,
          });
        return;
      case 'AdvertisingProfilesObserved':
        await replaceProfiles(trx, schema, event.data.account_id, event.data.profiles);
        await accounts().where({ account_id: event.data.account_id }).update({ updated_at: at });
        return;
      case 'ConnectionDeactivated': {
        const { account_id, connection, at: since, cause, detail } = event.data;
        await accounts()
          .where({ account_id })
          .update({
            [connection]: trx.raw(`?? || ?::jsonb`, [
              connection,
              JSON.stringify({ inactive: { since, cause, detail } }),
            ]),
            updated_at: at,
          });
        return;
      }
    }
  },
};

async function replaceProfiles(
  trx: Knex.Transaction,
  schema: string,
  accountId: string,
  profiles: Extract<AccountEvent, { type: 'AdvertisingProfilesObserved' }>['data']['profiles'],
) {
  await trx.withSchema(schema).table('advertising_profiles').where({ account_id: accountId }).delete();
  if (profiles.length === 0) return;
  await trx
    .withSchema(schema)
    .table('advertising_profiles')
    .insert(
      profiles.map((p) => ({
        profile_id: p.id,
        account_id: accountId,
        provider_profile_id: p.provider_profile_id,
        marketplace_id: p.marketplace_id,
        country_code: p.country_code,
        currency_code: p.currency,
        timezone: p.timezone,
        account_name: p.account_name,
        account_info: JSON.stringify({
          id: p.account_id,
          name: p.account_name,
          valid_payment_method: p.valid_payment_method,
        }),
      })),
    );
}
