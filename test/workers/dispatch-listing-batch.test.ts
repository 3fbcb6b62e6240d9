import { expect } from 'chai';
import { getReceipt } from '../../src/projections/mutations/queries.js';
import { clientsFor } from '../support/marketplace.js';
import { eventually } from '../support/processes.js';
import { pricePatch as usPrice, startBench, type Bench } from './dispatch-support.js';

// A listing's queued patches share one patchListingsItem call (one patch document per SKU and
// marketplace), their patches concatenated in admission order; each receipt keeps its own
// start, prior and answer. Against the simulator through the real clients, PostgreSQL, Redis and
// BullMQ: the receipts are admitted while no worker runs, so they are all queued when it starts.

const US = 'ATVPDKIKX0DER';

describe("a listing's queued patches sent together", function () {
  this.timeout(60000);
  let b: Bench;
  let used = 0;

  before(async () => {
    b = await startBench({ worker: false });
  });
  after(async () => b.close());
  afterEach(async () => {
    await b.dispatch?.close();
    b.dispatch = null;
    await fetch(`${b.baseUrl}/_sim/faults`, { method: 'DELETE' });
  });

  /** A live listing no other test patches. */
  const freshListing = () => {
    const listing = [...b.simulator.catalog.listingsIn(US)].filter((l) => l.status === 'BUYABLE')[used++]!;
    return { sku: listing.sku, ...b.listing(listing.sku, US) };
  };
  const pricePatch = (price: number) => usPrice(US, price);
  const admitPrices = async (l: ReturnType<typeof freshListing>, prices: number[], provider = {}) => {
    const ids: string[] = [];
    for (const price of prices)
      ids.push(
        await b.admit({
          target: l.target,
          provider: { ...l.provider, ...provider },
          action: 'update',
          payload: { productType: 'PRODUCT', patches: [pricePatch(price)] },
        }),
      );
    return ids;
  };
  const submissionsOf = async (sku: string) =>
    (await b.listingSubmissions()).filter((s) => s.sku === sku && s.mode === 'APPLY');
  const history = async (id: string) => (await getReceipt(b.db, [b.account], id))!.history;
  const priceNow = async (sku: string) => {
    const { attributes } = await clientsFor(b.simulator).selling.listings.getListingsItem(
      b.simulator.seller.merchantId,
      sku,
      US,
      ['attributes'],
    );
    return attributes!.purchasable_offer;
  };
  /** Starts the worker on what is queued and waits until every receipt is settled. */
  const dispatchAll = async (ids: string[], settled = ['submitted', 'blocked']) => {
    await b.caughtUp();
    await b.startWorker();
    return Promise.all(ids.map((id) => b.until(id, settled)));
  };

  it('N price patches on one SKU go in one call, in admission order; each receipt has its own start, prior and answer', async () => {
    const l = freshListing();
    const before = await priceNow(l.sku);
    const prices = [11.01, 11.02, 11.03, 11.04, 11.05];
    const ids = await admitPrices(l, prices);
    const receipts = await dispatchAll(ids);

    const calls = await submissionsOf(l.sku);
    expect(calls.map((c) => c.status)).to.deep.equal(['ACCEPTED']);
    expect(calls[0]!.patches).to.deep.equal(prices.map(pricePatch));
    for (const r of receipts)
      expect(r).to.deep.include({
        status: 'submitted',
        outcome: 'accepted',
        attempts: 1,
        submission_id: calls[0]!.submissionId,
      });
    for (const [i, id] of ids.entries()) {
      const events = await history(id);
      expect(events.map((e) => e.type)).to.deep.equal([
        'MutationAdmitted',
        'MutationDispatchStarted',
        'MutationSubmitted',
      ]);
      expect(events.every((e) => e.data.receipt_id === id)).to.equal(true);
      // the part its patch names just before it, as if sent one by one: the listing's before the
      // call for the first, the value the one before it set for the others (what a revert restores)
      expect(events[1]!.data.prior).to.deep.equal({
        purchasable_offer: i === 0 ? before : pricePatch(prices[i - 1]!).value,
      });
      expect(events[1]!.data.sent_with).to.deep.equal(ids);
    }
    // the last patch of the call is what the listing shows
    expect(JSON.stringify(await priceNow(l.sku))).to.contain('11.05');
  });

  it("merged prices go together too: the second's prior is the offer as the first merge left it, as the marketplace shows it", async () => {
    const l = freshListing();
    const merge = (price: number) => ({ ...pricePatch(price), op: 'merge' });
    const ids: string[] = [];
    for (const price of [18.01, 18.02])
      ids.push(
        await b.admit({
          target: l.target,
          provider: l.provider,
          action: 'update',
          payload: { productType: 'PRODUCT', patches: [merge(price)] },
        }),
      );
    await dispatchAll(ids);
    expect((await submissionsOf(l.sku)).map((c) => c.patches)).to.deep.equal([[merge(18.01), merge(18.02)]]);
    // the listing now, with the first merge's price where the second put its own
    const shown = JSON.stringify(await priceNow(l.sku)).replace('18.02', '18.01');
    const second = (await history(ids[1]!))[1]!.data.prior as { purchasable_offer: unknown };
    expect(second.purchasable_offer).to.deep.equal(JSON.parse(shown));
  });

  it('a combined call the marketplace refuses: each patch is sent alone for an answer of its own', async () => {
    const l = freshListing();
    // the middle one is an invalid price: the submission as a whole is INVALID, nothing applied
    const ids = await admitPrices(l, [12.01, -1, 12.03]);
    const [first, bad, last] = await dispatchAll(ids);

    const calls = await submissionsOf(l.sku);
    expect(calls.map((c) => [c.status, c.patches])).to.deep.equal([
      ['INVALID', [pricePatch(12.01), pricePatch(-1), pricePatch(12.03)]],
      ['ACCEPTED', [pricePatch(12.01)]],
      ['INVALID', [pricePatch(-1)]],
      ['ACCEPTED', [pricePatch(12.03)]],
    ]);
    expect(first).to.deep.include({ outcome: 'accepted', attempts: 1, submission_id: calls[1]!.submissionId });
    expect(bad).to.deep.include({ outcome: 'rejected', attempts: 1, submission_id: calls[2]!.submissionId });
    expect(bad!.error).to.deep.include({ code: 'INVALID_PRICE' });
    expect(last).to.deep.include({ outcome: 'accepted', attempts: 1, submission_id: calls[3]!.submissionId });
    expect(JSON.stringify(await priceNow(l.sku))).to.contain('12.03');
  });

  it('a combined call refused, then a lone resend throttled: the rest go back to the queue, each applied once', async () => {
    const l = freshListing();
    const prices = [13.01, 13.02, 13.03];
    const ids = await admitPrices(l, prices);
    // the combined call is refused (400, nothing applied); the first lone resend meets a 429
    await b.fault({ route: 'PATCH /listings/2021-08-01/items/**', kind: 'reject', times: 1 });
    await b.fault({ route: 'PATCH /listings/2021-08-01/items/**', kind: '429', times: 1 });
    const receipts = await dispatchAll(ids);

    // then all three went together again: each applied once, in admission order, none dropped
    const calls = await submissionsOf(l.sku);
    expect(calls.map((c) => [c.status, c.patches])).to.deep.equal([['ACCEPTED', prices.map(pricePatch)]]);
    for (const r of receipts) expect(r).to.deep.include({ outcome: 'accepted', attempts: 2 });
    expect((await history(ids[0]!)).find((e) => e.type === 'MutationRetryScheduled')!.data).to.deep.include({
      http_status: 429,
    });
    for (const id of ids.slice(1)) {
      const retried = (await history(id)).find((e) => e.type === 'MutationRetryScheduled');
      expect(retried!.data.error).to.deep.include({ code: 'combined_refused' });
    }
  });

  it('a lost answer to a combined call leaves each receipt uncertain, never resent, each settled by reading back', async () => {
    const l = freshListing();
    // the second price overwrites the first: the call is what is looked for, not each patch alone
    const ids = [
      ...(await admitPrices(l, [14.01, 14.02])),
      await b.admit({
        target: l.target,
        provider: l.provider,
        action: 'update',
        payload: {
          productType: 'PRODUCT',
          patches: [
            {
              op: 'replace',
              path: '/attributes/item_name',
              value: [{ value: 'Batched title', language_tag: 'en_US', marketplace_id: US }],
            },
          ],
        },
      }),
    ];
    await b.fault({ route: 'PATCH /listings/2021-08-01/items/**', kind: 'lost_reply', times: 1 });
    const receipts = await dispatchAll(ids, ['submitted', 'unresolved']);
    for (const r of receipts) expect(r).to.deep.include({ outcome: 'accepted', attempts: 1 });
    for (const id of ids) expect((await history(id)).map((e) => e.type)).to.include('MutationUncertain');
    const calls = await submissionsOf(l.sku);
    expect(calls).to.have.length(1);
    expect(calls[0]!.patches).to.have.length(3);
  });

  it('a combined call never answered and not applied: each receipt absent after 10 minutes, on the evidence of the priors the call began from', async () => {
    const l = freshListing();
    const ids = await admitPrices(l, [17.01, 17.02]);
    await b.fault({ route: 'PATCH /listings/2021-08-01/items/**', kind: 'timeout', times: 1 });
    await dispatchAll(ids, ['uncertain']);
    for (const id of ids) {
      const checked = await eventually(async () => {
        const r = await b.receipt(id);
        return (r.reconciliation as { attempts?: number } | null)?.attempts === 1 ? r : undefined;
      }, 'the first read-back');
      expect(checked.reconciliation).to.deep.include({
        result: 'pending',
        cause: 'the target still shows what it showed before the request',
      });
    }
    b.clock.offset += 10 * 60_000;
    await b.dispatch!.sweep();
    for (const id of ids) expect(await b.until(id, ['submitted'])).to.deep.include({ outcome: 'absent', attempts: 1 });
    expect(await submissionsOf(l.sku)).to.deep.equal([]);
  });

  it("receipts of different SKUs are not combined: each SKU's call carries its own patches", async () => {
    const [x, y] = [freshListing(), freshListing()];
    const ids = [
      ...(await admitPrices(x, [15.01])),
      ...(await admitPrices(y, [15.02])),
      ...(await admitPrices(x, [15.03])),
    ];
    await dispatchAll(ids);
    expect((await submissionsOf(x.sku)).map((c) => c.patches)).to.deep.equal([[pricePatch(15.01), pricePatch(15.03)]]);
    expect((await submissionsOf(y.sku)).map((c) => c.patches)).to.deep.equal([[pricePatch(15.02)]]);
  });

  it('a withheld receipt is not combined in: it is blocked, those before and after it go in calls of their own, in order', async () => {
    const l = freshListing();
    const source = freshListing();
    await b.setListingBlock(source.target.id, true);
    const ids = [
      ...(await admitPrices(l, [16.01])),
      // a run of the blocked listing asked for it
      ...(await admitPrices(l, [16.02], { sourceListingId: source.target.id })),
      ...(await admitPrices(l, [16.03, 16.04])),
    ];
    const [first, blocked, third, fourth] = await dispatchAll(ids);
    expect(blocked).to.deep.include({ status: 'blocked' });
    expect(blocked!.error).to.deep.include({ reason: 'listing_blocked' });
    expect((await submissionsOf(l.sku)).map((c) => c.patches)).to.deep.equal([
      [pricePatch(16.01)],
      [pricePatch(16.03), pricePatch(16.04)],
    ]);
    for (const r of [first, third, fourth]) expect(r).to.deep.include({ outcome: 'accepted', attempts: 1 });
  });
});
