import { expect } from 'chai';
import { createDb, type Knex } from '../../src/infra/db.js';
import { maintainTables } from '../../src/projections/maintenance.js';

// The projector role's stand-in for autovacuum: a table loaded in bulk is vacuumed (its visibility
// map set, so index-only scans skip the heap) and gets planner statistics; a maintained table is
// left alone until enough of it changes.

describe('read-model table maintenance', () => {
  const schema = `maint_${Date.now()}`;
  let db: Knex;
  const lastAnalyze = async () =>
    (
      await db.raw('select last_analyze from pg_stat_user_tables where schemaname = ? and relname = ?', [
        schema,
        'lines',
      ])
    ).rows[0]?.last_analyze as Date | null;
  /** Runs a change and makes its counts visible to pg_stat_user_tables at once. */
  const change = async (sql: string, bindings: Knex.Value[] = []) => {
    await db.raw(sql, bindings);
    await db.raw('select pg_stat_force_next_flush()');
    await db.raw('select 1');
  };
  const insert = (from: number, to: number) =>
    change(`insert into "${schema}".lines select n, 'x' from generate_series(?::int, ?::int) n`, [from, to]);
  const estimate = async () =>
    Number(
      (await db.raw('select reltuples from pg_class where oid = ?::regclass', [`${schema}.lines`])).rows[0].reltuples,
    );

  before(async () => {
    // one connection: its own statistics are flushed before each check (pg_stat_force_next_flush)
    db = createDb(process.env.DATABASE_URL!, { min: 1, max: 1 });
    await db.raw(`create schema "${schema}"`);
    await db.raw(`create table "${schema}".lines (id int primary key, v text)`);
    await db.raw(`create table "${schema}".empty (id int primary key)`);
  });
  after(async () => {
    await db.raw(`drop schema "${schema}" cascade`);
    await db.destroy();
  });

  const allVisible = async () =>
    Number(
      (await db.raw('select relallvisible from pg_class where oid = ?::regclass', [`${schema}.lines`])).rows[0]
        .relallvisible,
    );
  const none = { vacuumed: [], analyzed: [] };

  it('vacuums and analyzes a bulk-loaded table, skips empty and fresh ones, and again once enough rows changed', async () => {
    await insert(1, 5000);
    expect(await estimate(), 'no statistics yet').to.be.lessThan(1);
    expect(await allVisible(), 'never vacuumed').to.equal(0);
    expect(await maintainTables(db, schema)).to.deep.equal({ vacuumed: ['lines'], analyzed: ['lines'] });
    expect(await estimate()).to.equal(5000);
    expect(await allVisible(), 'the visibility map is set').to.be.greaterThan(0);
    expect(await lastAnalyze()).to.be.instanceOf(Date);
    expect(await maintainTables(db, schema), 'nothing changed since').to.deep.equal(none);
    await insert(5001, 5400);
    expect(await maintainTables(db, schema), '400 of 5,000 rows is under 50 + 10 %').to.deep.equal(none);
    await insert(5401, 6000);
    expect(await maintainTables(db, schema), '1,000 inserted is under 1,000 + 20 %').to.deep.equal({
      vacuumed: [],
      analyzed: ['lines'],
    });
    expect(await estimate()).to.equal(6000);
    await change(`delete from "${schema}".lines where id <= 1500`);
    expect(await maintainTables(db, schema), '1,500 dead is over 50 + 20 % of 6,000').to.deep.equal({
      vacuumed: ['lines'],
      analyzed: ['lines'],
    });
    expect(await maintainTables(db, schema)).to.deep.equal(none);
  });

  it('a round aborted before it starts maintains no table', async () => {
    await insert(6001, 9000);
    const stopped = new AbortController();
    stopped.abort();
    expect(await maintainTables(db, schema, stopped.signal)).to.deep.equal(none);
    expect(await maintainTables(db, schema), 'still stale').to.deep.equal({ vacuumed: ['lines'], analyzed: ['lines'] });
  });

  it('an abort cancels the statement running (a VACUUM waiting on a lock here) and ends the round', async () => {
    await insert(9001, 12000);
    // as the projector role has it: two connections, one for the statement and one to cancel it
    const maintenance = createDb(process.env.DATABASE_URL!, { min: 0, max: 2 });
    const locker = createDb(process.env.DATABASE_URL!, { min: 0, max: 1 });
    const held = await locker.transaction();
    try {
      await held.raw(`lock table "${schema}".lines in access exclusive mode`);
      const stopping = new AbortController();
      const round = maintainTables(maintenance, schema, stopping.signal);
      // the VACUUM is waiting for the lock
      for (let i = 0; i < 100; i++) {
        const { rows } = await db.raw(
          `select count(*)::int as n from pg_stat_activity where wait_event_type = 'Lock' and query like ?`,
          [`vacuum%"${schema}"%`],
        );
        if (rows[0].n > 0) break;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      const started = Date.now();
      stopping.abort();
      expect(await round).to.deep.equal(none);
      expect(Date.now() - started, 'cancelled, not waited out').to.be.lessThan(2000);
    } finally {
      await held.rollback();
      await Promise.all([maintenance.destroy(), locker.destroy()]);
    }
    expect(await maintainTables(db, schema), 'still due').to.deep.equal({ vacuumed: ['lines'], analyzed: ['lines'] });
  });
});
