import { expect } from 'chai';
import { applyStoreEffects, type StoreApply } from '../../src/commands/automation-store/apply.js';
import { pruneAutomationStore } from '../../src/commands/automation-store/prune.js';
import { automationRunId } from '../../src/domain/automation-run/events.js';
import type { StoreEffect } from '../../src/domain/automation-store/decide.js';
import { STORE_LIMITS, STORE_TTL_MS } from '../../src/domain/automation-store/limits.js';
import { DomainError } from '../../src/domain/shared/errors.js';
import { newId } from '../../src/domain/shared/ids.js';
import { automationStoreProjection } from '../../src/projections/automation-store/projection.js';
import { loadStoreSnapshot } from '../../src/projections/automation-store/queries.js';
import { useAutomationRecords } from '../support/automation-records.js';
import { assertRebuildEqualsLive } from '../support/projections.js';

// context.store on the real event store and read model (spec 2.14, 8): a live run's writes applied
// once and together, read back until they expire 7 days after the write (on the clock the caller
// passes, as tools and workers do), within the limits, and pruned from the log once expired.

describe('automation store: applying a run, reading the snapshot, expiry, limits, retention', function () {
  this.timeout(60_000);
  const r = useAutomationRecords();
  const T0 = new Date('2026-11-01T10:00:00.000Z');
  const later = (ms: number) => new Date(T0.getTime() + ms);
  const DAY = 24 * 60 * 60 * 1000;

  let automation_id: string;
  let runs = 0;
  beforeEach(() => {
    automation_id = newId();
  });
  /** a new run of the automation (its own event) writing these effects at `at` */
  const run = (effects: StoreEffect[], at = T0, run_id?: string): StoreApply => ({
    automation_id,
    run_id:
      run_id ?? automationRunId({ automation_id, automation_version: 1, event_id: `evt-${++runs}`, listing_id: null }),
    at,
    effects,
  });
  const apply = (input: StoreApply) => applyStoreEffects(r.db, r.ctx, input);
  const snapshot = async (now = T0) => {
    await r.caughtUp();
    return loadStoreSnapshot(r.db, automation_id, now);
  };
  const refusal = async (input: StoreApply): Promise<DomainError> => {
    const err = await apply(input).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err, 'the apply should be refused').to.be.instanceOf(DomainError);
    return err as DomainError;
  };

  it("applies a successful run's writes and deletes; the snapshot gives the values back as the run set them", async () => {
    await apply(run([{ op: 'set', key: 'gone', value: 1 }]));
    const result = await apply(
      run([
        { op: 'set', key: 'lastPrice', value: 15.27 },
        { op: 'set', key: 'history', value: [{ p: 15.27, at: '2026-11-01' }] },
        { op: 'set', key: 'note', value: 'a\u0000b' },
        { op: 'delete', key: 'gone' },
      ]),
    );
    expect(result).to.include({ applied: true, changes: 4 });
    expect(result.position).to.not.equal(null);
    expect(await snapshot()).to.deep.equal({
      lastPrice: 15.27,
      history: [{ p: 15.27, at: '2026-11-01' }],
      note: 'a\u0000b',
    });
  });

  it('a rerun of the same run applies nothing, even when it now writes something else', async () => {
    const first = run([{ op: 'set', key: 'count', value: 1 }]);
    await apply(first);
    const again = await apply({ ...first, effects: [{ op: 'set', key: 'count', value: 2 }] });
    expect(again).to.deep.equal({ applied: false, changes: 0, position: null });
    expect(await snapshot()).to.deep.equal({ count: 1 });
    // two runners racing on the same run: one applies
    const racing = run([{ op: 'set', key: 'race', value: 1 }]);
    const results = await Promise.all([apply(racing), apply(racing), apply(racing)]);
    expect(results.filter((x) => x.applied)).to.have.length(1);
    expect(await r.store.readStream(`automation_store-${racing.run_id}`)).to.have.length(1);
  });

  it('a value expires 7 days after its write: it reads as missing from then on, before any prune', async () => {
    await apply(run([{ op: 'set', key: 'old', value: 'a' }], T0));
    await apply(run([{ op: 'set', key: 'young', value: 'b' }], later(3 * DAY)));
    expect(await snapshot(later(STORE_TTL_MS - 1))).to.deep.equal({ old: 'a', young: 'b' });
    expect(await snapshot(later(STORE_TTL_MS))).to.deep.equal({ young: 'b' });
    // a new write of the key starts its 7 days again
    await apply(run([{ op: 'set', key: 'old', value: 'c' }], later(6 * DAY)));
    expect(await snapshot(later(12 * DAY))).to.deep.equal({ old: 'c' });
    expect(await snapshot(later(13 * DAY))).to.deep.equal({});
  });

  it('refuses a run over the per-value limit with a detail naming the key, applying none of its writes', async () => {
    const big = run([
      { op: 'set', key: 'fine', value: 1 },
      { op: 'set', key: 'prices', value: Array.from({ length: 4_000 }, (_, i) => i * 1.01) },
    ]);
    const err = await refusal(big);
    expect(err.code).to.equal('invalid');
    expect(err.detail).to.match(
      /^store: the value of key 'prices' is [\d,]+ bytes of JSON, over the limit of 16,384 bytes per value$/,
    );
    expect(await r.store.readStream(`automation_store-${big.run_id}`)).to.deep.equal([]);
    expect(await snapshot()).to.deep.equal({});
  });

  it(`refuses the key beyond ${STORE_LIMITS.keys} per automation; expired values don't count`, async () => {
    const keys = (n: number, from = 0): StoreEffect[] =>
      Array.from({ length: n }, (_, i) => ({ op: 'set', key: `k${from + i}`, value: i }));
    await apply(run(keys(STORE_LIMITS.keys)));
    await r.caughtUp();
    const err = await refusal(run(keys(1, STORE_LIMITS.keys), later(DAY)));
    expect(err.detail).to.match(/would leave 1,001 keys, over the limit of 1,000 keys per automation/);
    // overwriting held keys and deleting to make room are within the limit
    expect(
      (await apply(run([...keys(2), { op: 'delete', key: 'k9' }, ...keys(1, 5000)], later(DAY)))).applied,
    ).to.equal(true);
    await r.caughtUp();
    // once the first run's values expired, the store has room again
    expect((await apply(run(keys(10, 6000), later(STORE_TTL_MS)))).applied).to.equal(true);
    expect(Object.keys(await snapshot(later(STORE_TTL_MS)))).to.have.members([
      'k0',
      'k1',
      'k5000',
      ...keys(10, 6000).map((e) => e.key),
    ]);
  });

  it(`refuses writes that take the automation over ${STORE_LIMITS.totalBytes.toLocaleString('en-US')} bytes`, async () => {
    const value = 'x'.repeat(STORE_LIMITS.valueBytes - 100);
    const fill = Array.from({ length: 64 }, (_, i): StoreEffect => ({ op: 'set', key: `chunk${i}`, value }));
    await apply(run(fill));
    await r.caughtUp();
    const err = await refusal(run([{ op: 'set', key: 'one-more', value }]));
    expect(err.detail).to.match(
      /would leave 1,0\d\d,\d\d\d bytes of keys and values, over the limit of 1,048,576 bytes per automation/,
    );
  });

  it('retention: a write-set leaves the log and the read model once expired; the rest stays, and rebuilding gives the live tables', async () => {
    const early = run([{ op: 'set', key: 'early', value: 1 }], T0);
    const overwritten = run([{ op: 'set', key: 'kept', value: 1 }], T0);
    const recent = run([{ op: 'set', key: 'kept', value: 2 }], later(2 * DAY));
    for (const input of [early, overwritten, recent]) await apply(input);
    await r.caughtUp();
    const pruned = await pruneAutomationStore(r.db, r.store, later(STORE_TTL_MS), 1);
    expect(pruned).to.be.at.least(2);
    for (const gone of [early, overwritten])
      expect(await r.store.readStream(`automation_store-${gone.run_id}`), gone.run_id).to.deep.equal([]);
    expect(await r.store.readStream(`automation_store-${recent.run_id}`)).to.have.length(1);
    expect(await snapshot(later(STORE_TTL_MS))).to.deep.equal({ kept: 2 });
    expect(await pruneAutomationStore(r.db, r.store, later(STORE_TTL_MS))).to.equal(0);
    await assertRebuildEqualsLive(r.db, r.store, automationStoreProjection);
  });
});
