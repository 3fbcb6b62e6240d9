import { expect } from 'chai';
import { marketplaceRequest, matchesCreation, UnsendableReceipt } from '../../src/workers/dispatch/requests.js';

// The request a receipt stands for, and what reconciliation counts as its creation (pure).

const provider = { profileId: '3001', campaignId: '111', adGroupId: '222' };

describe('dispatch requests: receipts onto Listings Items and Sponsored Products v3', () => {
  it('drops derived fields and takes the ids from the target, bids as v3 numbers', () => {
    expect(
      marketplaceRequest({
        target: { type: 'AdGroup', id: 'ag' },
        action: 'update',
        payload: { adGroupId: '222', adProduct: 'SPONSORED_PRODUCTS', defaultBid: 0.5 },
        provider,
      }),
    ).to.deep.equal({
      api: 'sp',
      profileId: '3001',
      resource: 'adGroups',
      operation: 'update',
      item: { adGroupId: '222', defaultBid: 0.5 },
      creates: null,
    });
    expect(
      marketplaceRequest({
        target: { type: 'Target', id: 't' },
        action: 'update',
        payload: { bid: { bid: 0.7 } },
        provider: { ...provider, targetId: '9', targetKind: 'keyword' },
      }),
    ).to.deep.include({
      resource: 'keywords',
      item: { keywordId: '9', bid: 0.7 },
    });
    expect(
      marketplaceRequest({
        target: { type: 'Ad', id: 'a' },
        action: 'archive',
        payload: {},
        provider: { ...provider, adId: '5' },
      }),
    ).to.deep.include({ resource: 'productAds', operation: 'delete', id: '5' });
  });

  it('a creation names its parents and the kind of entity it makes', () => {
    expect(
      marketplaceRequest({
        target: { type: 'AdGroup', id: 'ag' },
        action: 'create_ad',
        payload: { state: 'ENABLED', sku: 'SKU-1' },
        provider,
      }),
    ).to.deep.equal({
      api: 'sp',
      profileId: '3001',
      resource: 'productAds',
      operation: 'create',
      item: { campaignId: '111', adGroupId: '222', state: 'ENABLED', sku: 'SKU-1' },
      creates: 'product_ad',
    });
    const negative = marketplaceRequest({
      target: { type: 'Campaign', id: 'c' },
      action: 'create_target',
      payload: {
        targetType: 'PRODUCT',
        negative: true,
        state: 'ENABLED',
        targetDetails: { productTarget: { product: { productId: 'B000000001' }, productIdType: 'ASIN' } },
      },
      provider,
    });
    expect(negative).to.deep.include({
      resource: 'campaignNegativeTargets',
      creates: 'campaign_negative_target',
      item: { campaignId: '111', expression: [{ type: 'ASIN_SAME_AS', value: 'B000000001' }], state: 'ENABLED' },
    });
  });

  it('a listing patch is sent as admitted', () => {
    const payload = { productType: 'PRODUCT', patches: [{ op: 'delete', path: '/attributes/item_name', value: [] }] };
    expect(
      marketplaceRequest({
        target: { type: 'Listing', id: 'l' },
        action: 'update',
        payload,
        provider: { sku: 'S 1', marketplaceId: 'ATVPDKIKX0DER' },
      }),
    ).to.deep.equal({ api: 'listings', sku: 'S 1', marketplaceId: 'ATVPDKIKX0DER', body: payload });
  });

  it('a receipt without the provider ids its request needs is unsendable', () => {
    expect(() =>
      marketplaceRequest({
        target: { type: 'Target', id: 't' },
        action: 'archive',
        payload: {},
        provider: { profileId: '3001', targetId: '9' },
      }),
    ).to.throw(UnsendableReceipt, 'targetKind');
    expect(() =>
      marketplaceRequest({
        target: { type: 'Listing', id: 'l' },
        action: 'update',
        payload: {},
        provider: { sku: 'S' },
      }),
    ).to.throw(UnsendableReceipt, 'marketplaceId');
  });

  it('reconciliation matches a created entity on its identity fields only', () => {
    const item = {
      campaignId: '111',
      adGroupId: '222',
      keywordText: 'tea',
      matchType: 'EXACT',
      state: 'ENABLED',
      bid: 0.5,
    };
    expect(matchesCreation('keywords', item, { ...item, keywordId: '1', state: 'PAUSED', bid: 0.9 })).to.equal(true);
    expect(matchesCreation('keywords', item, { ...item, keywordId: '2', matchType: 'PHRASE' })).to.equal(false);
    expect(
      matchesCreation('productAds', { adGroupId: '222', sku: 'S' }, { adGroupId: '222', sku: 'S', asin: 'B000000001' }),
    ).to.equal(true);
  });
});
