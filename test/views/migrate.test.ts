import { expect } from 'chai';
import { createEventStore } from '../../src/eventstore/index.js';
import { accountsProjection } from '../../src/projections/accounts/projection.js';
import { rebuildProjection } from '../../src/projections/rebuild.js';
import type { ViewDefinition } from '../../src/projections/views/definition.js';
import { assertDefinitions, migrateViews } from '../../src/projections/views/migrate.js';
import { ROLLUPS_SCHEMA } from '../../src/projections/views/rollup-rewrite.js';
import { viewDefinitions } from '../../src/projections/views/registry.js';
import { withQueryRole } from '../../src/projections/views/run.js';
import { vMarketplaces } from '../../src/projections/views/v_marketplaces.js';
import { startWorld, TEST_VIEWS, type World } from '../support/query-world.js';

// The views migration: what it creates and grants, the definition checks that fail it
// loudly, views whose tables are missing (skipped), views no longer registered (dropped),
// and views surviving a rebuild of the accounts read model their filter reads.

const accountView = (
  name: string,
  sql: string,
  over: Partial<ViewDefinition<string>> = {},
): ViewDefinition<string> => ({
  name,
  audience: 'seller',
  grain: 'test',
  columns: [
    { name: 'account_id', type: 'uuid', unit: null, nullable: false, description: '' },
    { name: 'x', type: 'integer', unit: null, nullable: false, description: '' },
  ],
  freshness: 'test',
  joins: [],
  warnings: [],
  dateColumn: null,
  sql,
  ...over,
});

describe('views migration', () => {
  let world: World;
  before(async () => {
    world = await startWorld();
  });
  after(async () => world?.close());

  const migrateWith = (defs: ViewDefinition<string>[]) => world.db.transaction((trx) => migrateViews(trx, defs));
  const views = async () =>
    (
      await world.db.raw(
        `select c.relname, c.reloptions from pg_class c where c.relnamespace = 'views'::regnamespace and c.relkind = 'v' order by 1`,
      )
    ).rows;

  it('creates every registered view as a security_barrier view that only mas_query may read', async () => {
    expect(viewDefinitions.map((d) => d.name)).to.include('v_marketplaces');
    const created = await views();
    // registered views over read models not migrated in this test database are absent
    for (const def of [vMarketplaces, ...TEST_VIEWS])
      expect(created).to.deep.include({ relname: def.name, reloptions: ['security_barrier=true'] });
    for (const view of created) expect(view.reloptions).to.deep.equal(['security_barrier=true']);
    const { rows } = await world.db
      .raw(`select has_table_privilege('mas_query', 'views.v_marketplaces', 'select') as mine, has_schema_privilege('public', 'views', 'usage') as everyone,
      has_schema_privilege('mas_query', 'rm', 'usage') as rm, (select rolcanlogin from pg_roles where rolname = 'mas_query') as login`);
    expect(rows[0]).to.deep.equal({ mine: true, everyone: false, rm: false, login: false });
  });

  it('v_marketplaces is reference data: 23 rows for anyone, with no account set', async () => {
    const { rows } = await withQueryRole(world.db, [], (run) =>
      run('select count(*), count(distinct marketplace_id), count(distinct currency) from v_marketplaces'),
    );
    expect(rows).to.deep.equal([['23', '23', '17']]);
  });

  it('refuses definitions that break the rules', () => {
    const bad: Array<[ViewDefinition<string>, RegExp]> = [
      [
        accountView('v_bad', 'select 1', {
          columns: [{ name: 'x', type: 'integer', unit: null, nullable: false, description: '' }],
        }),
        /first column must be account_id/,
      ],
      [
        {
          ...vMarketplaces,
          columns: [{ name: 'account_id', type: 'uuid', unit: null, nullable: false, description: '' }],
        },
        /reference view has no account_id/,
      ],
      [accountView('v_bad', 'select 1', { dateColumn: 'day' }), /date column day/],
      [accountView('Bad Name', 'select 1'), /must match/],
    ];
    for (const [def, message] of bad) expect(() => assertDefinitions([def])).to.throw(message);
    expect(() => assertDefinitions([vMarketplaces, vMarketplaces])).to.throw(/registered twice/);
  });

  it('fails when a column is not of its declared type, and leaves the views as they were', async () => {
    const before = await views();
    const wrong = accountView('v_wrong', `select a.account_id, 'text' as x from rm.accounts a`);
    let error: Error | undefined;
    await migrateWith([...viewDefinitions, wrong]).catch((err: Error) => (error = err));
    expect(error?.message).to.match(/v_wrong: column x is text, declared integer/);
    expect(await views()).to.deep.equal(before);
  });

  it('skips a view whose read-model table does not exist, and drops views no longer registered', async () => {
    const missing = accountView('v_missing', 'select t.account_id, t.x from rm.not_yet_there t');
    const extra = accountView('v_extra', 'select a.account_id, 1 as x from rm.accounts a');
    const registered = (await views()).map((v: { relname: string }) => v.relname);
    const result = await migrateWith([...viewDefinitions, ...TEST_VIEWS, missing, extra]);
    // rollups are made again too where their tables exist (another test file may have made the orders tables)
    const ofViews = result.created.filter((name) => !name.startsWith(`${ROLLUPS_SCHEMA}.`));
    expect(ofViews).to.have.members([...registered, 'v_extra']);
    expect(result.skipped.map((s) => s.name))
      .to.include('v_missing')
      .and.not.include.members(registered);
    expect(result.skipped.find((s) => s.name === 'v_missing')!.reason).to.contain('not_yet_there');
    await migrateWith([...viewDefinitions, ...TEST_VIEWS]);
    expect((await views()).map((v: { relname: string }) => v.relname)).to.have.members(registered);
  });

  it('keeps the views, grants and filter through a rebuild of the accounts read model', async () => {
    const store = createEventStore({ DATABASE_URL: process.env.DATABASE_URL! });
    try {
      await rebuildProjection(world.db, store, accountsProjection);
    } finally {
      await store.close();
    }
    const { rows } = await withQueryRole(world.db, [world.accounts.a1, world.accounts.a2], (run) =>
      run('select account_id, count(*) from v_test_lines group by 1'),
    );
    expect(rows).to.deep.equal([[world.accounts.a1, String(world.rows.a1)]]);
    expect((await views()).map((v: { relname: string }) => v.relname)).to.include.members(
      TEST_VIEWS.map((d) => d.name),
    );
  });
});
