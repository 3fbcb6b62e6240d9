import { expect } from 'chai';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SELECTABLE_STREAM_TYPES } from '../../src/domain/stream/types.js';
import { call } from '../support/mcp.js';
import { freePort, runEntry, type Spawned } from '../support/processes.js';
import { admin, dropRedisKeys, TEST_DB_NAME, TEST_REDIS_PREFIX, testDatabaseUrl } from '../support/env.js';
import { connectMcp, killIfRunning } from '../support/service.js';

// A clean start as `npm start` makes it (every role, the built-in simulator, a new database and
// Redis prefix): from the first moment /demo/mcp answers, the canned-sample dry run of every
// event type runs on the demo seller, without waiting for anything to sync.
describe('the demo at its first answer (npm start, clean start)', function () {
  this.timeout(120_000);
  let service: Spawned;
  let client: Client;
  const database = `${TEST_DB_NAME}_e2e_first_answer`;
  const prefix = `${TEST_REDIS_PREFIX}-e2e-first-answer`;

  before(async () => {
    await admin((c) => c.query(`create database "${database}"`));
    const port = await freePort();
    service = runEntry('main.js', [], {
      DATABASE_URL: testDatabaseUrl(database),
      REDIS_PREFIX: prefix,
      PORT: String(port),
      SIMULATOR_PORT: '0',
      LOG_LEVEL: 'info',
    });
    // knocks until /demo/mcp answers at all: the first answer is the one under test
    const deadline = Date.now() + 90_000;
    for (;;) {
      if (service.child.exitCode !== null) throw new Error(`the service exited: ${service.stderr()}`);
      try {
        client = await connectMcp(`http://127.0.0.1:${port}/demo/mcp`);
        break;
      } catch (err) {
        if (Date.now() > deadline) throw err;
        await new Promise((r) => setTimeout(r, 20));
      }
    }
  });

  after(async () => {
    await client?.close();
    await killIfRunning(service);
    await dropRedisKeys(`${prefix}:*`);
    if (!process.env.KEEP_TEST_DB) await admin((c) => c.query(`drop database if exists "${database}" with (force)`));
  });

  it('runs the canned sample of every event type with a context (report contexts aside, as at any time)', async () => {
    const code = 'function handle(event, context) { console.log(Object.keys(context).sort().join(",")); }';
    const answers: Record<string, string> = {};
    for (const type of SELECTABLE_STREAM_TYPES) {
      const res = await call(client, 'run_automation', { code, stream_type: type.code });
      if (type.scope === 'Report') {
        // a Report context is built from the report request an event completes: the sample names none
        expect(res.structuredContent, type.code).to.include({ code: 'event_not_replayable' });
        expect(res.structuredContent.detail).to.contain('request_report first');
        continue;
      }
      answers[type.code] = res.isError ? `refused: ${JSON.stringify(res.structuredContent)}` : 'ran';
      if (res.isError) continue;
      const keys = String(res.structuredContent.logs[0]?.message);
      if (type.scope === 'Listing') expect(keys.split(','), type.code).to.include('listing');
    }
    const expected = Object.fromEntries(Object.keys(answers).map((c) => [c, 'ran']));
    expect(answers).to.deep.equal(expected);
  });
});
