import { expect } from 'chai';
import { withQueryRole } from '../../src/projections/views/run.js';
import { startWorld, type World } from '../support/query-world.js';

// The database wall on its own: statements that never pass the parser, run straight in
// query_data's transaction (READ ONLY, as mas_query, with the caller's accounts set), still
// can't read outside the views, call the revoked functions, write, or see other accounts.
// (Statements such as SET ROLE are refused by the parser alone: the session user may
// switch roles, so only a single SELECT ever reaches this transaction.)

describe('query_data database wall', () => {
  let world: World;
  before(async () => {
    world = await startWorld();
  });
  after(async () => world?.close());

  const asA = (sql: string, ids = [world.accounts.a1]) => withQueryRole(world.db, ids, (run) => run(sql));

  async function sqlstate(sql: string): Promise<string> {
    try {
      await asA(sql);
    } catch (err) {
      return (err as { code: string }).code;
    }
    throw new Error(`not refused: ${sql}`);
  }

  const refused: Array<[string, string[]]> = [
    ['select * from rm.accounts', ['42501']],
    ['select * from rm.test_query_lines', ['42501']],
    ['select * from public.events', ['42501']],
    ['select * from pg_catalog.pg_authid', ['42501']],
    ["select set_config('role', 'postgres', true)", ['42501']],
    ["select set_config('app.account_ids', '{00000000-0000-0000-0000-000000000000}', true)", ['42501']],
    ['select pg_sleep(0.01)', ['42501']],
    ['select pg_advisory_lock(1)', ['42501']],
    ["select pg_read_file('/etc/passwd')", ['42501']],
    ["select lo_import('/etc/passwd')", ['42501']],
    ['select lo_creat(-1)', ['42501']],
    ["select query_to_xml('select 1', true, true, '')", ['42501']],
    [
      "insert into views.v_test_lines values ('00000000-0000-0000-0000-000000000000', 1, current_date, 1, 'x')",
      ['25006', '42501', '55000'],
    ],
    ['delete from views.v_test_lines', ['25006', '42501', '55000']],
    ['create temp table stolen (a int)', ['25006', '42501']],
    ['create view views.v_stolen as select 1', ['25006', '42501']],
  ];
  for (const [sql, codes] of refused) {
    it(`refuses ${sql} (SQLSTATE ${codes.join(' or ')})`, async () => {
      expect(await sqlstate(sql)).to.be.oneOf(codes);
    });
  }

  it('runs as mas_query in a read-only transaction, under the timeout', async () => {
    const { rows } = await asA(
      `select current_user, current_setting('transaction_read_only'), current_setting('statement_timeout'), current_setting('search_path')`,
    );
    expect(rows).to.deep.equal([['mas_query', 'on', '3s', 'views']]);
  });

  it("shows only the accounts set, of the view's kind; none when none are set", async () => {
    const { a1, a2, b1 } = world.accounts;
    expect((await asA(`select count(*) from views.v_test_lines where account_id = '${b1}'`)).rows).to.deep.equal([
      ['0'],
    ]);
    expect((await asA(`select count(*) from views.v_test_lines`, [a1, a2, b1])).rows).to.deep.equal([
      [String(world.rows.a1 + world.rows.b1)],
    ]);
    expect((await asA(`select count(*) from views.v_test_vendor_lines`, [a1, a2, b1])).rows).to.deep.equal([
      [String(world.rows.a2)],
    ]);
    expect((await asA(`select count(*) from views.v_test_lines`, [])).rows).to.deep.equal([['0']]);
    // outside query_data (no setting, or the empty one a pooled connection keeps) a view shows nothing either
    expect((await world.db.raw('select count(*)::int as n from views.v_test_lines')).rows).to.deep.equal([{ n: 0 }]);
  });

  it('ends a statement past its timeout', async () => {
    const code = await withQueryRole(
      world.db,
      [world.accounts.a1],
      (run) => run('with recursive r(n) as (select 1 union all select n + 1 from r) select count(*) from r'),
      { timeoutMs: 200 },
    ).then(
      () => 'finished',
      (err: { code: string }) => err.code,
    );
    expect(code).to.equal('57014');
  });

  it('hands connections back as the service role, outside any transaction', async () => {
    await asA('select 1').catch(() => {});
    await sqlstate('select * from rm.accounts');
    const sessions = await Promise.all(
      Array.from({ length: 10 }, () =>
        world.db.raw(`select current_user as role, current_setting('transaction_read_only') as ro`),
      ),
    );
    for (const s of sessions) expect(s.rows[0]).to.deep.equal({ role: 'postgres', ro: 'off' });
  });
});
