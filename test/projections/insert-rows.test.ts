import { expect } from 'chai';
import { bindableRuns, insertRows } from '../../src/projections/tables.js';
import { openEnv, uniqueName, type TestEnv } from './fixtures.js';

// insertRows sends rows as one JSON parameter and must store what knex's multi-row insert stores.
describe('insertRows', () => {
  let env: TestEnv;
  const schema = uniqueName('ins');

  before(async () => {
    env = await openEnv();
    await env.db.raw('create schema ??', [schema]);
  });
  after(async () => {
    await env.db.raw('drop schema ?? cascade', [schema]);
    await env.close();
  });

  const createTable = async (table: string) =>
    env.db.raw(
      `create table ??.?? (
        id int primary key, amount bigint, price numeric(20, 0), name text, at timestamptz, day date,
        flag boolean, tags text[], data jsonb, raw json, created text not null default 'by default')`,
      [schema, table],
    );
  // the statements that sent rows as JSON, counted while `fn` runs
  const jsonStatements = async (fn: () => Promise<void>): Promise<number> => {
    let n = 0;
    const count = (q: { sql: string }) => void (q.sql.includes('json_to_recordset') && n++);
    env.db.on('query', count);
    try {
      await fn();
    } finally {
      env.db.removeListener('query', count);
    }
    return n;
  };
  const read = (table: string) =>
    env.db.raw(
      `select id, amount::text, price::text, name, at, day::text, flag, tags, data, raw::text, created
       from ??.?? order by id`,
      [schema, table],
    );

  it('stores every type as knex would: json given as text or as an object, arrays, dates, big integers', async () => {
    const rows = () => [
      {
        id: 1,
        amount: 2n ** 60n,
        price: 1234,
        name: 'a "quoted" name, with ünïcode',
        at: new Date('2026-11-27T10:00:00.123Z'),
        day: '2026-11-27',
        flag: true,
        tags: ['x', 'y "z"'],
        data: JSON.stringify({ n: 1, list: [1, 2], nested: { s: 'a' } }),
        raw: JSON.stringify([1, { a: null }]),
      },
      {
        id: 2,
        amount: -5,
        price: null,
        name: null,
        at: null,
        day: null,
        flag: false,
        tags: [],
        data: { n: 2, text: 'an object, not text' },
        raw: null,
      },
    ];
    const [viaJson, viaKnex] = [uniqueName('json'), uniqueName('knex')];
    await createTable(viaJson);
    await createTable(viaKnex);
    expect(await jsonStatements(() => insertRows(env.db, schema, viaJson, rows()))).to.equal(1);
    for (const chunk of bindableRuns(rows()))
      await env.db
        .withSchema(schema)
        .table(viaKnex)
        .insert(
          chunk.map((r) => ({
            ...r,
            amount: String(r.amount),
            data: typeof r.data === 'string' ? r.data : JSON.stringify(r.data),
          })),
        );
    const [json, knex] = [(await read(viaJson)).rows, (await read(viaKnex)).rows];
    expect(json).to.deep.equal(knex);
    expect(json[0].amount).to.equal((2n ** 60n).toString());
    expect(json[1].data).to.deep.equal({ n: 2, text: 'an object, not text' });
    expect(json.map((r: { created: string }) => r.created)).to.deep.equal(['by default', 'by default']);
  });

  it('rows whose columns differ keep knex: a column a row leaves out (or undefined) takes its default', async () => {
    const table = uniqueName('mixed');
    await createTable(table);
    const sent = await jsonStatements(() =>
      insertRows(env.db, schema, table, [
        { id: 1, name: 'one', created: 'given' },
        { id: 2, name: 'two', created: undefined },
        { id: 3, name: 'three' },
      ]),
    );
    expect(sent, 'through knex').to.equal(0);
    const rows = (await read(table)).rows.map((r: { id: number; created: string }) => [r.id, r.created]);
    expect(rows).to.deep.equal([
      [1, 'given'],
      [2, 'by default'],
      [3, 'by default'],
    ]);
  });

  it('inserts more rows than one JSON run holds', async () => {
    const table = uniqueName('many');
    await createTable(table);
    const n = 45_000;
    const sent = await jsonStatements(() =>
      insertRows(
        env.db,
        schema,
        table,
        Array.from({ length: n }, (_, i) => ({ id: i, name: `n${i}`, data: '{}' })),
      ),
    );
    expect(sent, 'runs of 20,000').to.equal(3);
    const { rows } = await env.db.raw('select count(*)::int as n, max(id) as top from ??.??', [schema, table]);
    expect(rows[0]).to.deep.equal({ n, top: n - 1 });
  });

  it('a run with a number JSON has no word for (NaN, Infinity) goes through knex, which stores it as such', async () => {
    const table = uniqueName('nan');
    await env.db.raw('create table ??.?? (id int primary key, ratio numeric, name text)', [schema, table]);
    const sent = await jsonStatements(() =>
      insertRows(env.db, schema, table, [
        { id: 1, ratio: Number.NaN, name: 'a' },
        { id: 2, ratio: 0.5, name: 'b' },
      ]),
    );
    expect(sent).to.equal(0);
    const { rows } = await env.db.raw('select id, ratio::text from ??.?? order by id', [schema, table]);
    expect(rows).to.deep.equal([
      { id: 1, ratio: 'NaN' },
      { id: 2, ratio: '0.5' },
    ]);
  });
});
