import { expect } from 'chai';
import type { AppliedChange } from '../../src/marketplace/simulator/ads/sp-state.js';
import { deleteKeys } from '../../src/infra/redis.js';
import { getReceipt } from '../../src/projections/mutations/queries.js';
import { enqueueDispatch } from '../../src/workers/dispatch/queue.js';
import { clientsFor } from '../support/marketplace.js';
import { eventually } from '../support/processes.js';
import { pricePatch, startBench, type Bench } from './dispatch-support.js';
import { adsEntityId } from '../../src/domain/observation/ids.js';

// The dispatch worker against the simulator through the real clients, PostgreSQL, Redis and
// BullMQ, with faults injected; every test compares the simulator's record of applied changes
// with the receipts.

const US = 'ATVPDKIKX0DER';

describe('mutation dispatch against the simulator', function () {
  this.timeout(60000);
  let b: Bench;
  let profileId: string;
  let campaigns: Array<{ campaignId: string; targetingType: string }>;
  /** ad groups of the profiles whose currency has cents (bids like 0.5 are in range) */
  let adGroups: Array<{ adGroupId: string; campaignId: string; profileId: string }>;
  let used = 0;

  before(async () => {
    b = await startBench();
    profileId = String(b.simulator.seller.profiles.find((p) => p.countryCode === 'US')!.profileId);
    const { ads } = clientsFor(b.simulator);
    campaigns = (await ads.sp.list(profileId, 'campaigns', { stateFilter: { include: ['ENABLED', 'PAUSED'] } })).items;
    adGroups = [];
    for (const p of b.simulator.seller.profiles.filter((x) => x.countryCode !== 'JP')) {
      const live = { stateFilter: { include: ['ENABLED' as const, 'PAUSED' as const] } };
      const open = new Set((await ads.sp.list(String(p.profileId), 'campaigns', live)).items.map((c) => c.campaignId));
      const items = (await ads.sp.list(String(p.profileId), 'adGroups', live)).items.filter((g) =>
        open.has(g.campaignId),
      );
      adGroups.push(
        ...items.map((g) => ({ adGroupId: g.adGroupId, campaignId: g.campaignId, profileId: String(p.profileId) })),
      );
    }
  });
  after(async () => b.close());
  afterEach(async () => {
    await fetch(`${b.baseUrl}/_sim/faults`, { method: 'DELETE' });
  });

  /** A fresh ad group (and its campaign) no other test touches. */
  const freshAdGroup = () => {
    const g = adGroups[used++]!;
    return {
      target: { type: 'AdGroup' as const, id: adsEntityId('ad_group', b.account, g.profileId, g.adGroupId) },
      provider: { profileId: g.profileId, campaignId: g.campaignId, adGroupId: g.adGroupId },
      group: g,
    };
  };
  const changesOf = async (id: string) => (await b.adsChanges()).filter((c) => c.id === id);
  const history = async (id: string) => (await getReceipt(b.db, [b.account], id))!.history;
  /** a receipt settled after it was uncertain (its first check runs at once, maybe before a poll could see it uncertain) */
  const settledAfterDoubt = async (id: string, statuses = ['submitted']) => {
    const r = await b.until(id, statuses);
    const types = (await history(id)).map((h) => h.type);
    expect(types.indexOf('MutationUncertain'), types.join(', ')).to.be.greaterThan(
      types.indexOf('MutationDispatchStarted'),
    );
    return r;
  };
  const requestsTo = async (method: string, path: string) =>
    (
      (await (await fetch(`${b.baseUrl}/_sim/requests?${new URLSearchParams({ method, path })}`)).json()) as {
        requests: unknown[];
      }
    ).requests.length;

  it('an update is sent once and its answer recorded: HTTP status, raw 207 body, request id', async () => {
    const { target, provider, group } = freshAdGroup();
    const id = await b.admit({ target, provider, action: 'update', payload: { state: 'PAUSED' } });
    const r = await b.until(id, ['submitted']);
    expect(r).to.include({ outcome: 'accepted', accepted: true, http_status: 207, attempts: 1 });
    expect(r.request_id).to.be.a('string').and.not.equal('');
    expect(r.response).to.deep.equal({ adGroups: { success: [{ index: 0, adGroupId: group.adGroupId }], error: [] } });
    const changes = await changesOf(group.adGroupId);
    expect(changes.map((c) => [c.operation, (c.after as { state: string }).state])).to.deep.equal([
      ['update', 'PAUSED'],
    ]);
  });

  it("a 207 whose item is rejected settles the receipt rejected with that item's reason; nothing applied", async () => {
    const campaign = campaigns[0]!;
    const target = {
      type: 'Campaign' as const,
      id: adsEntityId('campaign', b.account, profileId, campaign.campaignId),
    };
    const id = await b.admit({
      target,
      provider: { profileId, campaignId: campaign.campaignId },
      action: 'update',
      payload: { budget: { budget: 0.0001, budgetType: 'DAILY' } },
    });
    const r = await b.until(id, ['submitted']);
    expect(r).to.include({ outcome: 'rejected', accepted: false, http_status: 207 });
    expect(r.error!.code).to.equal('BUDGET_TOO_LOW');
    const body = r.response as { campaigns: { error: Array<{ index: number }> } };
    expect(body.campaigns.error.map((e) => e.index)).to.deep.equal([0]);
    expect(await changesOf(campaign.campaignId)).to.deep.equal([]);
  });

  it('a listing patch is submitted through patchListingsItem with its submission id', async () => {
    const listing = b.simulator.catalog.marketplaceListingAt(US, 0);
    const payload = { productType: 'PRODUCT', patches: [pricePatch(US, 12.34)] };
    const id = await b.admit({
      ...b.listing(listing.sku, US),
      action: 'update',
      payload,
    });
    const r = await b.until(id, ['submitted']);
    expect(r).to.include({ outcome: 'accepted', http_status: 200 });
    const applied = (await b.listingSubmissions()).filter(
      (s) => s.sku === listing.sku && s.status === 'ACCEPTED' && s.mode === 'APPLY',
    );
    expect(applied.map((s) => s.submissionId)).to.deep.equal([r.submission_id]);
    expect(applied[0]!.patches).to.deep.equal(payload.patches);
  });

  it('requests of several targets share one 207 call; a rejected item rejects only its own receipt', async () => {
    // three fresh ad groups of one profile, admitted while the worker is stopped so they go together
    const profileOf = adGroups[used]!.profileId;
    const picks = [];
    while (picks.length < 3 && used < adGroups.length) {
      if (adGroups[used]!.profileId === profileOf) picks.push(freshAdGroup());
      else used++;
    }
    expect(picks.length).to.equal(3);
    await b.dispatch!.close();
    const bids = [0.41, 0.0001, 0.43];
    const ids = [];
    for (const [i, p] of picks.entries())
      ids.push(
        await b.admit({ target: p.target, provider: p.provider, action: 'update', payload: { defaultBid: bids[i] } }),
      );
    await b.caughtUp();
    const before = await requestsTo('PUT', '/sp/adGroups');
    // one job at a time: the first takes the others along (with more jobs than workers, so does any)
    await b.startWorker({ concurrency: 1 });
    const receipts = [];
    for (const id of ids) receipts.push(await b.until(id, ['submitted']));
    expect(await requestsTo('PUT', '/sp/adGroups'), 'one call for the three').to.equal(before + 1);
    expect(receipts.map((r) => r.outcome)).to.deep.equal(['accepted', 'rejected', 'accepted']);
    expect(receipts[1]!.error!.code).to.equal('BID_OUT_OF_MARKET_PLACE_RANGE');
    expect(new Set(receipts.map((r) => r.request_id)).size, 'the same answer').to.equal(1);
    for (const [i, p] of picks.entries()) {
      const applied = (await changesOf(p.group.adGroupId)).map((c) => (c.after as { defaultBid: number }).defaultBid);
      expect(applied).to.deep.equal(i === 1 ? [] : [bids[i]]);
    }
    await b.dispatch!.close();
    await b.startWorker();
  });

  it('a whole request refused (400) settles its receipt rejected, never resent', async () => {
    const { target, provider, group } = freshAdGroup();
    await b.fault({ route: 'PUT /sp/adGroups', kind: 'reject', times: 1 });
    const before = await requestsTo('PUT', '/sp/adGroups');
    const id = await b.admit({ target, provider, action: 'update', payload: { state: 'PAUSED' } });
    const r = await b.until(id, ['submitted']);
    expect(r).to.include({ outcome: 'rejected', accepted: false, http_status: 400, attempts: 1 });
    expect(r.response, 'the provider body as sent').to.be.an('object');
    await b.dispatch!.sweep();
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await requestsTo('PUT', '/sp/adGroups')).to.equal(before + 1);
    expect(await changesOf(group.adGroupId)).to.deep.equal([]);
  });

  it('a blocked listing withholds its patch under the lock; unblocking does not replay it', async () => {
    const listing = b.simulator.catalog.marketplaceListingAt(US, 1);
    const { target, provider } = b.listing(listing.sku, US);
    await b.setListingBlock(target.id, true);
    await b.caughtUp();
    const payload = {
      productType: 'PRODUCT',
      patches: [
        {
          op: 'replace',
          path: '/attributes/purchasable_offer',
          value: [
            {
              marketplace_id: US,
              currency: 'USD',
              audience: 'ALL',
              our_price: [{ schedule: [{ value_with_tax: 9.99 }] }],
            },
          ],
        },
      ],
    };
    const id = await b.admit({
      target,
      provider,
      action: 'update',
      payload,
    });
    expect((await b.until(id, ['blocked'])).error).to.deep.include({ code: 'blocked', reason: 'listing_blocked' });
    await b.setListingBlock(target.id, false);
    await b.caughtUp();
    await b.dispatch!.sweep();
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect((await b.receipt(id)).status).to.equal('blocked');
    expect((await b.listingSubmissions()).filter((s) => s.sku === listing.sku)).to.deep.equal([]);
  });

  describe('an uncertain change (not a creation)', () => {
    const bidsOf = async (adGroupId: string) =>
      (await changesOf(adGroupId)).map((c) => (c.after as { defaultBid: number }).defaultBid);

    it('reply lost after the change was applied: uncertain, never resent, the next request held until a read-back shows the change', async () => {
      const { target, provider, group } = freshAdGroup();
      await b.fault({ route: 'PUT /sp/adGroups', kind: 'lost_reply', times: 1 });
      // the read-back fails for now: nothing can settle the first request
      await b.fault({ route: 'POST /sp/adGroups/list', kind: '5xx', status: 503, times: 1_000_000 });
      const first = await b.admit({ target, provider, action: 'update', payload: { defaultBid: 0.83 } });
      const second = await b.admit({ target, provider, action: 'update', payload: { defaultBid: 0.84 } });
      const r = await b.until(first, ['uncertain']);
      expect(r).to.include({ outcome: 'uncertain', accepted: null, http_status: null });
      expect(r.error!.code).to.equal('network_error');
      // several sweeps later: still one request, one change; the second request waits
      for (let i = 0; i < 3; i++) await b.dispatch!.sweep();
      await new Promise((resolve) => setTimeout(resolve, 600));
      expect((await b.receipt(first)).status).to.equal('uncertain');
      expect((await b.receipt(second)).status).to.equal('queued');
      expect(await bidsOf(group.adGroupId)).to.deep.equal([0.83]);
      // the marketplace answers reads again: the first is settled by what it shows, then the second goes
      await fetch(`${b.baseUrl}/_sim/faults`, { method: 'DELETE' });
      await b.dispatch!.sweep();
      const settled = await b.until(first, ['submitted']);
      expect(settled).to.deep.include({ outcome: 'accepted', accepted: true, attempts: 1, created: null });
      expect(settled.reconciliation).to.deep.include({
        result: 'accepted',
        candidates: [],
        cause: 'the target read back shows every requested value',
      });
      expect((await history(first)).at(-1)!.data.observed).to.deep.include({
        adGroupId: group.adGroupId,
        defaultBid: 0.83,
      });
      expect((await b.until(second, ['submitted'])).outcome).to.equal('accepted');
      expect(await bidsOf(group.adGroupId), 'each applied once, in order').to.deep.equal([0.83, 0.84]);
    });

    it('settling it releases the requests it held at once, with no sweep to help', async () => {
      const { target, provider, group } = freshAdGroup();
      await b.dispatch!.close();
      await b.startWorker({ sweepEveryMs: 3_600_000 });
      try {
        await b.fault({ route: 'PUT /sp/adGroups', kind: 'lost_reply', times: 1 });
        await b.fault({ route: 'POST /sp/adGroups/list', kind: '5xx', status: 503, times: 1 });
        const first = await b.admit({ target, provider, action: 'update', payload: { defaultBid: 0.87 } });
        const second = await b.admit({ target, provider, action: 'update', payload: { defaultBid: 0.88 } });
        // as admission hands the call over: the target's last receipt
        await enqueueDispatch(b.dispatch!.queue, [second]);
        // the first read-back fails; its retry shows the change and settles it, which sends the second
        expect((await settledAfterDoubt(first)).outcome).to.equal('accepted');
        expect((await b.until(second, ['submitted'], 30000)).outcome).to.equal('accepted');
        expect(await bidsOf(group.adGroupId)).to.deep.equal([0.87, 0.88]);
      } finally {
        await b.dispatch!.close();
        await b.startWorker();
      }
    });

    it('never answered and not applied: held, settled absent after 10 minutes of simulated time, then the next request goes', async () => {
      const { target, provider, group } = freshAdGroup();
      await b.fault({ route: 'PUT /sp/adGroups', kind: 'timeout', times: 1 });
      const first = await b.admit({ target, provider, action: 'update', payload: { defaultBid: 0.93 } });
      const second = await b.admit({ target, provider, action: 'update', payload: { defaultBid: 0.94 } });
      expect((await b.until(first, ['uncertain'])).error!.code).to.equal('timeout');
      await b.dispatch!.sweep();
      const checked = await eventually(async () => {
        const rec = await b.receipt(first);
        return (rec.reconciliation as { attempts?: number }).attempts === 1 ? rec : undefined;
      }, 'the first read-back');
      expect(checked).to.deep.include({ status: 'uncertain' });
      expect(checked.reconciliation).to.deep.include({
        result: 'pending',
        cause: 'the target still shows what it showed before the request',
      });
      expect((await b.receipt(second)).status).to.equal('queued');
      b.clock.offset += 10 * 60_000;
      await b.dispatch!.sweep();
      const r = await b.until(first, ['submitted']);
      expect(r).to.include({ outcome: 'absent', accepted: false, attempts: 1 });
      expect(r.reconciliation).to.deep.include({ result: 'absent', attempts: 2, nextAt: null });
      expect((await b.until(second, ['submitted'])).outcome).to.equal('accepted');
      expect(await bidsOf(group.adGroupId), 'only the second was ever applied').to.deep.equal([0.94]);
    });

    it('a listing patch whose reply was lost is settled by reading the listing back; submitted once', async () => {
      // one no other test patches, and live (a deleted listing refuses patches)
      const listing = [...b.simulator.catalog.listingsIn(US)].filter((l) => l.status === 'BUYABLE').at(-1)!;
      await b.fault({ route: 'PATCH /listings/2021-08-01/items/**', kind: 'lost_reply', times: 1 });
      const payload = {
        productType: 'PRODUCT',
        patches: [
          {
            op: 'replace',
            path: '/attributes/purchasable_offer',
            value: [
              {
                marketplace_id: US,
                currency: 'USD',
                audience: 'ALL',
                our_price: [{ schedule: [{ value_with_tax: 23.45 }] }],
              },
            ],
          },
        ],
      };
      const id = await b.admit({
        ...b.listing(listing.sku, US),
        action: 'update',
        payload,
      });
      const r = await settledAfterDoubt(id);
      expect(r).to.deep.include({ outcome: 'accepted', accepted: true, submission_id: null, attempts: 1 });
      expect(r.reconciliation).to.deep.include({ result: 'accepted' });
      const seen = (await history(id)).at(-1)!.data.observed as { purchasable_offer: Array<{ our_price: unknown }> };
      expect(Object.keys(seen)).to.deep.equal(['purchasable_offer']);
      expect(seen.purchasable_offer[0]!.our_price).to.deep.equal([{ schedule: [{ value_with_tax: 23.45 }] }]);
      const applied = (await b.listingSubmissions()).filter((s) => s.sku === listing.sku && s.mode === 'APPLY');
      expect(applied.map((s) => [s.status, s.patches])).to.deep.equal([['ACCEPTED', payload.patches]]);
    });

    describe("applied but stored in the marketplace's own form, reply lost: never absent", () => {
      const UK = 'A1F83G8C2ARO7P';
      /** a live listing of the marketplace no other test patches */
      const freshListing = (() => {
        const taken = new Set<string>();
        return (marketplaceId: string) => {
          const l = [...b.simulator.catalog.listingsIn(marketplaceId)]
            .filter((x) => x.status === 'BUYABLE' && !taken.has(x.sku))
            .at(-2)!;
          taken.add(l.sku);
          return l;
        };
      })();
      const patchListing = async (marketplaceId: string, patch: Record<string, unknown>) => {
        const listing = freshListing(marketplaceId);
        await b.fault({ route: 'PATCH /listings/2021-08-01/items/**', kind: 'lost_reply', times: 1 });
        const id = await b.admit({
          ...b.listing(listing.sku, marketplaceId),
          action: 'update',
          payload: { productType: 'PRODUCT', patches: [patch] },
        });
        return { id, listing };
      };
      /** the first read-back (still in doubt), then 10 minutes of simulated time: the receipt as it ends */
      const endsAfterTenMinutes = async (id: string) => {
        await b.until(id, ['uncertain']);
        const checked = await eventually(async () => {
          const rec = await b.receipt(id);
          return (rec.reconciliation as { attempts?: number }).attempts === 1 ? rec : undefined;
        }, 'the first read-back');
        expect(checked.status).to.equal('uncertain');
        expect(checked.reconciliation).to.deep.include({
          result: 'pending',
          cause: 'the target shows neither the requested values nor what it showed before',
        });
        b.clock.offset += 10 * 60_000;
        await b.dispatch!.sweep();
        const r = await b.until(id, ['unresolved']);
        expect(r).to.deep.include({ outcome: 'unresolved', attempts: 1 });
        expect(r.reconciliation).to.deep.include({ result: 'unresolved', attempts: 2, nextAt: null });
        return r;
      };
      const offer = (marketplaceId: string, currency: string, price: number, audience = 'ALL') => ({
        op: 'replace',
        path: '/attributes/purchasable_offer',
        value: [
          { marketplace_id: marketplaceId, currency, audience, our_price: [{ schedule: [{ value_with_tax: price }] }] },
        ],
      });

      it('a language tag: en_US sent, the marketplace stored its own en_GB; unresolved with what it shows as the candidate', async () => {
        const { id, listing } = await patchListing(UK, {
          op: 'replace',
          path: '/attributes/item_name',
          value: [{ value: 'Tea pot, blue', language_tag: 'en_US', marketplace_id: UK }],
        });
        const r = await endsAfterTenMinutes(id);
        expect(r.reconciliation.candidates).to.deep.equal([
          { observed: { item_name: [{ value: 'Tea pot, blue', language_tag: 'en_GB', marketplace_id: UK }] } },
        ]);
        const applied = (await b.listingSubmissions()).filter((x) => x.sku === listing.sku && x.mode === 'APPLY');
        expect(
          applied.map((x) => x.status),
          'applied once, never resent',
        ).to.deep.equal(['ACCEPTED']);
      });

      it('decimal precision: 23.455 sent, 23.46 stored; unresolved, not absent', async () => {
        const { id, listing } = await patchListing(US, offer(US, 'USD', 23.455));
        const r = await endsAfterTenMinutes(id);
        const { observed } = (r.reconciliation.candidates as Array<{ observed: Record<string, any> }>)[0]!;
        expect(observed.purchasable_offer[0].our_price).to.deep.equal([{ schedule: [{ value_with_tax: 23.46 }] }]);
        expect(b.simulator.selling.listings.find(listing.sku, US)!.price).to.equal(2346);
      });

      it('the case of an enumeration: audience "all" sent, ALL stored; unresolved', async () => {
        const { id } = await patchListing(US, offer(US, 'USD', 19.5, 'all'));
        const r = await endsAfterTenMinutes(id);
        const { observed } = (r.reconciliation.candidates as Array<{ observed: Record<string, any> }>)[0]!;
        expect(observed.purchasable_offer[0]).to.deep.include({ audience: 'ALL' });
      });

      it('an ads bid: 0.555 sent, 0.56 stored by the marketplace; unresolved, and the next request then goes', async () => {
        // the ad groups with cent bids are all taken: the first test's, idle since, serves again
        const g = adGroups[0]!;
        const group = g;
        const target = { type: 'AdGroup' as const, id: adsEntityId('ad_group', b.account, g.profileId, g.adGroupId) };
        const provider = { profileId: g.profileId, campaignId: g.campaignId, adGroupId: g.adGroupId };
        const earlier = (await bidsOf(group.adGroupId)).length;
        await b.fault({ route: 'PUT /sp/adGroups', kind: 'lost_reply', times: 1 });
        const first = await b.admit({ target, provider, action: 'update', payload: { defaultBid: 0.555 } });
        const second = await b.admit({ target, provider, action: 'update', payload: { defaultBid: 0.61 } });
        const r = await endsAfterTenMinutes(first);
        const { observed } = (r.reconciliation.candidates as Array<{ observed: Record<string, unknown> }>)[0]!;
        expect(observed).to.deep.include({ adGroupId: group.adGroupId, defaultBid: 0.56 });
        expect((await b.until(second, ['submitted'])).outcome).to.equal('accepted');
        expect((await bidsOf(group.adGroupId)).slice(earlier), 'each sent once').to.deep.equal([0.56, 0.61]);
      });
    });

    it('an archive whose reply was lost is settled by the entity showing ARCHIVED', async () => {
      const { group } = freshAdGroup();
      await b.fault({ route: 'POST /sp/adGroups/delete', kind: 'lost_reply', times: 1 });
      const id = await b.admit({
        target: { type: 'AdGroup', id: adsEntityId('ad_group', b.account, group.profileId, group.adGroupId) },
        provider: { profileId: group.profileId, campaignId: group.campaignId, adGroupId: group.adGroupId },
        action: 'archive',
        payload: {},
      });
      expect(await settledAfterDoubt(id)).to.deep.include({ outcome: 'accepted', attempts: 1 });
      expect((await changesOf(group.adGroupId)).map((c) => c.operation)).to.deep.equal(['delete']);
    });
  });

  it('a job added before the read model shows its receipt waits for it, so an earlier request of the target still goes first; no sweep needed', async () => {
    const { target, provider, group } = freshAdGroup();
    await b.dispatch!.close();
    // the job waits 200 ms for its receipt at a time, then is tried again; no sweep runs meanwhile
    await b.startWorker({ sweepEveryMs: 3_600_000, shownWithinMs: 200 });
    try {
      await b.projector.stop();
      const first = await b.admit({ target, provider, action: 'update', payload: { defaultBid: 0.41 } });
      const second = await b.admit({ target, provider, action: 'update', payload: { defaultBid: 0.42 } });
      // as admission hands over a later call's receipt while the projector is behind (a backfill keeping it busy)
      await enqueueDispatch(b.dispatch!.queue, [second]);
      await new Promise((resolve) => setTimeout(resolve, 1000));
      expect(await changesOf(group.adGroupId), 'nothing sent while the read model lags').to.deep.equal([]);
      b.projector.start();
      await b.until(second, ['submitted'], 10_000);
      expect((await b.receipt(first)).status).to.equal('submitted');
      expect(
        (await changesOf(group.adGroupId)).map((c) => (c.after as { defaultBid: number }).defaultBid),
        'admission order',
      ).to.deep.equal([0.41, 0.42]);
    } finally {
      await b.dispatch!.close();
      await b.startWorker();
    }
  });

  it('429 storms and 5xx keep the receipt queued; it is submitted in the end and applied exactly once', async () => {
    const { target, provider, group } = freshAdGroup();
    await b.fault({ route: 'PUT /sp/adGroups', kind: '429', times: 4 });
    await b.fault({ route: 'PUT /sp/adGroups', kind: '5xx', status: 503, times: 2 });
    const id = await b.admit({ target, provider, action: 'update', payload: { defaultBid: 0.77 } });
    const r = await b.until(id, ['submitted']);
    expect(r).to.include({ outcome: 'accepted', attempts: 7 });
    const statuses = (await history(id))
      .filter((h) => h.type === 'MutationRetryScheduled')
      .map((h) => h.data.http_status);
    expect(statuses).to.deep.equal([429, 429, 429, 429, 503, 503]);
    const changes = await changesOf(group.adGroupId);
    expect(changes.map((c) => (c.after as { defaultBid: number }).defaultBid)).to.deep.equal([0.77]);
  });

  it('a campaign whose Automation switch is off blocks the request under the lock; switching on does not release it', async () => {
    const { target, provider, group } = freshAdGroup();
    await b.setAutomation(adsEntityId('campaign', b.account, group.profileId, group.campaignId), false);
    await b.caughtUp();
    const id = await b.admit({ target, provider, action: 'update', payload: { state: 'PAUSED' } });
    const r = await b.until(id, ['blocked']);
    expect(r.error).to.deep.include({ code: 'blocked', reason: 'automation_switch_off' });
    await b.setAutomation(adsEntityId('campaign', b.account, group.profileId, group.campaignId), true);
    await b.caughtUp();
    await b.dispatch!.sweep();
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect((await b.receipt(id)).status).to.equal('blocked');
    expect(await changesOf(group.adGroupId)).to.deep.equal([]);
  });

  it('target creations land on the v3 keyword, targeting clause and negative resources, and are archived there', async () => {
    const { group } = freshAdGroup();
    const groupTarget = {
      type: 'AdGroup' as const,
      id: adsEntityId('ad_group', b.account, group.profileId, group.adGroupId),
    };
    const groupProvider = { profileId: group.profileId, campaignId: group.campaignId, adGroupId: group.adGroupId };
    const campaignTarget = {
      type: 'Campaign' as const,
      id: adsEntityId('campaign', b.account, group.profileId, group.campaignId),
    };
    const campaignProvider = { profileId: group.profileId, campaignId: group.campaignId };
    const keyword = (negative: boolean, matchType: string) => ({
      targetType: 'KEYWORD',
      negative,
      state: 'ENABLED',
      targetDetails: { keywordTarget: { keyword: `tea ${matchType} ${negative}`, matchType } },
    });
    const cases = [
      {
        target: groupTarget,
        provider: groupProvider,
        payload: { ...keyword(false, 'EXACT'), bid: { bid: 0.45 } },
        resource: 'keywords',
        kind: 'keyword',
      },
      {
        target: groupTarget,
        provider: groupProvider,
        payload: keyword(true, 'PHRASE'),
        resource: 'negativeKeywords',
        kind: 'negative_keyword',
      },
      {
        target: groupTarget,
        provider: groupProvider,
        payload: {
          targetType: 'PRODUCT',
          negative: false,
          state: 'ENABLED',
          targetDetails: { productTarget: { product: { productId: 'B000000001' }, productIdType: 'ASIN' } },
        },
        resource: 'targets',
        kind: 'target',
      },
      {
        target: groupTarget,
        provider: groupProvider,
        payload: {
          targetType: 'PRODUCT_CATEGORY',
          negative: true,
          state: 'ENABLED',
          targetDetails: { productCategoryTarget: { productCategoryRefinement: { productCategoryId: '12345' } } },
        },
        resource: 'negativeTargets',
        kind: 'negative_target',
      },
      {
        target: campaignTarget,
        provider: campaignProvider,
        payload: keyword(true, 'EXACT'),
        resource: 'campaignNegativeKeywords',
        kind: 'campaign_negative_keyword',
      },
    ];
    for (const c of cases) {
      const id = await b.admit({ target: c.target, provider: c.provider, action: 'create_target', payload: c.payload });
      const r = await b.until(id, ['submitted']);
      expect(r.outcome, `${c.resource}: ${JSON.stringify(r.error)}`).to.equal('accepted');
      const [change] = (await b.adsChanges()).filter((x) => x.id === r.created!.providerId && x.operation === 'create');
      expect(change!.resource).to.equal(c.resource);
      expect(r.created!.id).to.equal(adsEntityId(c.kind as 'keyword', b.account, group.profileId, change!.id));
      // the created target, archived through its own resource
      const archive = await b.admit({
        target: { type: 'Target', id: r.created!.id },
        provider: { ...c.provider, targetId: change!.id, targetKind: c.kind },
        action: 'archive',
        payload: {},
      });
      expect((await b.until(archive, ['submitted'])).outcome).to.equal('accepted');
      const [archived] = (await b.adsChanges()).filter((x) => x.id === change!.id && x.operation === 'delete');
      expect([archived!.resource, (archived!.after as { state: string }).state]).to.deep.equal([
        c.resource,
        'ARCHIVED',
      ]);
    }
    const keywordChange = (await b.adsChanges()).find(
      (x) =>
        x.resource === 'keywords' &&
        x.operation === 'create' &&
        (x.after as { keywordText: string }).keywordText === 'tea EXACT false',
    );
    expect(keywordChange!.after).to.deep.include({ matchType: 'EXACT', bid: 0.45, adGroupId: group.adGroupId });
  });

  describe('creation reconciliation', () => {
    const createGroup = (name: string) => {
      const campaign = campaigns.find((c) => c.targetingType === 'MANUAL')!;
      return {
        target: { type: 'Campaign' as const, id: adsEntityId('campaign', b.account, profileId, campaign.campaignId) },
        provider: { profileId, campaignId: campaign.campaignId },
        action: 'create_ad_group' as const,
        payload: { name, state: 'ENABLED', defaultBid: 0.5 },
      };
    };
    const created = async (name: string) =>
      (await b.adsChanges()).filter(
        (c: AppliedChange) =>
          c.operation === 'create' && c.resource === 'adGroups' && (c.after as { name: string }).name === name,
      );

    it('reply lost, exactly one matching entity appeared: settled accepted with created filled', async () => {
      await b.fault({ route: 'POST /sp/adGroups', kind: 'lost_reply', times: 1 });
      const id = await b.admit(createGroup('Recon one'));
      const r = await settledAfterDoubt(id);
      const [change] = await created('Recon one');
      expect(r).to.include({ outcome: 'accepted', accepted: true });
      expect(r.created).to.deep.equal({
        type: 'AdGroup',
        id: adsEntityId('ad_group', b.account, profileId, change!.id),
        providerId: change!.id,
      });
      expect(r.reconciliation).to.deep.include({ result: 'accepted', attempts: 1 });
    });

    it('no reply and nothing appeared: checked again, absent once 10 minutes of simulated time have passed', async () => {
      await b.fault({ route: 'POST /sp/adGroups', kind: 'timeout', times: 1 });
      const id = await b.admit(createGroup('Recon none'));
      const u = await b.until(id, ['uncertain']);
      expect(u.error!.code).to.equal('timeout');
      await b.dispatch!.sweep();
      const checked = await eventually(async () => {
        const rec = await b.receipt(id);
        return (rec.reconciliation as { attempts?: number }).attempts === 1 ? rec : undefined;
      }, 'the first reconciliation check');
      expect(checked.reconciliation).to.deep.include({ result: 'pending', candidates: [] });
      expect((await b.receipt(id)).status).to.equal('uncertain');
      b.clock.offset += 10 * 60_000;
      await b.dispatch!.sweep();
      const r = await b.until(id, ['submitted']);
      expect(r).to.include({ outcome: 'absent', accepted: false });
      expect(r.reconciliation).to.deep.include({ result: 'absent', attempts: 2 });
      expect(await created('Recon none')).to.deep.equal([]);
    });

    it('reply lost and two matching entities appeared: unresolved with both as candidates', async () => {
      await b.fault({ route: 'POST /sp/adGroups', kind: 'lost_reply', times: 1 });
      // the checks fail until the look-alike exists
      await b.fault({ route: 'POST /sp/adGroups/list', kind: '5xx', status: 503, times: 1_000_000 });
      const spec = createGroup('Recon two');
      const id = await b.admit(spec);
      await b.until(id, ['uncertain']);
      // someone else creates a look-alike before the check
      await clientsFor(b.simulator).ads.sp.create(profileId, 'adGroups', [
        { campaignId: spec.provider.campaignId, name: 'Recon two', state: 'ENABLED', defaultBid: 0.5 },
      ]);
      await fetch(`${b.baseUrl}/_sim/faults`, { method: 'DELETE' });
      await b.dispatch!.sweep();
      const r = await b.until(id, ['unresolved']);
      const made = await created('Recon two');
      expect(made).to.have.length(2);
      expect(
        (r.reconciliation as { candidates: Array<{ providerId: string }> }).candidates.map((c) => c.providerId).sort(),
      ).to.deep.equal(made.map((c) => c.id).sort());
    });

    it('an uncertain creation does not hold back its parent', async () => {
      await b.fault({ route: 'POST /sp/adGroups', kind: 'timeout', times: 1 });
      const spec = createGroup('Recon parent');
      const creation = await b.admit(spec);
      const update = await b.admit({
        target: spec.target,
        provider: spec.provider,
        action: 'update',
        payload: { state: 'ENABLED' },
      });
      await b.until(creation, ['uncertain']);
      expect((await b.until(update, ['submitted'])).outcome).to.equal('accepted');
    });
  });

  it('a receipt left submitting by a sender that died is uncertain on the next pass, never resent', async () => {
    const { target, provider, group } = freshAdGroup();
    // a bid no ad group has: the read-back that follows cannot find it already in place
    const id = await b.admit({ target, provider, action: 'update', payload: { defaultBid: 0.71 } });
    // the sweep could pick it up at once: stop the worker, start the dispatch "by hand", restart
    await b.dispatch!.close();
    const { executeMutationCommand } = await import('../../src/commands/mutation/execute.js');
    await executeMutationCommand(
      { store: b.store, metadata: { actor: { kind: 'worker', id: 'dead' } } },
      { type: 'StartDispatch', receipt_id: id, started_at: new Date(b.clock.now()).toISOString() },
    );
    const before = await requestsTo('PUT', '/sp/adGroups');
    // one job at a time: the first takes the others along (with more jobs than workers, so does any)
    await b.startWorker({ concurrency: 1 });
    const r = await b.until(id, ['uncertain']);
    expect(r.error).to.deep.include({ code: 'interrupted' });
    expect(await requestsTo('PUT', '/sp/adGroups')).to.equal(before);
    expect(await changesOf(group.adGroupId)).to.deep.equal([]);
  });

  it('Redis flushed mid-run: every pending receipt is still dispatched, each exactly once', async () => {
    const targets = Array.from({ length: Math.min(6, adGroups.length - used) }, () => freshAdGroup());
    expect(targets.length).to.be.at.least(3);
    await fetch(`${b.baseUrl}/_sim/latency`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ms: 40 }),
    });
    const ids: Array<{ id: string; group: string; bid: number }> = [];
    for (const [i, t] of targets.entries()) {
      for (const bid of [0.31 + i / 100, 0.61 + i / 100])
        ids.push({
          id: await b.admit({ target: t.target, provider: t.provider, action: 'update', payload: { defaultBid: bid } }),
          group: t.group.adGroupId,
          bid,
        });
    }
    await b.caughtUp();
    await new Promise((resolve) => setTimeout(resolve, 150));
    await deleteKeys(b.redis, `${b.prefix}:*`);
    const pending = await b.db
      .withSchema('rm')
      .table('mutation_receipts')
      .whereIn(
        'id',
        ids.map((x) => x.id),
      )
      .where({ status: 'queued' })
      .count<{ count: string }[]>('* as count');
    expect(Number(pending[0]!.count), 'receipts still queued when Redis was flushed').to.be.greaterThan(0);
    for (const { id } of ids) await b.until(id, ['submitted'], 30000);
    await fetch(`${b.baseUrl}/_sim/latency`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ms: 0 }),
    });
    for (const t of targets) {
      const bids = (await changesOf(t.group.adGroupId)).map((c) => (c.after as { defaultBid: number }).defaultBid);
      // as the marketplace stores them: rounded to the currency's cents
      expect(bids, 'each request applied once, in admission order').to.deep.equal(
        ids.filter((x) => x.group === t.group.adGroupId).map((x) => Number(x.bid.toFixed(2))),
      );
    }
    for (const { id } of ids) expect((await b.receipt(id)).attempts).to.equal(1);
  });
});
