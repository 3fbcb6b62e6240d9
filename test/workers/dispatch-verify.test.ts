import { expect } from 'chai';
import {
  contains,
  patchedAttributes,
  priorsAlong,
  showsAdsChange,
  showsListingPatches,
  standingPatches,
} from '../../src/workers/dispatch/verify.js';

// Whether a target read back shows an uncertain change (pure): containment of every requested
// value, numbers by value, and nothing else required.

const US = 'ATVPDKIKX0DER';
const offer = (price: number, audience = 'ALL') => ({
  marketplace_id: US,
  currency: 'USD',
  audience,
  our_price: [{ schedule: [{ value_with_tax: price }] }],
});

describe('dispatch verification: does the target show the change?', () => {
  it('containment: scalars equal (numbers by value, decimal strings too), keys held, array elements held by some element', () => {
    expect(
      contains(
        { state: 'PAUSED', budget: { budget: 50 } },
        { state: 'PAUSED', name: 'x', budget: { budget: 50.0, budgetType: 'DAILY' } },
      ),
    ).to.equal(true);
    expect(contains({ defaultBid: '0.50' }, { defaultBid: 0.5 })).to.equal(true);
    expect(contains({ defaultBid: 0.51 }, { defaultBid: 0.5 })).to.equal(false);
    expect(contains({ state: 'PAUSED' }, { state: 'ENABLED' })).to.equal(false);
    expect(contains({ name: 'a' }, {})).to.equal(false);
    expect(contains([{ a: 1 }, { b: 2 }], [{ b: 2, c: 3 }, { a: 1 }])).to.equal(true);
    expect(contains([{ a: 1 }], [{ a: 2 }])).to.equal(false);
    expect(contains('1', 'one')).to.equal(false);
    expect(contains('0123', '123'), 'two strings are text, never numbers').to.equal(false);
    expect(contains(null, undefined)).to.equal(true);
    expect(contains([{ a: 1 }], [{ a: 1 }, { b: 2 }]), 'a replaced list has no other elements').to.equal(false);
    expect(contains([{ a: 1 }], [{ a: 1 }, { b: 2 }], false), 'unless only held values count').to.equal(true);
  });

  it('an ads update shows when every field it sets is on the entity; its id is not a field', () => {
    const request = {
      api: 'sp',
      profileId: '1',
      resource: 'adGroups',
      operation: 'update',
      item: { adGroupId: '9', defaultBid: 0.77, state: 'PAUSED' },
      creates: null,
    } as const;
    expect(
      showsAdsChange(request, { adGroupId: '9', campaignId: '3', name: 'G', defaultBid: 0.77, state: 'PAUSED' }),
    ).to.equal(true);
    expect(showsAdsChange(request, { adGroupId: '9', defaultBid: 0.77, state: 'ENABLED' })).to.equal(false);
    expect(showsAdsChange(request, null), 'no such entity').to.equal(false);
  });

  it('an archive shows when the entity is ARCHIVED', () => {
    const request = {
      api: 'sp',
      profileId: '1',
      resource: 'keywords',
      operation: 'delete',
      id: '7',
      creates: null,
    } as const;
    expect(showsAdsChange(request, { keywordId: '7', state: 'ARCHIVED' })).to.equal(true);
    expect(showsAdsChange(request, { keywordId: '7', state: 'ENABLED' })).to.equal(false);
  });

  it('listing patches: each value held by its attribute; a deleted value gone; the whole request or nothing', () => {
    const attributes = {
      purchasable_offer: [offer(19.99), offer(17.5, 'B2B')],
      fulfillment_availability: [{ fulfillment_channel_code: 'DEFAULT', quantity: 4, marketplace_id: US }],
    };
    const replace = { op: 'replace' as const, path: '/attributes/purchasable_offer', value: [offer(19.99)] };
    expect(
      showsListingPatches({ productType: 'PRODUCT', patches: [replace] }, attributes),
      'a replace leaves no offer it does not name',
    ).to.equal(false);
    expect(
      showsListingPatches({ productType: 'PRODUCT', patches: [replace] }, { purchasable_offer: [offer(19.99)] }),
    ).to.equal(true);
    expect(
      showsListingPatches({ productType: 'PRODUCT', patches: [{ ...replace, op: 'merge' }] }, attributes),
      'a merge may leave the others',
    ).to.equal(true);
    expect(
      showsListingPatches(
        { productType: 'PRODUCT', patches: [{ ...replace, value: [offer(21), offer(17.5, 'B2B')] }] },
        attributes,
      ),
    ).to.equal(false);
    const bullets = (...b: string[]) => b.map((value) => ({ value, marketplace_id: US }));
    expect(
      showsListingPatches(
        {
          productType: 'PRODUCT',
          patches: [{ op: 'replace', path: '/attributes/bullet_point', value: bullets('A', 'B') }],
        },
        { bullet_point: bullets('A', 'B', 'C') },
      ),
      'C would be gone',
    ).to.equal(false);
    const quantity = {
      op: 'replace' as const,
      path: '/attributes/fulfillment_availability',
      value: [{ fulfillment_channel_code: 'DEFAULT', quantity: 5 }],
    };
    expect(
      showsListingPatches(
        { productType: 'PRODUCT', patches: [{ ...replace, value: [offer(19.99), offer(17.5, 'B2B')] }, quantity] },
        attributes,
      ),
      'one of two not applied',
    ).to.equal(false);
    const dropB2b = {
      op: 'delete' as const,
      path: '/attributes/purchasable_offer',
      value: [{ marketplace_id: US, audience: 'B2B' }],
    };
    expect(showsListingPatches({ productType: 'PRODUCT', patches: [dropB2b] }, attributes)).to.equal(false);
    expect(
      showsListingPatches({ productType: 'PRODUCT', patches: [dropB2b] }, { purchasable_offer: [offer(19.99)] }),
    ).to.equal(true);
    expect(
      showsListingPatches(
        { productType: 'PRODUCT', patches: [{ op: 'delete', path: '/attributes/merchant_shipping_group' }] },
        attributes,
      ),
      'a whole attribute deleted',
    ).to.equal(true);
    expect(showsListingPatches({ productType: 'PRODUCT', patches: [replace] }, null), 'no such listing').to.equal(
      false,
    );
  });

  it('records only the attributes the patches name', () => {
    expect(
      patchedAttributes(
        {
          productType: 'PRODUCT',
          patches: [{ op: 'replace', path: '/attributes/item_name', value: [{ value: 'Tea' }] }],
        },
        { item_name: [{ value: 'Tea' }], condition_type: [{ value: 'new_new' }] },
      ),
    ).to.deep.equal({ item_name: [{ value: 'Tea' }] });
    expect(patchedAttributes({ productType: 'PRODUCT', patches: [] }, null)).to.equal(null);
  });

  describe("one SKU's patch documents sent in one call", () => {
    const doc = (
      ...patches: Array<{ op: 'add' | 'replace' | 'merge' | 'delete'; path: string; value?: unknown[] }>
    ) => ({
      productType: 'PRODUCT',
      patches,
    });
    const price = (p: number) => ({ op: 'replace' as const, path: '/attributes/purchasable_offer', value: [offer(p)] });
    const title = { op: 'replace' as const, path: '/attributes/item_name', value: [{ value: 'Tea' }] };

    it("each one's prior is the read for what none before it names, the value an earlier replace set otherwise", () => {
      const read = { purchasable_offer: [offer(9)], item_name: [{ value: 'Old' }] };
      expect(priorsAlong([doc(price(10)), doc(title), doc(price(11))], read)).to.deep.equal([
        { purchasable_offer: [offer(9)] },
        { item_name: [{ value: 'Old' }] },
        { purchasable_offer: [offer(10)] },
      ]);
      expect(priorsAlong([doc(price(10))], null)).to.deep.equal([null]);
    });

    it("a merge sets its keys on the value its selectors pick, as the next one's prior; a merged value without selectors, an add or a delete leaves a later prior untold", () => {
      const floor = { ...offer(9), minimum_seller_allowed_price: [{ schedule: [{ value_with_tax: 5 }] }] };
      const merge = (p: number) => ({ op: 'merge' as const, path: '/attributes/purchasable_offer', value: [offer(p)] });
      expect(
        priorsAlong([doc(merge(10)), doc(merge(11))], { purchasable_offer: [floor, offer(20, 'B2B')] }),
      ).to.deep.equal([
        { purchasable_offer: [floor, offer(20, 'B2B')] },
        { purchasable_offer: [{ ...floor, our_price: offer(10).our_price }, offer(20, 'B2B')] },
      ]);
      const bare = { op: 'merge' as const, path: '/attributes/item_name', value: [{ value: 'Tea' }] };
      const add = { op: 'add' as const, path: '/attributes/purchasable_offer', value: [offer(10)] };
      const remove = { op: 'delete' as const, path: '/attributes/purchasable_offer', value: [offer(10, 'B2B')] };
      expect(priorsAlong([doc(bare), doc(title)], {}).at(-1)).to.equal(undefined);
      expect(priorsAlong([doc(add), doc(title), doc(price(11))], {})).to.deep.equal([
        { purchasable_offer: null },
        { item_name: null },
        undefined,
      ]);
      expect(priorsAlong([doc(remove), doc(price(11))], {}).at(-1)).to.equal(undefined);
    });

    it('what stands at the end: a patch a later replace of its attribute overwrites is not looked for', () => {
      expect(standingPatches([doc(price(10)), doc(title), doc(price(11))]).patches).to.deep.equal([title, price(11)]);
      const shown = { purchasable_offer: [offer(11)], item_name: [{ value: 'Tea' }] };
      expect(showsListingPatches(standingPatches([doc(price(10)), doc(price(11))]), shown)).to.equal(true);
      expect(showsListingPatches(standingPatches([doc(price(11)), doc(price(10))]), shown)).to.equal(false);
      const merge = (p: number, audience = 'ALL') => ({
        op: 'merge' as const,
        path: '/attributes/purchasable_offer',
        value: [offer(p, audience)],
      });
      // a merge picking the same offer overwrites; one picking another offer does not
      expect(standingPatches([doc(merge(10)), doc(merge(11))]).patches).to.deep.equal([merge(11)]);
      expect(standingPatches([doc(merge(10, 'B2B')), doc(merge(11))]).patches).to.deep.equal([
        merge(10, 'B2B'),
        merge(11),
      ]);
    });
  });
});
