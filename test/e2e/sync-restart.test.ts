import { expect } from 'chai';
import pg from 'pg';
import { createSimulator } from '../../src/marketplace/simulator/index.js';
import { DEMO_ACCOUNT_ID } from '../../src/service.js';
import { eventually, waitForLog, type Spawned } from '../support/processes.js';
import { admin, dropRedisKeys, TEST_DB_NAME, TEST_REDIS_PREFIX, testDatabaseUrl } from '../support/env.js';
import { killIfRunning, startServiceProcess, serviceEnv } from '../support/service.js';

// The demo's first sync, killed (SIGKILL) at several points and started again, the built-in
// simulator with it (so it forgets every report the service had asked for): once restarted the
// last time, the service has the year of orders within a clean sync's time plus 30 s, and the
// orders sold before it first started are those a clean sync has. A clean sync runs first, on a
// database of its own, for both figures.

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;
/** What a restart may cost on top of a clean sync. */
const SLACK_MS = 30_000;

type Line = Record<string, string | number | null>;

describe('the first sync across restarts (npm start, SIGKILL at several points)', function () {
  this.timeout(600_000);
  const sim = createSimulator({ seed: 42 });
  /** every (UTC) day of the year in each marketplace: an orders scope each */
  const scopes = 365 * sim.seller.participations.length;
  const runs: Array<{ database: string; prefix: string; client: pg.Client }> = [];
  const services: Spawned[] = [];

  /** A database and Redis prefix of its own, and the environment of a service using them. */
  async function fresh(name: string) {
    const database = `${TEST_DB_NAME}_e2e_${name}`;
    const prefix = `${TEST_REDIS_PREFIX}-e2e-${name}`;
    await admin((c) => c.query(`create database "${database}"`));
    const client = new pg.Client({ connectionString: testDatabaseUrl(database) });
    await client.connect();
    runs.push({ database, prefix, client });
    const env = serviceEnv(database, prefix);
    const start = async () => {
      const { spawned } = await startServiceProcess(env);
      services.push(spawned);
      return spawned;
    };
    /** One number from the database, or undefined while its tables are not there yet. */
    const count = async (sql: string): Promise<number | undefined> => {
      try {
        return Number((await client.query(sql, [DEMO_ACCOUNT_ID])).rows[0].n);
      } catch {
        return undefined;
      }
    };
    const orderScopes = () =>
      count(`select count(*) as n from rm.observed_scopes where account_id = $1 and dataset = 'orders'`);
    /** Waits until the orders projection holds every day of the year; when that was. */
    const yearHeld = () =>
      eventually(
        async () =>
          ((await count('select count(*) as n from rm.order_scopes where account_id = $1')) ?? 0) >= scopes ||
          undefined,
        'the year of orders',
        300_000,
      ).then(() => Date.now());
    /** The lines of v_sales_lines' table sold between `from` and `to`, in a stable order. */
    const lines = async (from: number, to: number): Promise<Line[]> =>
      (
        await client.query(
          `select amazon_order_id, sku, asin, quantity, price, currency, marketplace_id, sold_at
             from rm.sales_lines where account_id = $1 and sold_at >= $2 and sold_at < $3
             order by amazon_order_id, sku`,
          [DEMO_ACCOUNT_ID, new Date(from), new Date(to)],
        )
      ).rows;
    return { start, count, orderScopes, yearHeld, lines };
  }

  after(async () => {
    for (const s of services) await killIfRunning(s);
    for (const { database, prefix, client } of runs) {
      await client.end();
      await dropRedisKeys(`${prefix}:*`);
      if (!process.env.KEEP_TEST_DB) await admin((c) => c.query(`drop database if exists "${database}" with (force)`));
    }
  });

  it('has the year within a clean sync’s time plus 30 s of the last restart, the same orders as a clean sync', async () => {
    const clean = await fresh('sync_clean');
    const cleanStart = Date.now();
    const cleanService = await clean.start();
    const cleanMs = (await clean.yearHeld()) - cleanStart;
    await killIfRunning(cleanService);

    const restarted = await fresh('sync_restart');
    const firstStart = Date.now();
    const kills: string[] = [];
    const killAt = async (service: Spawned, point: string) => {
      await killIfRunning(service);
      kills.push(`${point} at ${((Date.now() - firstStart) / 1000).toFixed(1)} s`);
    };
    // 1. the seller's listings read, its history syncs starting
    let service = await restarted.start();
    await waitForLog(
      service,
      (r) => r.msg === 'sync done' && r.sync === 'listings' && r.account_id === DEMO_ACCOUNT_ID,
    );
    await killAt(service, 'listings read');
    // 2. the orders reports asked for, not yet read
    service = await restarted.start();
    await eventually(
      async () =>
        ((await restarted.count(
          `select count(*) as n from sync.report_requests where account_id = $1 and request_key like 'orders/%'`,
        )) ?? 0) > 0 || undefined,
      'orders reports to be requested',
      120_000,
    );
    await killAt(service, 'orders reports requested');
    // 3. part of the year of orders recorded
    service = await restarted.start();
    const part = await eventually(
      async () => {
        const n = (await restarted.orderScopes()) ?? 0;
        return n > 0 ? n : undefined;
      },
      'orders to be recorded',
      120_000,
    );
    await killAt(service, `${part} of ${scopes} orders days recorded`);

    const lastStart = Date.now();
    await restarted.start();
    const afterMs = (await restarted.yearHeld()) - lastStart;
    console.log(
      `      clean sync: the year in ${(cleanMs / 1000).toFixed(1)} s; killed: ${kills.join('; ')}; after the last start: ${(afterMs / 1000).toFixed(1)} s`,
    );
    expect(afterMs, 'the year after the last restart (ms)').to.be.at.most(cleanMs + SLACK_MS);

    // the orders sold before either service first started, as each read them (half a day back:
    // an order's confirmation or cancellation may come within the minutes between the two runs)
    const from = Math.floor(firstStart / DAY_MS) * DAY_MS - 364 * DAY_MS;
    const to = cleanStart - 12 * HOUR_MS;
    const expected = await clean.lines(from, to);
    expect(expected.length, 'a clean sync reads the year').to.be.greaterThan(1000);
    expect(await restarted.lines(from, to)).to.deep.equal(expected);
  });
});
