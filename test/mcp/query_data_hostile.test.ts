import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { expect } from 'chai';
import type { RefusalRule } from '../../src/projections/views/validate.js';
import { call } from '../support/mcp.js';
import { startWorld, type World } from '../support/query-world.js';

// Hostile SQL through query_data, end to end, as user A (a seller account a1 and a vendor
// account a2). Every case must be refused or harmless: no row of another user's account
// (b1, marked SECRET-B, or the demo's, marked DEMO) may come back, and after the suite
// nothing in the database has changed. {A1}, {A2}, {B1} stand for the account ids.

type Outcome =
  | { refused: RefusalRule | 'engine' } // query_failed, by a parser rule or by the database
  | { harmless: (body: Record<string, any>) => void } // runs, and shows only what A may see
  | { timeout: true };

const refusedBy = (rule: RefusalRule | 'engine'): Outcome => ({ refused: rule });
const harmless = (check: (body: Record<string, any>) => void = () => {}): Outcome => ({ harmless: check });
const rows = (n: number) => harmless((b) => expect(b.row_count).to.equal(n));

const CASES: Array<[string, string, Outcome]> = [
  // writes of every kind
  ['INSERT into a view', `insert into v_test_lines values ('{A1}', 1, current_date, 1, 'x')`, refusedBy('select_only')],
  [
    'INSERT into a base table',
    `insert into rm.test_query_lines values ('{B1}', 1, current_date, 1, 'x')`,
    refusedBy('select_only'),
  ],
  ['UPDATE', `update v_test_lines set amount = 0`, refusedBy('select_only')],
  ['DELETE', `delete from v_test_lines`, refusedBy('select_only')],
  [
    'MERGE',
    `merge into rm.test_query_lines t using (select 1 as x) s on true when matched then delete`,
    refusedBy('select_only'),
  ],
  ['TRUNCATE', `truncate rm.test_query_lines`, refusedBy('select_only')],
  ['DROP VIEW', `drop view v_test_lines`, refusedBy('select_only')],
  ['DROP TABLE cascade', `drop table rm.accounts cascade`, refusedBy('select_only')],
  ['CREATE TABLE', `create table stolen as select * from rm.accounts`, refusedBy('select_only')],
  [
    'CREATE TEMP VIEW shadowing a view',
    `create temp view v_test_lines as select * from rm.test_query_lines`,
    refusedBy('select_only'),
  ],
  ['CREATE FUNCTION', `create function f() returns int language sql as 'select 1'`, refusedBy('select_only')],
  ['ALTER TABLE', `alter table rm.accounts add column x int`, refusedBy('select_only')],
  ['ALTER ROLE', `alter role mas_query superuser`, refusedBy('select_only')],
  ['COPY TO STDOUT', `copy rm.accounts to stdout`, refusedBy('select_only')],
  ['COPY TO PROGRAM', `copy (select 1) to program 'id'`, refusedBy('select_only')],
  ['COPY FROM a file', `copy rm.test_query_lines from '/etc/passwd'`, refusedBy('select_only')],
  ['GRANT', `grant select on rm.accounts to mas_query`, refusedBy('select_only')],
  ['REVOKE', `revoke select on v_test_lines from mas_query`, refusedBy('select_only')],
  ['CALL', `call do_something()`, refusedBy('select_only')],
  ['DO block', `do $$ begin perform pg_sleep(10); end $$`, refusedBy('select_only')],
  ['VACUUM', `vacuum full rm.accounts`, refusedBy('select_only')],
  ['LOCK TABLE', `lock table rm.accounts in access exclusive mode`, refusedBy('select_only')],
  ['NOTIFY', `notify projector`, refusedBy('select_only')],
  ['PREPARE', `prepare p as delete from rm.accounts`, refusedBy('select_only')],
  ['EXPLAIN ANALYZE of a DELETE', `explain analyze delete from rm.test_query_lines`, refusedBy('select_only')],
  ['BEGIN', `begin`, refusedBy('select_only')],
  ['COMMIT', `commit`, refusedBy('select_only')],
  // several statements
  ['two SELECTs', `select 1; select 2`, refusedBy('single_statement')],
  ['a SELECT then a DROP', `select 1; drop view v_test_lines`, refusedBy('single_statement')],
  [
    'COMMIT smuggled after a SELECT',
    `select 1; commit; set role postgres; select * from rm.accounts`,
    refusedBy('single_statement'),
  ],
  [
    'a DROP after a comment-closing trick',
    `select 1 /* x */; /* */ drop view v_test_lines`,
    refusedBy('single_statement'),
  ],
  // base tables
  ['rm.accounts', `select * from rm.accounts`, refusedBy('views_only')],
  ['the test base table', `select * from rm.test_query_lines`, refusedBy('views_only')],
  ['public.events', `select * from public.events`, refusedBy('views_only')],
  ['events unqualified', `select * from events`, refusedBy('views_only')],
  ['accounts unqualified', `select * from accounts`, refusedBy('views_only')],
  ['TABLE rm.accounts', `table rm.accounts`, refusedBy('views_only')],
  ['a base table in a subquery', `select (select count(*) from rm.accounts)`, refusedBy('views_only')],
  ['a base table in a CTE', `with x as (select * from rm.test_query_lines) select * from x`, refusedBy('views_only')],
  [
    'a base table in a join',
    `select * from v_test_lines join rm.test_query_lines using (account_id)`,
    refusedBy('views_only'),
  ],
  // system catalogs
  ['pg_catalog.pg_authid', `select * from pg_catalog.pg_authid`, refusedBy('views_only')],
  ['pg_shadow', `select usename, passwd from pg_shadow`, refusedBy('views_only')],
  ['pg_authid unqualified', `select * from pg_authid`, refusedBy('views_only')],
  ['information_schema.tables', `select * from information_schema.tables`, refusedBy('views_only')],
  ['pg_class', `select relname from pg_class`, refusedBy('views_only')],
  ['pg_settings', `select * from pg_settings`, refusedBy('views_only')],
  ['pg_stat_activity', `select query from pg_stat_activity`, refusedBy('views_only')],
  ['pg_views', `select definition from pg_views`, refusedBy('views_only')],
  [
    'a catalog reached past a later CTE of its name',
    `with a as (select * from pg_class), pg_class as (select 1) select * from a`,
    refusedBy('views_only'),
  ],
  [
    'a catalog beside an inner CTE of its name',
    `select * from pg_class, (with pg_class as (select 1) select * from pg_class) x`,
    refusedBy('views_only'),
  ],
  ['a CTE that shadows a catalog name', `with pg_authid as (select 1 as x) select * from pg_authid`, rows(1)],
  // roles and settings
  ['SET ROLE', `set role postgres`, refusedBy('select_only')],
  ['SET LOCAL ROLE', `set local role postgres`, refusedBy('select_only')],
  ['RESET ROLE', `reset role`, refusedBy('select_only')],
  ['RESET ALL', `reset all`, refusedBy('select_only')],
  ['SET SESSION AUTHORIZATION', `set session authorization postgres`, refusedBy('select_only')],
  ['SET the account setting', `set app.account_ids = '{{B1}}'`, refusedBy('select_only')],
  ['SHOW', `show app.account_ids`, refusedBy('select_only')],
  ['set_config of the role', `select set_config('role', 'postgres', true)`, refusedBy('function_not_allowed')],
  [
    'set_config of the accounts',
    `select set_config('app.account_ids', '{{B1}}', true), * from v_test_lines`,
    refusedBy('function_not_allowed'),
  ],
  [
    'set_config in a WHERE',
    `select * from v_test_lines where set_config('app.account_ids', '{{B1}}', true) is not null`,
    refusedBy('function_not_allowed'),
  ],
  [
    'pg_catalog.set_config',
    `select pg_catalog.set_config('role', 'postgres', true)`,
    refusedBy('function_not_allowed'),
  ],
  ['current_setting', `select current_setting('app.account_ids')`, refusedBy('function_not_allowed')],
  ['current_user', `select current_user`, refusedBy('function_not_allowed')],
  ['session_user', `select session_user`, refusedBy('function_not_allowed')],
  // functions that sleep, read files, lock or reach out
  ['pg_sleep', `select pg_sleep(10)`, refusedBy('function_not_allowed')],
  ['pg_sleep_for in FROM', `select * from pg_sleep_for('10 seconds')`, refusedBy('function_not_allowed')],
  ['pg_sleep per row', `select pg_sleep(1) from v_test_lines`, refusedBy('function_not_allowed')],
  ['pg_read_file', `select pg_read_file('/etc/passwd')`, refusedBy('function_not_allowed')],
  ['pg_read_binary_file', `select pg_read_binary_file('postgresql.conf')`, refusedBy('function_not_allowed')],
  ['pg_ls_dir', `select pg_ls_dir('.')`, refusedBy('function_not_allowed')],
  ['lo_import', `select lo_import('/etc/passwd')`, refusedBy('function_not_allowed')],
  ['lo_get', `select lo_get(1)`, refusedBy('function_not_allowed')],
  ['dblink', `select * from dblink('dbname=postgres', 'select 1') as t(x int)`, refusedBy('function_not_allowed')],
  [
    'query_to_xml running SQL text',
    `select query_to_xml('select * from rm.accounts', true, true, '')`,
    refusedBy('function_not_allowed'),
  ],
  ['pg_advisory_lock', `select pg_advisory_lock(1)`, refusedBy('function_not_allowed')],
  [
    'pg_terminate_backend',
    `select pg_terminate_backend(pid) from (select 1 as pid) x`,
    refusedBy('function_not_allowed'),
  ],
  ['version()', `select version()`, refusedBy('function_not_allowed')],
  ['txid_current', `select txid_current()`, refusedBy('function_not_allowed')],
  ['nextval', `select nextval('events_global_position_seq')`, refusedBy('function_not_allowed')],
  ['a function in another schema', `select public.uuid_generate_v4()`, refusedBy('function_not_allowed')],
  ['a regclass cast', `select 'rm.accounts'::regclass`, refusedBy('type_not_allowed')],
  ['a regproc cast', `select 'pg_sleep'::regproc`, refusedBy('type_not_allowed')],
  ['a schema-qualified operator', `select 1 operator(pg_catalog.+) 1`, refusedBy('syntax_not_allowed')],
  ['XML', `select xmlparse(document '<a/>')`, refusedBy('syntax_not_allowed')],
  ['TABLESAMPLE', `select * from v_test_lines tablesample system (50)`, refusedBy('syntax_not_allowed')],
  ['a parameter', `select * from v_test_lines where account_id = $1`, refusedBy('syntax_not_allowed')],
  // comments and quoting tricks
  ['a DROP inside a block comment', `select 1 as x /* ; drop view v_test_lines; */`, rows(1)],
  ['a DROP after a line comment', `select 1 as x -- ; drop view v_test_lines`, rows(1)],
  ['a DROP inside dollar quotes', `select $$ ; drop view v_test_lines; $$ as x`, rows(1)],
  ['a DROP inside tagged dollar quotes', `select $q$ '; drop view v_test_lines; -- $q$ as x`, rows(1)],
  ['an escaped quote in an E-string', `select E'\\x27; drop view v_test_lines; --' as x`, rows(1)],
  ['nested comments', `select 1 /* outer /* inner */ drop view v_test_lines; */ as x`, rows(1)],
  ['"rm"."accounts" quoted', `select * from "rm"."accounts"`, refusedBy('views_only')],
  [
    '"views"."v_test_lines" quoted',
    `select count(*)::int from "views"."v_test_lines"`,
    harmless((b) => expect(b.rows).to.deep.equal([[1200]])),
  ],
  ['"Views" in another case', `select * from "Views"."v_test_lines"`, refusedBy('views_only')],
  ['"pg_catalog"."pg_authid" quoted', `select * from "pg_catalog"."pg_authid"`, refusedBy('views_only')],
  ['unicode-escaped rm', `select * from U&"\\0072\\006d".accounts`, refusedBy('views_only')],
  ['unicode-escaped pg_sleep', `select U&"\\0070g_sleep"(5)`, refusedBy('function_not_allowed')],
  ['quoted pg_sleep', `select "pg_sleep"(5)`, refusedBy('function_not_allowed')],
  ['a comment inside a function call', `select pg_sleep/**/(5)`, refusedBy('function_not_allowed')],
  [
    'views. spaced',
    `select count(*)::int from views . v_test_lines`,
    harmless((b) => expect(b.rows).to.deep.equal([[1200]])),
  ],
  ['a view in upper case quotes', `select * from "V_TEST_LINES"`, refusedBy('views_only')],
  // forged account ids
  ["another user's account id", `select * from v_test_lines where account_id = '{B1}'`, rows(0)],
  ["the demo's rows by note", `select * from v_test_lines where note in ('DEMO', 'SECRET-B')`, rows(0)],
  ['own vendor account in a seller view', `select * from v_test_lines where account_id = '{A2}'`, rows(0)],
  [
    'every account but mine',
    `select count(*)::int from v_test_lines where account_id <> '{A1}'`,
    harmless((b) => expect(b.rows).to.deep.equal([[0]])),
  ],
  [
    'an OR that is always true',
    `select count(*)::int from v_test_lines where account_id = '{B1}' or true`,
    harmless((b) => expect(b.rows).to.deep.equal([[1200]])),
  ],
  [
    'a forged id through a UNION',
    `select account_id from v_test_lines union select account_id from v_test_lines where account_id = '{B1}'`,
    harmless((b) => expect(b.rows).to.deep.equal([['{A1}']])),
  ],
  [
    'a forged id in a join',
    `select count(*)::int from v_test_lines a join v_test_lines b on b.account_id = '{B1}'`,
    harmless((b) => expect(b.rows).to.deep.equal([[0]])),
  ],
  [
    'a division that errors only on foreign rows',
    `select count(*) from v_test_lines where 1 / (case when note = 'SECRET-B' then 0 else 1 end) = 1`,
    harmless((b) => expect(b.rows).to.deep.equal([[1200]])),
  ],
  // locking, INTO, writable CTEs
  ['FOR UPDATE', `select * from v_test_lines for update`, refusedBy('no_locking')],
  ['FOR SHARE', `select * from v_test_lines for share`, refusedBy('no_locking')],
  ['FOR NO KEY UPDATE NOWAIT', `select * from v_test_lines for no key update nowait`, refusedBy('no_locking')],
  ['FOR KEY SHARE SKIP LOCKED', `select * from v_test_lines for key share skip locked`, refusedBy('no_locking')],
  ['FOR UPDATE in a subquery', `select * from (select * from v_test_lines for update) s`, refusedBy('no_locking')],
  ['FOR UPDATE in a UNION arm', `select 1 union (select n from v_test_lines for update)`, refusedBy('no_locking')],
  ['SELECT INTO', `select * into stolen from v_test_lines`, refusedBy('no_select_into')],
  ['SELECT INTO TEMP', `select * into temp stolen from v_test_lines`, refusedBy('no_select_into')],
  ['a DELETE in a CTE', `with d as (delete from v_test_lines returning *) select * from d`, refusedBy('select_only')],
  [
    'an UPDATE in a CTE',
    `with u as (update rm.test_query_lines set amount = 0 returning 1) select 1`,
    refusedBy('select_only'),
  ],
  [
    'an INSERT in a nested CTE',
    `select * from (with i as (insert into rm.accounts default values returning 1) select 1) s`,
    refusedBy('select_only'),
  ],
  // plain reads that must simply work
  ['VALUES', `values (1), (2)`, rows(2)],
  ['TABLE of a view', `table v_test_lines`, rows(1200)],
  [
    'a view joined to v_marketplaces',
    `select count(*)::int from v_test_lines, v_marketplaces`,
    harmless((b) => expect(b.rows).to.deep.equal([[1200 * 23]])),
  ],
  // runaway queries
  [
    'an endless recursive CTE',
    `with recursive r(n) as (select 1 union all select n + 1 from r) select count(*) from r`,
    { timeout: true },
  ],
  [
    'a huge generate_series cross join',
    `select count(*) from generate_series(1, 100000000) a cross join generate_series(1, 100000000) b`,
    { timeout: true },
  ],
];

describe('query_data hostile SQL', () => {
  let world: World;
  let asA: Client;
  let before_: Record<string, unknown>;
  let passed = 0;

  /** Everything a hostile statement could have changed. */
  const snapshot = async () => {
    const one = async (sql: string) => (await world.db.raw(sql)).rows;
    return {
      lines: await one(
        `select account_id, count(*)::int, sum(amount)::text from rm.test_query_lines group by 1 order by 1`,
      ),
      accounts: await one(`select count(*)::int from rm.accounts`),
      events: await one(`select count(*)::int from public.events`),
      relations: await one(
        `select n.nspname, c.relname, c.relkind from pg_class c join pg_namespace n on n.oid = c.relnamespace where n.nspname not in ('pg_toast') and c.relpersistence <> 't' order by 1, 2`,
      ),
      role: await one(
        `select rolsuper, rolcanlogin, rolcreaterole, rolcreatedb, rolbypassrls from pg_roles where rolname = 'mas_query'`,
      ),
      grants: await one(
        `select has_table_privilege('mas_query', 'rm.accounts', 'select') as accounts, has_function_privilege('mas_query', 'set_config(text,text,boolean)', 'execute') as set_config, has_function_privilege('mas_query', 'pg_sleep(double precision)', 'execute') as sleep`,
      ),
    };
  };

  before(async () => {
    world = await startWorld();
    asA = await world.connect('/mcp', world.tokens.a);
    before_ = await snapshot();
  });
  after(async () => world?.close());

  const fill = (sql: string) =>
    sql
      .replaceAll('{A1}', world.accounts.a1)
      .replaceAll('{A2}', world.accounts.a2)
      .replaceAll('{B1}', world.accounts.b1);
  const unfill = (text: string) => text.replaceAll(world.accounts.a1, '{A1}').replaceAll(world.accounts.a2, '{A2}');

  for (const [name, sql, outcome] of CASES) {
    const kind = 'refused' in outcome ? `refused (${outcome.refused})` : 'timeout' in outcome ? 'timeout' : 'harmless';
    it(`${name}: ${kind}`, async () => {
      const result = await call(asA, 'query_data', { sql: fill(sql) });
      const body = result.structuredContent;
      const text = JSON.stringify(body);
      for (const secret of ['SECRET-B', 'DEMO', world.accounts.b1, world.accounts.d1])
        expect(text, `leaked ${secret}`).to.not.contain(secret);
      if ('refused' in outcome) {
        expect(result.isError, text).to.equal(true);
        expect(body.code, text).to.equal('query_failed');
        if (outcome.refused === 'engine') expect(body.sqlstate, text).to.be.a('string');
        else expect(body.rule, text).to.equal(outcome.refused);
      } else if ('timeout' in outcome) {
        expect(body.code, text).to.equal('timeout');
      } else {
        expect(result.isError, text).to.not.equal(true);
        outcome.harmless(JSON.parse(unfill(text)));
      }
      passed++;
    });
  }

  describe('afterwards', () => {
    it('nothing in the database changed, and pooled connections are back to the service role', async () => {
      expect(await snapshot()).to.deep.equal(before_);
      const sessions = await Promise.all(
        Array.from({ length: 10 }, () =>
          world.db.raw(
            `select current_user as role, coalesce(current_setting('app.account_ids', true), '') as accounts, current_setting('search_path') as path, current_setting('transaction_read_only') as ro`,
          ),
        ),
      );
      for (const s of sessions)
        expect(s.rows[0]).to.deep.equal({ role: 'postgres', accounts: '', path: '"$user", public', ro: 'off' });
      const locks = await world.db.raw(
        `select count(*)::int as n from pg_locks where locktype = 'advisory' and database = (select oid from pg_database where datname = current_database())`,
      );
      expect(locks.rows[0].n).to.equal(0);
    });

    it('counts the cases', () => {
      expect(passed).to.equal(CASES.length);
      console.log(`      hostile SQL: ${CASES.length} cases, all refused or harmless`);
    });
  });
});
