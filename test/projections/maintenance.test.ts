import { expect } from 'chai';
import { createDb, type Knex } from '../../src/infra/db.js';
import { analyzeStaleTables } from '../../src/projections/maintenance.js';

// The projector role's stand-in for autovacuum's analyze: a table loaded in bulk gets planner
// statistics; an analyzed table is left alone until enough of it changes.

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
  const insert = async (from: number, to: number) => {
    await db.raw(`insert into "${schema}".lines select n, 'x' from generate_series(?::int, ?::int) n`, [from, to]);
    await db.raw('select pg_stat_force_next_flush()');
    await db.raw('select 1');
  };
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

  it('analyzes a bulk-loaded table, skips empty and freshly analyzed ones, and again once enough rows changed', async () => {
    await insert(1, 5000);
    expect(await estimate(), 'no statistics yet').to.be.lessThan(1);
    expect(await analyzeStaleTables(db, schema)).to.deep.equal(['lines']);
    expect(await estimate()).to.equal(5000);
    expect(await lastAnalyze()).to.be.instanceOf(Date);
    expect(await analyzeStaleTables(db, schema), 'nothing changed since').to.deep.equal([]);
    await insert(5001, 5400);
    expect(await analyzeStaleTables(db, schema), '400 of 5,000 rows is under 50 + 10 %').to.deep.equal([]);
    await insert(5401, 6000);
    expect(await analyzeStaleTables(db, schema)).to.deep.equal(['lines']);
    expect(await estimate()).to.equal(6000);
  });

  it('a stopped round analyzes no further table (a drain waits for one table, not the round)', async () => {
    await insert(6001, 9000);
    const stopped = new AbortController();
    stopped.abort();
    expect(await analyzeStaleTables(db, schema, stopped.signal)).to.deep.equal([]);
    expect(await analyzeStaleTables(db, schema), 'still stale').to.deep.equal(['lines']);
  });
});
