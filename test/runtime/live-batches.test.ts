import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { pino } from 'pino';
import { activateAutomation } from '../../src/commands/automation/activation.js';
import type { AutomationCall } from '../../src/commands/automation/context.js';
import { createAutomation } from '../../src/commands/automation/lifecycle.js';
import { marketplaceEventStream } from '../../src/commands/event/record.js';
import { automationRunId } from '../../src/domain/automation-run/events.js';
import { listingId } from '../../src/domain/observation/ids.js';
import { DomainError } from '../../src/domain/shared/errors.js';
import type { Position } from '../../src/eventstore/port.js';
import { loadAccount, type AccountView } from '../../src/projections/accounts/queries.js';
import { automationRunsProjection } from '../../src/projections/automation-runs/projection.js';
import { automationStoreProjection } from '../../src/projections/automation-store/projection.js';
import { loadStoreSnapshot } from '../../src/projections/automation-store/queries.js';
import { automationsProjection } from '../../src/projections/automations/projection.js';
import { webhooksProjection } from '../../src/projections/webhook/projection.js';
import { startLiveReactor, type LiveReactor } from '../../src/runtime/live/reactor.js';
import { createSandbox, type Sandbox } from '../../src/runtime/sandbox/index.js';
import { startAlertsWebhook, type AlertsWebhook } from '../support/alerts-webhook.js';
import { startAutomationWorld, type AutomationWorld } from '../support/automation-world.js';
import { oneLaneListings, recordOfferChange } from '../support/offer-changes.js';
import { until } from '../support/receiver.js';

type Json = Record<string, any>;

// The live reactor's batches (docs/decisions/147-batched-live-runs.md) change nothing a run can
// observe: one sequence of offer changes (three listings, the same listing's events repeated) run
// one event at a time (batchSize 1), and the same sequence on three other listings (each of the
// same marketplace as its twin) run in batches, leave the same runs (actions, values, statuses, store changes,
// posts), receipts (action, payload, status), store values and webhook posts, listing for
// listing. In the batch, a listing's later event sees its earlier one's store write; a blocked
// listing's action is blocked while the others of its batch are applied; and the batch run again
// with one new event replays each admitted run's answer (one receipt per run) and admits the new one.
// Waves overlap (docs/decisions/152-overlapping-live-waves.md): a listing's event held in retries
// holds only its own lane, while another listing's events run in waves formed beside it, each
// admitted after its earlier one was recorded.

const COUNTER = `
function handle(event, context) {
  const key = 'n:' + context.listing.sku;
  const n = (context.store.get(key) ?? 0) + 1;
  context.store.set(key, n);
  context.mutations.push({ target: context.listing, action: 'update', payload: {
    productType: 'PRODUCT',
    patches: [{ op: 'merge', path: '/attributes/purchasable_offer', value: [{
      marketplace_id: context.listing.marketplace.id, currency: context.listing.currencyCode, audience: 'ALL',
      our_price: [{ schedule: [{ value_with_tax: 10 + n }] }] }] }] } });
  context.webhooks.alerts.post(context.listing.sku + ' n=' + n);
}`;

/** The sequence, as indexes of its three listings: the same listing's events repeated, interleaved. */
const SEQUENCE = [0, 1, 0, 2, 1, 0];
/** The listing of each set that is blocked before the sequence runs. */
const BLOCKED = 2;

interface Listing {
  asin: string;
  sku: string;
  marketplace_id: string;
  id: string;
}

describe('live runs in batches change nothing a run can observe', function () {
  this.timeout(300_000);
  const logger = pino({ level: 'silent' });
  const t = {} as {
    w: AutomationWorld;
    account: AccountView;
    call: AutomationCall;
    automation: string;
    sandbox: Sandbox;
    alerts: AlertsWebhook;
    sets: [Listing[], Listing[]];
    /** two more listings alone in their lanes, for the overlapping waves */
    others: [Listing, Listing];
    /** a SKU whose webhook posts are refused for now ('busy': its event is retried, never poison) while `failing` */
    failing: { sku: string; failing: boolean; refused: number };
  };

  const start = (name: string, batchSize: number): Promise<LiveReactor> =>
    startLiveReactor({
      db: t.w.h.db,
      store: t.w.h.store,
      sandbox: t.sandbox,
      logger,
      enqueueWebhookPosts: (input) => {
        if (t.failing.failing && input.posts.some((p) => JSON.stringify(p).includes(t.failing.sku))) {
          t.failing.refused++;
          return Promise.reject(new DomainError('busy', 'the webhook queue is full'));
        }
        return t.alerts.webhooks.enqueueWebhookPosts(input);
      },
      name,
      batchSize,
      backoffMs: { base: 20, max: 200 },
      attempts: 2,
      now: t.w.now,
    });

  /** Records the sequence's events on the listings, in order: their ids and positions. */
  const record = async (
    listings: Listing[],
    sequence: number[],
  ): Promise<Array<{ id: string; position: Position }>> => {
    const recorded = [];
    for (const i of sequence) {
      const message_id = randomUUID();
      await recordOfferChange(t.w.h.store, t.account.id, listings[i]!, message_id);
      recorded.push((await t.w.h.store.readStream(marketplaceEventStream(t.account.id, message_id)))[0]!);
    }
    return recorded;
  };

  /** The run of the event on the listing, once recorded. */
  const runOf = async (event_id: string, listing: Listing): Promise<Json> => {
    const run_id = automationRunId({
      automation_id: t.automation,
      automation_version: 1,
      event_id,
      listing_id: listing.id,
    });
    let found: Json | undefined;
    for (let i = 0; i < 6000 && !found; i++) {
      found = (await t.w.h.store.readStream(`automation_run-${run_id}`))[0]?.data as Json | undefined;
      if (!found) await new Promise((r) => setTimeout(r, 10));
    }
    expect(found, `run ${run_id} recorded`).to.not.equal(undefined);
    return found!;
  };

  /** Runs the sequence on the set with a reactor of its own (started at the log's head, then fed): what it left, listing for listing. */
  const runSequence = async (set: Listing[], batchSize: number) => {
    const name = `live-batches-${randomUUID().slice(0, 8)}`;
    await (await start(name, batchSize)).close(); // its partitions start here
    const recorded = await record(set, SEQUENCE);
    const events = recorded.map((e) => e.id);
    const postsBefore = t.alerts.receiver.received.length;
    const reactor = await start(name, batchSize);
    try {
      const runs = [];
      for (const [k, event_id] of events.entries()) runs.push(await runOf(event_id, set[SEQUENCE[k]!]!));
      await until(() => t.alerts.receiver.received.length >= postsBefore + runs.length - 1, 30_000);
      const batches = reactor.stats().batches;
      const positions = recorded.map((e) => e.position);
      return { events, positions, runs, batches, observed: await observe(set, events, runs, postsBefore) };
    } finally {
      await reactor.close();
    }
  };

  /** What the runs left, with each listing named by its place in the set (the sets' listings differ, nothing else may). */
  const observe = async (set: Listing[], events: string[], runs: Json[], postsBefore: number) => {
    const named = (s: string) =>
      set.reduce(
        (text, l, i) => text.split(l.id).join(`L${i}`).split(l.sku).join(`L${i}`).split(l.asin).join(`L${i}`),
        s,
      );
    const actions = runs.map((run) => ({
      error: run.error_message,
      store_changes: run.store_changes,
      webhook_posts: run.webhook_posts,
      actions: (run.actions as Json[]).map((a) =>
        named(JSON.stringify([a.kind, a.status, a.value, a.action, a.target_type, a.error_message ?? null])),
      ),
    }));
    const receipts = [];
    for (const run of runs)
      for (const a of run.actions as Json[]) {
        const [admitted] = await t.w.h.store.readStream(`mutation-${a.receipt_id}`);
        const d = admitted!.data as Json;
        receipts.push(
          named(
            JSON.stringify([admitted!.type, d.action, d.target_type, d.payload, d.status ?? null, d.blocked ?? null]),
          ),
        );
      }
    await t.w.h.projector.whenCaughtUp();
    const snapshot = await loadStoreSnapshot(t.w.h.db, t.automation, t.w.now());
    const store = set.map((l) => snapshot[`n:${l.sku}`]);
    const posts = t.alerts.receiver.received
      .slice(postsBefore)
      .map((r) => named((JSON.parse(r.body) as Json).text as string))
      .sort();
    return { actions, receipts, store, posts, events: events.length };
  };

  before(async () => {
    t.w = await startAutomationWorld({
      deals: false,
      projections: [automationsProjection, automationRunsProjection, automationStoreProjection, webhooksProjection],
    });
    t.account = (await loadAccount(t.w.h.db, t.w.account))!;
    // three pairs of listings alone in their lane, each pair of one marketplace (the price patch names it)
    const lone = await oneLaneListings(t.w.h.db, t.account.id);
    const withSku = async (l: (typeof lone)[number]): Promise<Listing> => {
      const { sku } = await t.w.h.db
        .withSchema('rm')
        .table('listing_current')
        .where({ account_id: t.account.id, marketplace_id: l.marketplace_id, asin: l.asin })
        .first('sku');
      return { ...l, sku, id: listingId(t.account.id, l.marketplace_id, sku) };
    };
    const pairs: Array<[Listing, Listing]> = [];
    let i = 0;
    for (; i + 1 < lone.length && pairs.length < 3; i++) {
      if (lone[i]!.marketplace_id !== lone[i + 1]!.marketplace_id) continue;
      pairs.push([await withSku(lone[i]!), await withSku(lone[i + 1]!)]);
      i++;
    }
    expect(pairs).to.have.length(3);
    t.sets = [pairs.map((p) => p[0]), pairs.map((p) => p[1])];
    expect(lone.length).to.be.above(i + 1);
    t.others = [await withSku(lone[i]!), await withSku(lone[i + 1]!)];
    t.failing = { sku: t.others[1].sku, failing: false, refused: 0 };
    t.call = {
      store: t.w.h.store,
      userId: randomUUID(),
      accounts: [t.account],
      at: t.w.now(),
      correlationId: randomUUID(),
      simulate: false,
    };
    t.sandbox = createSandbox({ runners: 2 });
    t.alerts = await startAlertsWebhook(t.w, t.account.id, 'live-batches-signing-key', logger);
    t.automation = await createAutomation(t.call, {
      account: t.account,
      stream_type: 'ANY_OFFER_CHANGED',
      title: 'Counter',
      code: COUNTER,
      operation_dependencies: {},
    });
    await activateAutomation(t.call, t.automation);
    for (const set of t.sets) await t.w.withhold({ type: 'Listing', id: set[BLOCKED]!.id }, true);
    await t.w.h.projector.whenCaughtUp();
  });
  after(async () => {
    await t.alerts?.close();
    await t.sandbox?.close();
    await t.w?.close();
  });

  it('one at a time and in batches: the same runs, receipts, store values and posts; a batch run again admits nothing twice', async () => {
    const alone = await runSequence(t.sets[0], 1);
    const batched = await runSequence(t.sets[1], 32);
    expect(alone.batches, 'one event a batch').to.equal(SEQUENCE.length);
    expect(batched.batches, 'the events taken together').to.be.below(SEQUENCE.length);
    expect(batched.observed).to.deep.equal(alone.observed);

    // what both show: a listing's later event saw its earlier ones' store writes (n counts up),
    // and the blocked listing's action is blocked beside the others' applied ones
    const statuses = batched.runs.map((r) => `${r.actions[0].status} ${r.actions[0].value}`);
    expect(statuses).to.deep.equal([
      'applied 11',
      'applied 11',
      'applied 12',
      'blocked 11',
      'applied 12',
      'applied 13',
    ]);
    expect(batched.observed.store).to.deep.equal([3, 2, 1]);

    // run again from before the batch, with one new event after it: each run replays its answer
    // (the joint write finds its key in use), the new one is admitted, each once
    const set = t.sets[1];
    const name = `live-batches-${randomUUID().slice(0, 8)}`;
    await (await start(name, 32)).close();
    // on the blocked listing, whose earlier event is in the batch's first wave: the new one shares the
    // second with runs admitted before, so one joint write holds keys in use and a new one
    const [fresh] = await record(set, [BLOCKED]);
    const first = batched.positions[0]!;
    await t.w.h.db.raw(`update reactors.partitions set commit_position = ?, prepare_position = ? where name = ?`, [
      first.commit.toString(),
      (first.prepare - 1n).toString(),
      name,
    ]);
    const rerun = await start(name, 32);
    try {
      const run = await runOf(fresh!.id, set[BLOCKED]!);
      expect(run.actions.map((a: Json) => `${a.status} ${a.value}`)).to.deep.equal(['blocked 12']);
      await until(() => rerun.stats().events === SEQUENCE.length + 1 && rerun.stats().inFlight === 0, 30_000);
      expect(rerun.stats().batches).to.be.below(SEQUENCE.length + 1);
    } finally {
      await rerun.close();
    }
    await t.w.h.projector.whenCaughtUp();
    const receipts: Json[] = await t.w.h.db
      .withSchema('rm')
      .table('mutation_receipts')
      .whereIn(
        'target_id',
        set.map((l) => l.id),
      )
      .select('id', 'caused_by');
    const perEvent = new Map<string, string[]>();
    for (const r of receipts) perEvent.set(r.caused_by.event_id, [...(perEvent.get(r.caused_by.event_id) ?? []), r.id]);
    for (const [k, event] of [...batched.events, fresh!.id].entries())
      expect(perEvent.get(event), `receipts of event ${k}`).to.have.length(1);
    for (const [k, run] of batched.runs.entries())
      expect(perEvent.get(batched.events[k]!)).to.deep.equal([run.actions[0].receipt_id]);
  });

  it("a retrying event holds only its own lanes: another lane's later events go on in waves beside it, each seeing its earlier one's store write and receipt", async () => {
    const [other, retrying] = t.others;
    const name = `live-batches-${randomUUID().slice(0, 8)}`;
    await (await start(name, 32)).close();
    const lanes = [other, retrying];
    // the retrying listing's event first, in the first wave with the other lane's first event
    const sequence = [1, 0, 0, 0];
    const recorded = await record(lanes, sequence);
    // its posts refused (after its store write and receipt): retried until let through
    t.failing.failing = true;
    const reactor = await start(name, 32);
    try {
      const runs: Json[] = [];
      // the other lane's events all run while the retrying one still retries (they would wait forever behind it)
      for (const k of [1, 2, 3]) runs[k] = await runOf(recorded[k]!.id, other);
      expect(t.failing.refused, 'the retrying event was still refused').to.be.above(0);
      t.failing.failing = false;
      runs[0] = await runOf(recorded[0]!.id, retrying);
      expect(runs.map((r) => `${r.actions[0].status} ${r.actions[0].value}`)).to.deep.equal([
        'applied 11',
        'applied 11',
        'applied 12',
        'applied 13',
      ]);
      expect(reactor.stats().batches, 'a wave per event of the other lane').to.be.at.least(3);
      // each later event of the other lane, in a wave formed while the first was still running, was
      // admitted once its earlier one was settled and recorded
      const recordedAt = async (k: number) => {
        const run_id = automationRunId({
          automation_id: t.automation,
          automation_version: 1,
          event_id: recorded[k]!.id,
          listing_id: lanes[sequence[k]!]!.id,
        });
        return Number((await t.w.h.store.readStream(`automation_run-${run_id}`))[0]!.position.commit);
      };
      const receiptAt = async (k: number) =>
        Number((await t.w.h.store.readStream(`mutation-${runs[k]!.actions[0].receipt_id}`))[0]!.position.commit);
      for (const k of [2, 3]) expect(await receiptAt(k)).to.be.above(await recordedAt(k - 1));
      expect(await recordedAt(3)).to.be.below(await recordedAt(0));
    } finally {
      t.failing.failing = false;
      await reactor.close();
    }
  });
});
