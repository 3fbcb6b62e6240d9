import { expect } from 'chai';
import { contains, patchedAttributes, showsAdsChange, showsListingPatches } from '../../src/workers/dispatch/verify.js';

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
});
