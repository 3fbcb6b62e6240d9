import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { activateAutomation } from '../../src/commands/automation/activation.js';
import { createAutomation } from '../../src/commands/automation/lifecycle.js';
import { loadAccount } from '../../src/projections/accounts/queries.js';
import { accountsProjection } from '../../src/projections/accounts/projection.js';
import { mutationsProjection } from '../../src/projections/mutations/projection.js';
import { observationsProjection } from '../../src/projections/observations/projection.js';
import { projections } from '../../src/projections/registry.js';
import { LIVE_RUNS_CHECKPOINT } from '../../src/runtime/live/reactor.js';
import { partitionOf } from '../../src/domain/shared/partitions.js';
import { listingsSync } from '../../src/workers/sync/listings.js';
import { admin, dropRedisKeys, TEST_DB_NAME, TEST_REDIS_PREFIX, testDatabaseUrl } from '../support/env.js';
import { SELLING_TOKEN } from '../support/marketplace.js';
import { oneLaneListings, recordOfferChange, REPRICE_ONE_PATCH } from '../support/offer-changes.js';
import { startHarness, type Harness } from '../support/observed.js';
import { eventually } from '../support/processes.js';
import { killIfRunning, serviceEnv, startServiceProcess, type RunningServiceProcess } from '../support/service.js';

// Two worker processes (`--role worker`, as a deployment runs them) share live runs on one
// database: the accounts fall in partitions held as leases, each worker runs the events of its own.
// One is killed with SIGKILL while the simulator's marketplace events stream in: the survivor takes
// its partitions over within 10 s and runs them on from their checkpoints. Counted from the log and
// from each worker's own account of what it ran: every event recorded one run and admitted one
// receipt, none lost, and no event ran in both workers except those the dead one had in hand.

const PARTITIONS = 4;
const RATE = 10;
const AFTER_KILL_MS = 8_000;

type Loose = any;

describe('live runs shared by two worker processes (partition leases)', function () {
  this.timeout(600_000);
  const database = `${TEST_DB_NAME}_leases`;
  const prefix = `${TEST_REDIS_PREFIX}-leases`;
  let h: Harness;
  const workers: RunningServiceProcess[] = [];

  before(async () => {
    await admin((c) => c.query(`create database "${database}"`));
    const mine = [accountsProjection, observationsProjection, mutationsProjection];
    h = await startHarness(
      projections.filter((p) => !mine.includes(p)),
      [],
      Date.now(),
      11,
      testDatabaseUrl(database),
    );
  });
  after(async () => {
    for (const w of workers) await killIfRunning(w.spawned);
    await h?.close();
    await dropRedisKeys(`${prefix}:*`);
    if (!process.env.KEEP_TEST_DB) await admin((c) => c.query(`drop database if exists "${database}" with (force)`));
  });

  /** Who holds which partition now (leases not lapsed). */
  const owners = async (): Promise<Map<number, string>> => {
    const rows: Array<{ partition: number; owner: string }> = await h.db
      .table('reactors.partitions')
      .where({ name: LIVE_RUNS_CHECKPOINT })
      .whereNotNull('owner')
      .where('expires_at', '>', h.db.fn.now())
      .select('partition', 'owner');
    return new Map(rows.map((r) => [r.partition, r.owner]));
  };
  const ownerOf = (w: RunningServiceProcess) =>
    eventually(
      async () => w.spawned.logs.find((r) => r.msg === 'partitions claimed')?.owner as string | undefined,
      'a worker to claim partitions',
    );

  it('each event runs once; the survivor of a kill -9 holds every partition within 10 s and loses nothing', async () => {
    // accounts of the simulator's seller, one in each partition
    const accounts = new Map<number, string>();
    while (accounts.size < PARTITIONS) {
      const id = await h.connect('seller');
      accounts.set(partitionOf(id, PARTITIONS), id);
    }
    const targets: Array<{ account: string; asin: string; marketplace_id: string }> = [];
    for (const account of accounts.values()) {
      await h.run(listingsSync, account, SELLING_TOKEN);
      const view = (await loadAccount(h.db, account))!;
      const call = {
        store: h.store,
        userId: randomUUID(),
        accounts: [view],
        at: new Date(),
        correlationId: randomUUID(),
        simulate: false,
      };
      const automation = await createAutomation(call, {
        account: view,
        stream_type: 'ANY_OFFER_CHANGED',
        title: 'Reprice',
        code: REPRICE_ONE_PATCH,
        operation_dependencies: {},
      });
      await activateAutomation(call, automation);
      // each event reaches one listing, one run
      const rows = await oneLaneListings(h.db, account);
      targets.push(...rows.map((r) => ({ account, ...r })));
    }
    await h.projector.whenCaughtUp();
    expect(targets.length).to.be.greaterThan(PARTITIONS);

    const env = {
      ...serviceEnv(database, prefix),
      SIMULATOR_PORT: new URL(h.simulator.endpoints().sellingApiUrl).port,
      // no demo accounts: the four above are the only ones
      SELLING_REFRESH_TOKEN: '',
      ADS_REFRESH_TOKEN: '',
      VENDOR_SELLING_REFRESH_TOKEN: '',
      VENDOR_ADS_REFRESH_TOKEN: '',
      LIVE_PARTITIONS: String(PARTITIONS),
      // each worker's account of the events it ran ('live event handled')
      LOG_LEVEL: 'debug',
    };
    // the first holds every partition; the second's arrival makes it hand half over
    workers.push(await startServiceProcess(env, ['worker']));
    const first = await ownerOf(workers[0]!);
    await eventually(async () => ((await owners()).size === PARTITIONS ? true : undefined), 'the first to hold all');
    workers.push(await startServiceProcess(env, ['worker']));
    const second = await ownerOf(workers[1]!);
    await eventually(async () => {
      const held = [...(await owners()).values()];
      return held.filter((o) => o === first).length === PARTITIONS / 2 &&
        held.filter((o) => o === second).length === PARTITIONS / 2
        ? true
        : undefined;
    }, 'the two workers to hold half each');
    const before = await owners();

    // the simulator's offer changes, recorded as ingestion records them, spread over the accounts' listings
    const send = async (i: number) => {
      const target = targets[(i * 7) % targets.length]!;
      await recordOfferChange(h.store, target.account, target, randomUUID());
    };
    const handled = (w: RunningServiceProcess) =>
      w.spawned.logs.filter((r) => r.msg === 'live event handled').map((r) => r.event_id as string);
    // a stream at RATE a second, on until AFTER_KILL_MS after the kill; the first worker is killed
    // once both have run events of it (runner start-up on a loaded machine takes seconds)
    let killedAt = 0;
    let sent = 0;
    const appends: Promise<void>[] = [];
    const stream = (async () => {
      const started = Date.now();
      for (; !killedAt || Date.now() - killedAt < AFTER_KILL_MS; sent++) {
        const wait = started + (sent * 1000) / RATE - Date.now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
        appends.push(send(sent));
      }
    })();
    await eventually(
      async () => (handled(workers[0]!).length >= 3 && handled(workers[1]!).length >= 3 ? true : undefined),
      'both workers to run events of the stream',
      180_000,
    );
    workers[0]!.spawned.child.kill('SIGKILL');
    killedAt = Date.now();
    // watched while the stream goes on
    const takenOver = await eventually(async () => {
      const now = await owners();
      return now.size === PARTITIONS && [...now.values()].every((o) => o === second) ? Date.now() : undefined;
    }, 'the survivor to hold every partition');
    await stream;
    await Promise.all(appends);
    expect(takenOver - killedAt, 'ms from the kill until the survivor held every partition').to.be.below(10_000);

    // the log's word: each event's runs and admitted receipts
    const events = new Set<string>();
    const runs = new Map<string, number>();
    const receipts = new Map<string, number>();
    const count = async () => {
      events.clear();
      runs.clear();
      receipts.clear();
      for (const e of await h.allEvents()) {
        const data = e.data as Loose;
        if (e.type === 'MarketplaceEventReceived') events.add(e.id);
        if (e.type === 'AutomationRunRecorded') runs.set(data.run.event_id, (runs.get(data.run.event_id) ?? 0) + 1);
        if (e.type === 'MutationAdmitted' && data.caused_by)
          receipts.set(data.caused_by.event_id, (receipts.get(data.caused_by.event_id) ?? 0) + 1);
      }
      return [...events].every((id) => runs.has(id)) ? true : undefined;
    };
    await eventually(count, 'every event to have its run recorded', 180_000);
    expect(events.size).to.equal(sent);
    const lost = [...events].filter((id) => !runs.has(id));
    const twice = [...runs.values()].filter((n) => n !== 1);
    const doubleAdmissions = [...events].filter((id) => receipts.get(id) !== 1);
    expect({ lost: lost.length, recordedTwice: twice.length, notOneAdmission: doubleAdmissions.length }).to.deep.equal({
      lost: 0,
      recordedTwice: 0,
      notOneAdmission: 0,
    });

    // what each worker ran: the survivor ran nothing twice, and ran again only what the dead one
    // had in hand in its own partitions (finished after its last checkpoint, or in flight)
    const [dead, survivor] = [handled(workers[0]!), handled(workers[1]!)];
    expect(new Set(survivor).size, 'events the survivor ran twice').to.equal(survivor.length);
    const deadPartitions = new Set([...before].filter(([, o]) => o === first).map(([p]) => p));
    const accountOf = new Map<string, string>();
    for (const e of await h.allEvents())
      if (e.type === 'MarketplaceEventReceived') accountOf.set(e.id, (e.data as Loose).account_id);
    const both = dead.filter((id) => survivor.includes(id));
    for (const id of both)
      expect(
        deadPartitions.has(partitionOf(accountOf.get(id)!, PARTITIONS)),
        `${id} ran in both outside the dead one's partitions`,
      ).to.equal(true);
    // every event ran somewhere (the survivor's account covers what the dead one never finished)
    expect(new Set([...dead, ...survivor]).size).to.equal(events.size);
    console.log(
      `      ${events.size} events: the dead worker ran ${dead.length}, the survivor ${survivor.length}, ${both.length} ran again after the handover (admitted once); every partition held ${((takenOver - killedAt) / 1000).toFixed(1)} s after the kill`,
    );
  });
});
