import { expect } from 'chai';
import { planRevert, revertOf, type RevertSource, type TargetNow } from '../../src/domain/revert/plan.js';

// The pure plan of a revert: which receipts can be undone, the change restoring each one's prior
// value, and a target changed since left alone unless overwritten.

const LISTING = { type: 'Listing' as const, id: 'listing-1' };
const offer = (price: number) => [
  { marketplace_id: 'US', currency: 'USD', audience: 'ALL', our_price: [{ schedule: [{ value_with_tax: price }] }] },
];
const priceChange = (id: string, at: string, from: number, to: number): RevertSource => ({
  id,
  target: LISTING,
  action: 'update',
  payload: {
    productType: 'PRODUCT',
    patches: [{ op: 'merge', path: '/attributes/purchasable_offer', value: offer(to) }],
  },
  status: 'submitted',
  outcome: 'accepted',
  created: null,
  created_at: at,
  applied_at: at,
  prior: { purchasable_offer: offer(from) },
  reverted_by: null,
});
const shows = (current: unknown): Map<string, TargetNow> => new Map([['Listing:listing-1', { shows: true, current }]]);
const unreadWith = (observed: { shows: boolean; current: unknown; observed_at: string } | null) =>
  new Map<string, TargetNow>([['Listing:listing-1', { unread: 'HTTP 503', observed }]]);

describe('revert plan', () => {
  it('a listing change is reverted by replacing each attribute it named with the value it replaced; caused_by names it', () => {
    expect(revertOf(priceChange('r1', '2026-05-01T00:00:00Z', 10, 8))).to.deep.equal({
      target: LISTING,
      action: 'update',
      payload: {
        productType: 'PRODUCT',
        patches: [{ op: 'replace', path: '/attributes/purchasable_offer', value: offer(10) }],
      },
      reverts: 'r1',
    });
  });

  it('an ads update restores the fields it named, a bid in its payload shape; a creation archives what it created', () => {
    const bid: RevertSource = {
      ...priceChange('r2', '2026-05-01T00:00:00Z', 0, 0),
      target: { type: 'Target', id: 't1' },
      payload: { bid: { bid: 0.9 } },
      prior: { bid: 0.5 },
    };
    expect(revertOf(bid)).to.deep.include({ action: 'update', payload: { bid: { bid: 0.5 } }, reverts: 'r2' });
    const creation: RevertSource = {
      ...bid,
      id: 'r3',
      target: { type: 'Campaign', id: 'c1' },
      action: 'create_ad_group',
      created: { type: 'AdGroup', id: '0190a2b4-0000-7000-8000-000000000001', providerId: '42' },
    };
    expect(revertOf(creation)).to.deep.equal({
      target: { type: 'AdGroup', id: '0190a2b4-0000-7000-8000-000000000001' },
      action: 'archive',
      payload: {},
      reverts: 'r3',
    });
  });

  it('refuses, saying why: an archive, a change not applied, one with no recorded prior value, one reverted already', () => {
    const base = priceChange('r1', '2026-05-01T00:00:00Z', 10, 8);
    expect(revertOf({ ...base, action: 'archive' })).to.deep.include({ result: 'not_revertible' });
    expect((revertOf({ ...base, action: 'archive' }) as { detail: string }).detail).to.include('archive is permanent');
    expect(revertOf({ ...base, outcome: 'rejected' })).to.deep.include({ result: 'not_revertible' });
    const { prior: _, ...unread } = base;
    expect((revertOf(unread) as { detail: string }).detail).to.include('was not recorded');
    expect(revertOf({ ...base, reverted_by: 'r9' })).to.deep.include({ result: 'already_reverted', reverted_by: 'r9' });
  });

  it("a target's changes revert newest first (it ends at the oldest one's prior value) when it still shows the latest", () => {
    const older = priceChange('r1', '2026-05-01T00:00:00Z', 10, 8);
    const newer = priceChange('r2', '2026-05-02T00:00:00Z', 8, 7);
    const { items, requests } = planRevert([older, newer], shows(offer(7)), false);
    expect(items.map((i) => i.result)).to.deep.equal(['revert', 'revert']);
    expect(requests.map((r) => r.reverts)).to.deep.equal(['r2', 'r1']);
    expect(requests[1]!.payload.patches).to.deep.equal([
      { op: 'replace', path: '/attributes/purchasable_offer', value: offer(10) },
    ]);
  });

  it('a target changed since is a conflict and nothing on it is reverted, unless overwrite; an unread one is unverified', () => {
    const change = priceChange('r1', '2026-05-01T00:00:00Z', 10, 8);
    const changed = new Map<string, TargetNow>([['Listing:listing-1', { shows: false, current: offer(9) }]]);
    const left = planRevert([change], changed, false);
    expect(left.requests).to.deep.equal([]);
    expect(left.items[0]).to.deep.include({ result: 'conflict', current: offer(9), checked_by: 'live_read' });
    expect(planRevert([change], new Map(), true).requests.map((r) => r.reverts)).to.deep.equal(['r1']);
    expect(planRevert([change], new Map(), true).items[0]).to.not.have.property('checked_by');
    expect(planRevert([change], shows(offer(8)), false).items[0]).to.deep.include({
      result: 'revert',
      checked_by: 'live_read',
    });
    const unread = planRevert([change], unreadWith(null), false);
    expect(unread.items[0]).to.deep.include({ result: 'unverified' });
    expect(unread.requests).to.deep.equal([]);
    expect((unread.items[0] as { detail: string }).detail)
      .to.include('HTTP 503')
      .and.include('no observation');
  });

  it('unread live, a target is checked against its latest observation when that was made after every change on it was applied', () => {
    const older = priceChange('r1', '2026-05-01T00:00:00Z', 10, 8);
    const newer = priceChange('r2', '2026-05-02T00:00:00Z', 8, 7);
    const after = '2026-05-02T00:00:01Z';
    // it shows the latest change's value: reverted, saying how it was checked
    const matching = planRevert(
      [older, newer],
      unreadWith({ shows: true, current: offer(7), observed_at: after }),
      false,
    );
    expect(matching.requests.map((r) => r.reverts)).to.deep.equal(['r2', 'r1']);
    expect(matching.items[0]).to.deep.include({ result: 'revert', checked_by: 'observation', observed_at: after });
    expect((matching.items[0] as { detail: string }).detail)
      .to.include(after)
      .and.include('HTTP 503');
    // it shows something else: a conflict with what it showed
    const changed = planRevert(
      [older, newer],
      unreadWith({ shows: false, current: offer(9), observed_at: after }),
      false,
    );
    expect(changed.requests).to.deep.equal([]);
    expect(changed.items.map((i) => i.result)).to.deep.equal(['conflict', 'conflict']);
    expect(changed.items[1]).to.deep.include({ current: offer(9), checked_by: 'observation', observed_at: after });
    // an observation made before the latest change was applied (or at that instant) may not show it yet
    for (const observed_at of ['2026-05-01T12:00:00Z', '2026-05-02T00:00:00Z']) {
      const early = planRevert([older, newer], unreadWith({ shows: false, current: offer(8), observed_at }), false);
      expect(early.requests).to.deep.equal([]);
      expect(early.items.map((i) => i.result)).to.deep.equal(['unverified', 'unverified']);
      expect((early.items[0] as { detail: string }).detail).to.include(`latest observation (${observed_at})`);
      expect(early.items[0]).to.not.have.property('checked_by');
    }
    // the latest change applied late (its answer recorded after a lost reply was settled): its time counts, not its admission's
    const late = { ...newer, applied_at: '2026-05-03T00:00:00Z' };
    expect(
      planRevert([older, late], unreadWith({ shows: true, current: offer(7), observed_at: after }), false).items[1],
    ).to.deep.include({ result: 'unverified' });
  });
});
