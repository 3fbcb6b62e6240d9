import { expect } from 'chai';
import { clientsFor } from '../support/marketplace.js';
import { eventually, runEntry, waitForLog, type Spawned } from '../support/processes.js';
import { admin, TEST_DB_NAME, testDatabaseUrl } from '../support/env.js';
import { startBench, type Bench } from './dispatch-support.js';
import { adsEntityId } from '../../src/domain/observation/ids.js';

// A worker process killed in the middle of a send, then a new one started: the receipt found
// submitting becomes uncertain and is never sent again; later requests for its target wait until
// reading the target back settles it.

describe('dispatch worker killed mid-send', function () {
  this.timeout(90000);
  let b: Bench;
  const processes: Spawned[] = [];
  // a database of its own: a whole worker process would otherwise also sweep, sync and dispatch
  // everything the suite's other tests left in the shared one
  const database = `${TEST_DB_NAME}_killed`;
  const databaseUrl = testDatabaseUrl(database);

  before(async () => {
    await admin((c) => c.query(`create database "${database}"`));
    b = await startBench({ worker: false, databaseUrl });
  });
  after(async () => {
    for (const p of processes) if (p.child.exitCode === null) p.child.kill('SIGKILL');
    await Promise.all(processes.map((p) => p.exit));
    await b?.close();
    if (!process.env.KEEP_TEST_DB) await admin((c) => c.query(`drop database if exists "${database}" with (force)`));
  });

  const worker = () => {
    const s = runEntry('main.js', ['--role', 'worker'], {
      DATABASE_URL: databaseUrl,
      REDIS_PREFIX: b.prefix,
      SIMULATOR_PORT: new URL(b.baseUrl).port,
      LOG_LEVEL: 'info',
      DISPATCH_SWEEP_MS: '200',
    });
    processes.push(s);
    return s;
  };
  const latency = (ms: number, when: 'before' | 'after' = 'before') =>
    fetch(`${b.baseUrl}/_sim/latency`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ms, when }),
    });
  const requests = async () =>
    (
      (await (
        await fetch(`${b.baseUrl}/_sim/requests?${new URLSearchParams({ method: 'PUT', path: '/sp/adGroups' })}`)
      ).json()) as { requests: unknown[] }
    ).requests.length;

  it('the receipt left submitting is uncertain after the restart, the request was sent once', async () => {
    const profile = b.simulator.seller.profiles.find((p) => p.countryCode === 'US')!;
    const profileId = String(profile.profileId);
    const group = (
      await clientsFor(b.simulator).ads.sp.list(profileId, 'adGroups', { stateFilter: { include: ['ENABLED'] } })
    ).items[0]!;
    const target = { type: 'AdGroup' as const, id: adsEntityId('ad_group', b.account, profileId, group.adGroupId) };
    const provider = { profileId, campaignId: group.campaignId, adGroupId: group.adGroupId };

    await latency(3000);
    const first = await b.admit({ target, provider, action: 'update', payload: { state: 'PAUSED' } });
    const second = await b.admit({ target, provider, action: 'update', payload: { state: 'ENABLED' } });
    await b.caughtUp();
    const dying = worker();
    await b.until(first, ['submitting'], 30000);
    await eventually(async () => ((await requests()) === 1 ? true : undefined), 'the request to reach the marketplace');
    dying.child.kill('SIGKILL');
    await dying.exit;
    await latency(0);
    // reads back fail: nothing can settle the first request, so the later one must stay held
    await b.fault({ route: 'POST /sp/adGroups/list', kind: '5xx', status: 503, times: 1_000_000 });

    const restarted = worker();
    await waitForLog(restarted, (r) => r.msg === 'service started');
    const r = await b.until(first, ['uncertain'], 30000);
    expect(r.error).to.deep.include({ code: 'interrupted' });
    // a few sweeps later: nothing resent, the later request for the target held
    await waitForLog(restarted, (l) => l.msg === 'receipt found submitting with no sender: uncertain, never resent');
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(await requests()).to.equal(1);
    expect((await b.receipt(second)).status).to.equal('queued');
    // the simulator drops a request whose client went away during its latency: applied at most once
    const changes = (await b.adsChanges()).filter((x) => x.id === group.adGroupId);
    expect(changes.length).to.be.at.most(1);
    restarted.child.kill('SIGTERM');
    expect(await restarted.exit).to.equal(0);
  });

  it('killed after the marketplace applied the change: settled accepted by reading it back, then the next request goes; each applied once', async () => {
    await fetch(`${b.baseUrl}/_sim/faults`, { method: 'DELETE' });
    const profileId = String(b.simulator.seller.profiles.find((p) => p.countryCode === 'US')!.profileId);
    const group = (
      await clientsFor(b.simulator).ads.sp.list(profileId, 'adGroups', { stateFilter: { include: ['ENABLED'] } })
    ).items[1]!;
    const target = { type: 'AdGroup' as const, id: adsEntityId('ad_group', b.account, profileId, group.adGroupId) };
    const provider = { profileId, campaignId: group.campaignId, adGroupId: group.adGroupId };
    const bids = async () =>
      (await b.adsChanges())
        .filter((x) => x.id === group.adGroupId)
        .map((x) => (x.after as { defaultBid: number }).defaultBid);
    const sent = await requests();

    // the marketplace makes the change, then answers late: the worker dies waiting for the answer
    await latency(3000, 'after');
    const first = await b.admit({ target, provider, action: 'update', payload: { defaultBid: 0.57 } });
    const second = await b.admit({ target, provider, action: 'update', payload: { defaultBid: 0.58 } });
    await b.caughtUp();
    const dying = worker();
    await eventually(async () => ((await bids()).length === 1 ? true : undefined), 'the change to be applied');
    dying.child.kill('SIGKILL');
    await dying.exit;
    await latency(0);

    const restarted = worker();
    const r = await b.until(first, ['submitted'], 60000);
    expect(r).to.deep.include({ outcome: 'accepted', accepted: true, attempts: 1 });
    expect(r.reconciliation).to.deep.include({
      result: 'accepted',
      cause: 'the target read back shows every requested value',
    });
    expect(r.error).to.deep.include({ code: 'interrupted' });
    expect((await b.until(second, ['submitted'], 30000)).outcome).to.equal('accepted');
    expect(await bids(), 'each request applied once, in order').to.deep.equal([0.57, 0.58]);
    expect(await requests(), 'one PUT each').to.equal(sent + 2);
    restarted.child.kill('SIGTERM');
    expect(await restarted.exit).to.equal(0);
  });
});
