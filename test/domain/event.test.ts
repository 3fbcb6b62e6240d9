import { expect } from 'chai';
import { marketplaceEventDecider, type MarketplaceEventCommand } from '../../src/domain/event/decide.js';
import type { MarketplaceEvent } from '../../src/domain/event/events.js';
import { identitiesOf, NO_IDENTITY } from '../../src/domain/event/identities.js';
import { readMessage } from '../../src/domain/event/message.js';
import { given } from '../support/gwt.js';

// A pushed message is recorded once; what it is and what it names are read from its own keys.

const data = {
  account_id: '5d1f4e1a-8a43-4f51-9d2a-6f1f1f1f1f1f',
  message_id: '3bc26a7d-ddfb-47e4-bef8-b1023a4eca9c',
  stream_type: 'ANY_OFFER_CHANGED',
  source: 'selling' as const,
  occurred_at: '2026-11-25T12:00:00.000Z',
  received_at: '2026-11-25T12:00:01.000Z',
  payload: { NotificationType: 'ANY_OFFER_CHANGED' },
};
const record: MarketplaceEventCommand = { type: 'RecordMarketplaceEvent', ...data };
const received: MarketplaceEvent = { type: 'MarketplaceEventReceived', data };
const RECEIVED = '2026-11-25T12:00:01.000Z';

describe('marketplace event decider and message reading', () => {
  it('the first delivery records the message', () => given(marketplaceEventDecider, []).when(record).then([received]));
  it('a later delivery of the same message records nothing', () =>
    given(marketplaceEventDecider, [received]).when(record).then([]));

  it('reads PascalCase and camelCase envelopes and stream rows: type, source, occurred_at', () => {
    expect(
      readMessage({ NotificationType: 'ORDER_CHANGE', EventTime: '2026-11-25T10:00:00Z' }, RECEIVED),
    ).to.deep.equal({
      stream_type: 'ORDER_CHANGE',
      source: 'selling',
      occurred_at: '2026-11-25T10:00:00.000Z',
    });
    expect(readMessage({ notificationType: 'REPORT_PROCESSING_FINISHED' }, RECEIVED)).to.deep.equal({
      stream_type: 'REPORT_PROCESSING_FINISHED',
      source: 'selling',
      occurred_at: RECEIVED,
    });
    expect(
      readMessage({ dataset_id: 'sp-traffic', time_window_start: '2026-11-25T09:00:00Z' }, RECEIVED),
    ).to.deep.equal({ stream_type: 'SP_TRAFFIC', source: 'ads', occurred_at: '2026-11-25T09:00:00.000Z' });
    expect(
      readMessage({ datasetId: 'campaigns', audit: { lastUpdatedDateTime: '2026-11-25T08:00:00Z' } }, RECEIVED),
    ).to.deep.include({ stream_type: 'CAMPAIGN_CHANGE', occurred_at: '2026-11-25T08:00:00.000Z' });
  });

  it('refuses what is no known type, naming it', () => {
    expect(readMessage([], RECEIVED)).to.deep.equal({ refused: 'the body is not a JSON object' });
    expect(readMessage({ NotificationType: 'SELLING_REPORT_COMPLETED' }, RECEIVED))
      .to.have.property('refused')
      .that.match(/'SELLING_REPORT_COMPLETED' is no selling event type/);
    expect(readMessage({ dataset_id: 'nope' }, RECEIVED))
      .to.have.property('refused')
      .that.match(/'nope'/);
    expect(readMessage({ hello: 1 }, RECEIVED)).to.deep.equal({
      refused: 'neither a notification type nor a dataset id',
    });
  });

  it('names the listings of selling payloads and the entities of stream rows', () => {
    const id = (o: object) => ({ ...NO_IDENTITY, ...o });
    expect(
      identitiesOf('ORDER_CHANGE', {
        Payload: {
          OrderChangeNotification: {
            Summary: { MarketplaceId: 'M', OrderItems: [{ SellerSKU: 'A' }, { SellerSKU: 'B' }, { SellerSKU: 'A' }] },
          },
        },
      }),
    ).to.deep.equal([id({ sku: 'A', marketplace_id: 'M' }), id({ sku: 'B', marketplace_id: 'M' })]);
    expect(
      identitiesOf('PRICING_HEALTH', { payload: { offerChangeTrigger: { asin: 'B0', marketplaceId: 'M' } } }),
    ).to.deep.equal([id({ asin: 'B0', marketplace_id: 'M' })]);
    expect(identitiesOf('ACCOUNT_STATUS_CHANGED', { payload: {} })).to.deep.equal([]);
    expect(
      identitiesOf('AD_CHANGE', {
        datasetId: 'ads',
        marketplaceId: 'M',
        campaignId: 'c',
        adGroupId: 'g',
        adId: 'a',
        creative: { products: [{ productIdType: 'ASIN', productId: 'B1' }] },
      }),
    ).to.deep.equal([id({ asin: 'B1', marketplace_id: 'M', campaign_id: 'c', ad_group_id: 'g', ad_id: 'a' })]);
    expect(
      identitiesOf('BUDGET_USAGE', { budgetScopeType: 'CAMPAIGN', budgetScopeId: 496818010717551, marketplaceId: 'M' }),
    ).to.deep.equal([id({ campaign_id: '496818010717551', marketplace_id: 'M' })]);
    expect(identitiesOf('SP_TRAFFIC', { campaign_id: 'c', keyword_id: 'k', marketplace_id: 'M' })).to.deep.equal([
      id({ campaign_id: 'c', target_id: 'k', marketplace_id: 'M' }),
    ]);
  });
});
