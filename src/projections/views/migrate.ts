import type { Knex } from 'knex';
import { quoteIdent } from '../../infra/sql.js';
import { READ_MODEL_SCHEMA } from '../projection.js';
import { relationColumns } from '../tables.js';
import type { Audience, RollupDefinition, ViewDefinition } from './definition.js';
import { ROLLUP_SUM, ROLLUPS_SCHEMA } from './rollup-rewrite.js';

/** The schema query_data sees (its search_path) and the role it runs as. */
export const VIEWS_SCHEMA = 'views';
export const QUERY_ROLE = 'mas_query';
/** query_data's own tables (exports, the call log): outside the views and the read models. */
export const QUERY_DATA_SCHEMA = 'query_data';

export interface ViewsMigration {
  created: string[];
  /** views whose read-model tables or columns don't exist (yet) in this database */
  skipped: Array<{ name: string; reason: string }>;
}

// SQLSTATEs that mean "the read model this view reads isn't there": a projection not
// migrated in this database, or tables still at an older version awaiting rebuild.
const MISSING = new Set(['42P01', '42703', '3F000']);

/**
 * The account filter of a view: rows of the accounts in `app.account_ids` (unset = none),
 * and, for seller and vendor views, only of accounts of that kind (spec 2.15) as the
 * accounts read model records them. The array is computed once per query (an initplan).
 */
export function accountFilter(audience: Audience): string | null {
  if (audience === 'reference') return null;
  const kind = audience === 'seller' || audience === 'vendor' ? ` and a.entity_type = '${audience}'` : '';
  return `d.account_id = any (array(
    select a.account_id from ${READ_MODEL_SCHEMA}.accounts a
    where a.account_id = any (nullif(current_setting('app.account_ids', true), '')::uuid[])${kind}))`;
}

export function createViewSql(def: ViewDefinition<string>): string {
  return barrierView(
    `${VIEWS_SCHEMA}.${quoteIdent(def.name)}`,
    def.audience,
    def.columns.map((c) => c.name),
    def.sql,
  );
}

/** A rollup's view: behind the same wall as its view's (rollup-rewrite.ts). */
export function createRollupSql(def: ViewDefinition<string>, rollup: RollupDefinition): string {
  const nullable = (m: string) => def.columns.find((c) => c.name === m)?.nullable;
  const columns = [
    'account_id',
    ...rollup.dimensions,
    ...rollup.days,
    ...(def.measures ?? []).flatMap((m) => [m, ...(nullable(m) ? [`rollup_${m}_count`] : [])]),
    'rollup_rows',
  ];
  return barrierView(`${ROLLUPS_SCHEMA}.${quoteIdent(rollup.name)}`, def.audience, columns, rollup.sql);
}

function barrierView(name: string, audience: Audience, columns: readonly string[], sql: string): string {
  const filter = accountFilter(audience);
  return `create view ${name} with (security_barrier) as
select ${columns.map((c) => `d.${quoteIdent(c)}`).join(', ')}
from (
${sql}
) as d${filter ? `\nwhere ${filter}` : ''}`;
}

/** Programming mistakes in a definition fail the migration loudly. */
export function assertDefinitions(definitions: readonly ViewDefinition<string>[]): void {
  const seen = new Set<string>();
  for (const def of definitions) {
    if (!/^v_[a-z0-9_]+$/.test(def.name))
      throw new Error(`view name ${JSON.stringify(def.name)} must match v_[a-z0-9_]+`);
    if (seen.has(def.name)) throw new Error(`view ${def.name} is registered twice`);
    seen.add(def.name);
    const first = def.columns[0];
    const hasAccount = def.columns.some((c) => c.name === 'account_id');
    if (def.audience === 'reference' ? hasAccount : first?.name !== 'account_id' || first.type !== 'uuid') {
      throw new Error(
        `view ${def.name}: ${def.audience === 'reference' ? 'a reference view has no account_id' : 'the first column must be account_id uuid'}`,
      );
    }
    if (def.dateColumn !== null && !def.columns.some((c) => c.name === def.dateColumn))
      throw new Error(`view ${def.name}: date column ${def.dateColumn} is not one of its columns`);
  }
}

/**
 * Creates the query role, the views schema with every view (dropped and created afresh, so
 * a changed definition replaces the old one; views no longer registered are dropped) and
 * query_data's tables. Runs inside the migration's transaction; repeatable.
 */
export async function migrateViews(
  db: Knex.Transaction,
  definitions: readonly ViewDefinition<string>[],
): Promise<ViewsMigration> {
  assertDefinitions(definitions);
  await ensureQueryRole(db);
  await revokeRiskyFunctions(db);
  await db.raw(`create schema if not exists ${VIEWS_SCHEMA}`);
  await db.raw(`revoke all on schema ${VIEWS_SCHEMA} from public`);
  await db.raw(`grant usage on schema ${VIEWS_SCHEMA} to ${QUERY_ROLE}`);
  await migrateQueryDataTables(db);

  // rollups are dropped first: a view may be recreated over tables a rollup reads too
  await db.raw(`drop schema if exists ${ROLLUPS_SCHEMA} cascade`);
  await db.raw(`create schema ${ROLLUPS_SCHEMA}`);
  await db.raw(`grant usage on schema ${ROLLUPS_SCHEMA} to ${QUERY_ROLE}`);
  // int8pl is strict: nulls are skipped and a group of nulls sums to null, as sum's
  await db.raw(
    `create aggregate ${ROLLUP_SUM}(bigint) (sfunc = int8pl, stype = bigint, combinefunc = int8pl, parallel = safe)`,
  );
  await db.raw(`grant execute on function ${ROLLUP_SUM}(bigint) to ${QUERY_ROLE}`);
  const existing: string[] = (
    await db.raw(`select c.relname from pg_class c where c.relnamespace = ?::regnamespace and c.relkind = 'v'`, [
      VIEWS_SCHEMA,
    ])
  ).rows.map((r: { relname: string }) => r.relname);
  const result: ViewsMigration = { created: [], skipped: [] };
  for (const name of existing) {
    if (!definitions.some((d) => d.name === name)) await db.raw(`drop view ${VIEWS_SCHEMA}.${quoteIdent(name)}`);
  }
  const attempt = async (name: string, create: (sp: Knex.Transaction) => Promise<void>) => {
    try {
      // a savepoint: a view whose tables are missing leaves the rest of the migration intact
      await db.transaction(create);
      result.created.push(name);
    } catch (err) {
      const code = (err as { code?: string }).code;
      if (!code || !MISSING.has(code)) throw err;
      result.skipped.push({ name, reason: (err as Error).message });
    }
  };
  for (const def of definitions) {
    await attempt(def.name, async (sp) => {
      await sp.raw(`drop view if exists ${VIEWS_SCHEMA}.${quoteIdent(def.name)}`);
      await sp.raw(createViewSql(def).replace(/\?/g, '\\?'));
      await assertColumns(sp, def);
      await sp.raw(`grant select on ${VIEWS_SCHEMA}.${quoteIdent(def.name)} to ${QUERY_ROLE}`);
    });
    for (const rollup of def.rollups ?? []) {
      await attempt(`${ROLLUPS_SCHEMA}.${rollup.name}`, async (sp) => {
        await sp.raw(createRollupSql(def, rollup).replace(/\?/g, '\\?'));
        await assertRollupColumns(sp, def, rollup);
        await sp.raw(`grant select on ${ROLLUPS_SCHEMA}.${quoteIdent(rollup.name)} to ${QUERY_ROLE}`);
      });
    }
  }
  return result;
}

/** A rollup's dimensions and days have the view's types, its counts are integers: the rewrite relies on it. */
async function assertRollupColumns(db: Knex.Transaction, def: ViewDefinition<string>, rollup: RollupDefinition) {
  const rows = await relationColumns(db, `${ROLLUPS_SCHEMA}.${quoteIdent(rollup.name)}`);
  const declared = async (type: string) =>
    (await db.raw(`select format_type(to_regtype(?), null) as t`, [type])).rows[0].t as string;
  for (const r of rows) {
    const column = def.columns.find((c) => c.name === r.name);
    const expected =
      r.name.startsWith('rollup_') || def.measures?.includes(r.name)
        ? ['integer', 'bigint']
        : [await declared(column?.type ?? 'missing')];
    if (!expected.includes(r.type))
      throw new Error(`rollup ${rollup.name}: column ${r.name} is ${r.type}, expected ${expected.join(' or ')}`);
  }
}

/** The view's real columns must be the definition's, in order, with the declared types. */
async function assertColumns(db: Knex.Transaction, def: ViewDefinition<string>): Promise<void> {
  const { rows }: { rows: Array<{ name: string; type: string; declared: string | null }> } = await db.raw(
    `select a.attname as name, format_type(a.atttypid, null) as type, format_type(to_regtype(d.type), null) as declared
     from pg_attribute a
     join unnest(?::text[]) with ordinality d(type, n) on d.n = a.attnum
     where a.attrelid = ?::regclass and a.attnum > 0 and not a.attisdropped
     order by a.attnum`,
    [def.columns.map((c) => c.type), `${VIEWS_SCHEMA}.${quoteIdent(def.name)}`],
  );
  const mismatch = rows.find((r) => r.type !== r.declared);
  if (mismatch)
    throw new Error(
      `view ${def.name}: column ${mismatch.name} is ${mismatch.type}, declared ${def.columns.find((c) => c.name === mismatch.name)?.type}`,
    );
}

/** A role nobody logs in as; the service switches to it with SET LOCAL ROLE. Roles are cluster-wide. */
async function ensureQueryRole(db: Knex.Transaction): Promise<void> {
  await db.raw(`do $$ begin
    create role ${QUERY_ROLE} nologin;
  exception when duplicate_object or unique_violation then null;
  end $$`);
  // a service user that isn't superuser must be a member to SET ROLE to it
  await db.raw(`do $$ begin
    if not (select rolsuper from pg_roles where rolname = current_user) and not pg_has_role(current_user, '${QUERY_ROLE}', 'member') then
      execute format('grant %I to %I', '${QUERY_ROLE}', current_user);
    end if;
  end $$`);
}

/**
 * Functions every role may run by default that query_data must never reach: they change
 * settings (set_config could switch the role back, as the session user allows), sleep,
 * hold locks past the transaction, touch large objects or run SQL text. The parser refuses
 * them first; this takes EXECUTE away from PUBLIC (the service's own user keeps it). Only
 * the functions' owner can do this: under a non-superuser it changes nothing, with a warning.
 */
async function revokeRiskyFunctions(db: Knex.Transaction): Promise<void> {
  const { rows }: { rows: Array<{ fn: string }> } = await db.raw(
    `select p.oid::regprocedure::text as fn from pg_proc p
     where ((p.pronamespace = 'pg_catalog'::regnamespace and (
         p.proname in ('set_config', 'pg_sleep', 'pg_sleep_for', 'pg_sleep_until', 'loread', 'lowrite', 'ts_stat')
         or p.proname like 'pg\\_advisory\\_%' or p.proname like 'pg\\_try\\_advisory\\_%' or p.proname like 'lo\\_%'
         or p.proname ~ '^(query|cursor|table|schema|database)_to_xml'))
       or p.proname like 'dblink%')
       and has_function_privilege('public', p.oid, 'execute')`,
  );
  for (const { fn } of rows) {
    await db.raw(`revoke execute on function ${fn} from public`);
    await db.raw(`grant execute on function ${fn} to current_user`);
  }
}

async function migrateQueryDataTables(db: Knex.Transaction): Promise<void> {
  await db.raw(`create schema if not exists ${QUERY_DATA_SCHEMA}`);
  // An export is found by the sha256 of its random id: the id itself is the demo's credential.
  await db.raw(`create table if not exists ${QUERY_DATA_SCHEMA}.exports (
    id_hash text primary key,
    user_id uuid not null,
    endpoint text not null,
    columns jsonb not null,
    row_count integer not null,
    body bytea not null,
    created_at timestamptz not null default now(),
    expires_at timestamptz not null
  )`);
  await db.raw(`create index if not exists exports_expires_at on ${QUERY_DATA_SCHEMA}.exports (expires_at)`);
  // One row per query_data call, kept for the throttle window (a sliding-window log).
  await db.raw(`create table if not exists ${QUERY_DATA_SCHEMA}.calls (
    user_id uuid not null,
    at timestamptz not null
  )`);
  await db.raw(`create index if not exists calls_user_at on ${QUERY_DATA_SCHEMA}.calls (user_id, at)`);
  // Other per-user limits (automation activations) count their calls here too, by kind (mcp/throttle.ts).
  await db.raw(
    `alter table ${QUERY_DATA_SCHEMA}.calls add column if not exists kind text not null default 'query_data'`,
  );
  // The demo's visitors count apart, by address (mcp/throttle.ts); '' everywhere else.
  await db.raw(`alter table ${QUERY_DATA_SCHEMA}.calls add column if not exists caller text not null default ''`);
  await db.raw(`drop index if exists ${QUERY_DATA_SCHEMA}.calls_user_kind_at`);
  await db.raw(
    `create index if not exists calls_user_caller_kind_at on ${QUERY_DATA_SCHEMA}.calls (user_id, caller, kind, at)`,
  );
  // A call slot in one round trip (mcp/throttle.ts): under the caller's lock, trims the window,
  // counts it, and records the call or answers the seconds until its oldest call leaves it. Each
  // statement of a volatile function reads anew, so the count sees calls committed while it waited.
  // Its commit does not wait for the disk: a crash may forget the last calls, which only lets the
  // caller make them again, and the answer is spared a WAL flush.
  await db.raw(`create or replace function ${QUERY_DATA_SCHEMA}.take_call_slot(
    p_user uuid, p_caller text, p_kind text, p_calls integer, p_window_seconds integer
  ) returns integer language plpgsql volatile as $$
  declare
    taken integer;
    wait integer;
  begin
    perform set_config('synchronous_commit', 'off', true);
    perform pg_advisory_xact_lock(hashtext(p_kind), hashtext(p_user::text || ' ' || p_caller));
    delete from ${QUERY_DATA_SCHEMA}.calls
      where user_id = p_user and caller = p_caller and kind = p_kind
        and at <= now() - make_interval(secs => p_window_seconds);
    select count(*), ceil(extract(epoch from min(at) + make_interval(secs => p_window_seconds) - now()))
      into taken, wait
      from ${QUERY_DATA_SCHEMA}.calls where user_id = p_user and caller = p_caller and kind = p_kind;
    if taken >= p_calls then
      return greatest(1, coalesce(wait, 1));
    end if;
    insert into ${QUERY_DATA_SCHEMA}.calls (user_id, caller, kind, at) values (p_user, p_caller, p_kind, now());
    return null;
  end $$`);
}
