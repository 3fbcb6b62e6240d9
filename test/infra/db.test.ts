import { expect } from 'chai';
import type { Knex } from 'knex';
import { createDb, prepared, readTogether } from '../../src/infra/db.js';
import { newId } from '../../src/domain/shared/ids.js';

describe('prepared lookups', () => {
  let db: Knex;
  const table = `prepared_${newId().replaceAll('-', '')}`;

  // one connection, so the statements it prepared can be listed
  before(async () => {
    db = createDb(process.env.DATABASE_URL!, { min: 0, max: 1 });
    await db.schema.createTable(table, (t) => t.integer('a'));
    await db(table).insert([{ a: 1 }, { a: 2 }]);
  });
  after(async () => {
    await db.schema.dropTableIfExists(table);
    await db.destroy();
  });

  const statements = async (): Promise<string[]> =>
    (await db.raw(`select statement from pg_prepared_statements where statement like ?`, [`%${table}%`])).rows.map(
      (r: { statement: string }) => r.statement,
    );

  it('prepares a lookup once per connection, named after its SQL, with the answer knex gives unnamed', async () => {
    const lookup = (a: number) => () => db(table).where({ a }).select('a');
    expect(await prepared(lookup(2))).to.deep.equal(await lookup(2)());
    expect(await prepared(lookup(1))).to.deep.equal([{ a: 1 }]);
    expect(await prepared(() => db(table).where({ a: 1 }).first('a'))).to.deep.equal({ a: 1 });
    expect(await statements()).to.have.members([
      `select "a" from "${table}" where "a" = $1`,
      `select "a" from "${table}" where "a" = $1 limit $2`,
    ]);
  });

  it('prepares again when a rebuild swapped the table for one with other columns', async () => {
    const all = () => db(table).orderBy('a').select('*');
    expect(await prepared(all)).to.deep.equal([{ a: 1 }, { a: 2 }]);
    // as a projection's rebuild swaps its tables: a new table under the old name
    await db.transaction(async (trx) => {
      await trx.schema.createTable(`${table}_new`, (t) => (t.integer('a'), t.text('b')));
      await trx(`${table}_new`).insert({ a: 3, b: 'x' });
      await trx.schema.dropTable(table);
      await trx.schema.renameTable(`${table}_new`, table);
    });
    expect(await prepared(all)).to.deep.equal([{ a: 3, b: 'x' }]);
  });

  it('in a transaction a stale plan fails it with its own error, and the next call outside is prepared anew', async () => {
    const all = (q: Knex) => () => q(table).orderBy('a').select('*');
    expect(await prepared(all(db))).to.have.length(1);
    await db.schema.alterTable(table, (t) => t.text('c'));
    const failed = await db
      .transaction((trx) => prepared(all(trx)))
      .then(
        () => null,
        (err: { code?: string }) => err,
      );
    expect(failed?.code, 'the stale plan, not "current transaction is aborted"').to.equal('0A000');
    expect(await prepared(all(db))).to.deep.equal([{ a: 3, b: 'x', c: null }]);
  });
});

describe('readTogether', () => {
  let db: Knex;
  const table = `together_${newId().replaceAll('-', '')}`;

  before(async () => {
    db = createDb(process.env.DATABASE_URL!, { min: 0, max: 1 });
    await db.schema.createTable(table, (t) => (t.integer('a'), t.text('b'), t.jsonb('j')));
    await db(table).insert([
      { a: 2, b: 'two', j: JSON.stringify({ n: [2] }) },
      { a: 1, b: 'one', j: null },
    ]);
  });
  after(async () => {
    await db.schema.dropTableIfExists(table);
    await db.destroy();
  });

  it('answers each read with its rows in its own order, as one statement; a read of nothing is []', async () => {
    let sent = 0;
    db.on('query', () => sent++);
    const read = () =>
      readTogether(db, () => ({
        ascending: db(table).orderBy('a').select('a', 'b'),
        descending: db(table).orderBy('a', 'desc').select('a', 'j'),
        none: db(table).where({ a: 3 }).select('a'),
      }));
    const answer = await read();
    expect(sent).to.equal(1);
    expect(answer).to.deep.equal({
      ascending: [
        { a: 1, b: 'one' },
        { a: 2, b: 'two' },
      ],
      descending: [
        { a: 2, j: { n: [2] } },
        { a: 1, j: null },
      ],
      none: [],
    });
    expect(await read(), 'the same again, prepared').to.deep.equal(answer);
  });
});
