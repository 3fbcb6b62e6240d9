import { expect } from 'chai';
import { outboxOverLimit, readPush, valueOf } from '../../src/runtime/outbox/pushes.js';

// What the outbox checks before any read: the run's limits over the whole outbox, each push's
// shape, and the amount an action shows.
describe('automation outbox: pushes', () => {
  const push = (
    payload: Record<string, unknown> = { state: 'PAUSED' },
    target: unknown = { type: 'Campaign', id: 'c' },
  ) => ({
    target,
    action: 'update',
    payload,
  });

  it('limits: requests, payload bytes and output bytes, a target counting as its type and id', () => {
    expect(outboxOverLimit(Array.from({ length: 50 }, () => push()))).to.equal(null);
    expect(outboxOverLimit(Array.from({ length: 51 }, () => push()))).to.contain('at most 50');
    expect(outboxOverLimit([push({ name: 'x'.repeat(100_000) })])).to.contain('at most 100000');
    const big = { type: 'Listing', id: 'l', data: 'y'.repeat(600_000) };
    expect(outboxOverLimit([push({ state: 'PAUSED' }, big)])).to.equal(null);
    expect(outboxOverLimit([{ ...push(), action: 'z'.repeat(500_000) }])).to.contain('at most 500000');
    expect(outboxOverLimit('nope')).to.equal('context.mutations is not an array');
  });

  it('shapes: a request, invalid output with why, or a campaign not synced (dropped)', () => {
    expect(readPush(push(), 0)).to.deep.equal({ request: push() });
    expect(readPush(null, 1)).to.include({
      invalid: 'context.mutations[1] is not an object { target, action, payload }',
    });
    expect(readPush(push(undefined, { type: 'Campaign', id: null }), 2)).to.deep.equal({
      dropped: 'campaign not synced yet (its id is null)',
      target: { type: 'Campaign', id: null },
    });
    expect(readPush(push(undefined, { type: 'AdGroup', id: null }), 3)).to.have.property('invalid');
    expect(readPush({ ...push(), payload: [] }, 4)).to.include({
      invalid: 'context.mutations[4].payload must be an object (an empty one for archive)',
    });
    expect(readPush({ ...push(), action: 7 }, 5)).to.include({
      invalid: 'context.mutations[5].action must be a string',
    });
  });

  it('value: the price, budget or bid the request sets, as written (major units)', () => {
    const offer = {
      productType: 'PRODUCT',
      patches: [
        { op: 'replace', path: '/attributes/item_name', value: [{ value: 'x' }] },
        {
          op: 'merge',
          path: '/attributes/purchasable_offer',
          value: [
            {
              marketplace_id: 'm',
              currency: 'JPY',
              audience: 'ALL',
              our_price: [{ schedule: [{ value_with_tax: 1980 }] }],
            },
          ],
        },
      ],
    };
    expect(valueOf({ payload: offer })).to.equal(1980);
    expect(valueOf({ payload: { budget: { budget: 50, budgetType: 'DAILY' } } })).to.equal(50);
    expect(valueOf({ payload: { defaultBid: 0.75 } })).to.equal(0.75);
    expect(valueOf({ payload: { bid: { bid: 0.9 } } })).to.equal(0.9);
    expect(valueOf({ payload: { state: 'PAUSED' } })).to.equal(null);
  });
});
