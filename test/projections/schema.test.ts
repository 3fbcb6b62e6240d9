import { expect } from 'chai';
import { readCheckpoints } from '../../src/projections/checkpoints.js';
import { READ_MODEL_SCHEMA } from '../../src/projections/projection.js';
import { migrateProjections } from '../../src/projections/schema.js';
import { openEnv, streamCounts, uniqueName, type TestEnv } from './fixtures.js';

describe('migrateProjections', () => {
  let env: TestEnv;

  before(async () => {
    env = await openEnv();
  });
  after(async () => {
    await env.close();
  });

  it('creates a new projection’s live tables with an empty checkpoint, once', async () => {
    const counts = streamCounts(uniqueName('counts'));
    await migrateProjections(env.db, [counts]);
    await env.db
      .withSchema(READ_MODEL_SCHEMA)
      .table(counts.name)
      .insert({ stream_id: 'kept', events: 1, last_revision: 0 });
    await migrateProjections(env.db, [counts]);

    expect((await readCheckpoints(env.db)).get(counts.name)).to.deep.equal({
      name: counts.name,
      version: 1,
      position: null,
    });
    expect(await env.db.withSchema(READ_MODEL_SCHEMA).table(counts.name).pluck('stream_id')).to.deep.equal(['kept']);
  });

  it('leaves the tables of a projection whose version was bumped to the rebuild', async () => {
    const name = uniqueName('counts');
    await migrateProjections(env.db, [streamCounts(name, 1)]);
    await migrateProjections(env.db, [streamCounts(name, 2)]);
    expect((await readCheckpoints(env.db)).get(name)).to.include({ version: 1 });
    expect(await env.db.schema.withSchema(READ_MODEL_SCHEMA).hasColumn(name, 'last_type')).to.equal(false);
  });

  it('refuses names that cannot make a schema name, and duplicates', async () => {
    for (const projections of [
      [streamCounts('Bad-Name')],
      [streamCounts('x'.repeat(53))],
      [streamCounts('twice'), streamCounts('twice')],
    ]) {
      const err = await migrateProjections(env.db, projections).then(
        () => expect.fail('migrate should refuse'),
        (e: unknown) => e as Error,
      );
      expect(err.message).to.match(/must match|registered twice/);
    }
  });
});
