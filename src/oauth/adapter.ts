import type { Adapter, AdapterPayload } from 'oidc-provider';
import { onAccountDeletion } from '../identity/deletion.js';
import type { Knex } from '../infra/db.js';

// oidc-provider's storage (sessions, interactions, grants, codes, tokens, registered clients) in
// PostgreSQL, outside the event log: these are short-lived credentials, removed when they
// expire, are revoked or consumed, never facts to replay (docs/decisions/099-oauth-server.md).

const SCHEMA = 'oauth';
const TABLE = `${SCHEMA}.payloads`;

/** Migration step (src/migrations.ts): the payloads and the keys kept when none are configured. */
export async function migrateOAuth(db: Knex | Knex.Transaction): Promise<void> {
  await db.raw(`create schema if not exists ${SCHEMA}`);
  await db.raw(`create table if not exists ${TABLE} (
    kind text not null,
    id text not null,
    payload jsonb not null,
    grant_id text,
    user_code text,
    uid text,
    expires_at timestamptz,
    consumed_at timestamptz,
    primary key (kind, id))`);
  await db.raw(`create index if not exists payloads_grant_id on ${TABLE} (grant_id) where grant_id is not null`);
  await db.raw(`create index if not exists payloads_uid on ${TABLE} (uid) where uid is not null`);
  await db.raw(`create index if not exists payloads_expires_at on ${TABLE} (expires_at)`);
  await db.raw(`create table if not exists ${SCHEMA}.keys (name text primary key, value jsonb not null)`);
}

interface Row {
  payload: AdapterPayload;
  consumed_at: Date | null;
}

const live = (row: Row | undefined): AdapterPayload | undefined =>
  row && { ...row.payload, ...(row.consumed_at ? { consumed: Math.floor(row.consumed_at.getTime() / 1000) } : {}) };

/** The adapter class oidc-provider instantiates once per model name. */
export function postgresAdapter(db: Knex): new (name: string) => Adapter {
  return class PostgresAdapter implements Adapter {
    constructor(private readonly kind: string) {}

    private rows() {
      return db(TABLE)
        .where({ kind: this.kind })
        .where((q) => q.whereNull('expires_at').orWhere('expires_at', '>', db.fn.now()));
    }

    async upsert(id: string, payload: AdapterPayload, expiresIn: number): Promise<void> {
      await db(TABLE)
        .insert({
          kind: this.kind,
          id,
          payload: JSON.stringify(payload),
          grant_id: payload.grantId ?? null,
          user_code: payload.userCode ?? null,
          uid: payload.uid ?? null,
          expires_at: expiresIn ? db.raw(`now() + make_interval(secs => ?)`, [expiresIn]) : null,
        })
        .onConflict(['kind', 'id'])
        .merge();
      // expired rows of any kind go as new ones come (a cheap, indexed sweep)
      await db(TABLE).where('expires_at', '<', db.raw(`now() - interval '1 day'`)).delete();
    }

    async find(id: string): Promise<AdapterPayload | undefined> {
      return live(await this.rows().where({ id }).first<Row | undefined>('payload', 'consumed_at'));
    }

    async findByUserCode(userCode: string): Promise<AdapterPayload | undefined> {
      return live(await this.rows().where({ user_code: userCode }).first<Row | undefined>('payload', 'consumed_at'));
    }

    async findByUid(uid: string): Promise<AdapterPayload | undefined> {
      return live(await this.rows().where({ uid }).first<Row | undefined>('payload', 'consumed_at'));
    }

    async consume(id: string): Promise<void> {
      await db(TABLE).where({ kind: this.kind, id }).update({ consumed_at: db.fn.now() });
    }

    async destroy(id: string): Promise<void> {
      await db(TABLE).where({ kind: this.kind, id }).delete();
    }

    async revokeByGrantId(grantId: string): Promise<void> {
      // every token and code of the grant, whatever its kind
      await db(TABLE).where({ grant_id: grantId }).delete();
    }
  };
}

/** Every session, grant, code and token of a user: gone when the account is deleted. */
export async function forgetAccount(db: Knex, userId: string): Promise<void> {
  await db(TABLE).whereRaw(`payload->>'accountId' = ?`, [userId]).delete();
}

// registered where the table is defined, so every process that migrates it also cleans it
onAccountDeletion.push(({ db, userId }) => forgetAccount(db, userId));
