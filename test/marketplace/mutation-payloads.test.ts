import { expect } from 'chai';
import { DERIVED_FIELDS, PAYLOADS } from '../../src/domain/mutation/payloads.js';
import type { SpResource } from '../../src/marketplace/clients/ads-sp-types.js';
import type { Simulator } from '../../src/marketplace/simulator/app.js';
import { clientsFor, startSimulator } from '../support/marketplace.js';

// The campaign, ad group and ad payloads of get_mutation_schema are the Sponsored Products v3
// objects themselves: a payload our schema admits, with the derived ids added, is applied by
// the marketplace (the simulator, through the real client) without an error item.
describe('mutation payloads speak Sponsored Products v3', function () {
  let simulator: Simulator;
  let ads: ReturnType<typeof clientsFor>['ads'];
  let profileId: string;

  before(async () => {
    ({ simulator } = await startSimulator({ seed: 5 }));
    ({ ads } = clientsFor(simulator));
    profileId = String(simulator.seller.profiles.find((p) => p.countryCode === 'US')!.profileId);
  });
  after(() => simulator.close());

  /** admitted by our schema, then sent as the dispatcher will: derived fields replaced by the target's ids */
  const wire = (
    schema: keyof typeof PAYLOADS,
    action: string,
    payload: Record<string, unknown>,
    ids: Record<string, string>,
  ) => {
    const parsed = PAYLOADS[schema]![action as 'update']!.safeParse(payload);
    expect(parsed.success, JSON.stringify(parsed.error?.issues)).to.equal(true);
    return { ...Object.fromEntries(Object.entries(payload).filter(([k]) => !DERIVED_FIELDS.includes(k))), ...ids };
  };
  const applied = async (operation: 'create' | 'update', resource: SpResource, item: object) => {
    const result = await ads.sp[operation](profileId, resource, [item]);
    expect(result.error, JSON.stringify(result.raw)).to.deep.equal([]);
    expect(result.success).to.have.length(1);
    return result.success[0]!.id;
  };

  it('creates a campaign, an ad group in it and an ad in that, then updates each', async () => {
    const sku = (await ads.sp.list(profileId, 'productAds')).items[0]!.sku!;
    const campaignId = await applied(
      'create',
      'campaigns',
      wire(
        'AdvertisingProfile',
        'create_campaign',
        {
          name: 'Receipt test',
          targetingType: 'MANUAL',
          state: 'ENABLED',
          budget: { budget: 25, budgetType: 'DAILY' },
          adProduct: 'SPONSORED_PRODUCTS',
        },
        {},
      ),
    );
    const adGroupId = await applied(
      'create',
      'adGroups',
      wire('Campaign', 'create_ad_group', { name: 'Exact', state: 'ENABLED', defaultBid: 0.75 }, { campaignId }),
    );
    const adId = await applied(
      'create',
      'productAds',
      wire('AdGroup', 'create_ad', { state: 'ENABLED', sku }, { campaignId, adGroupId }),
    );
    await applied(
      'update',
      'campaigns',
      wire(
        'Campaign',
        'update',
        { state: 'PAUSED', budget: { budget: 30.5, budgetType: 'DAILY' }, name: 'Receipt test 2' },
        { campaignId },
      ),
    );
    await applied('update', 'adGroups', wire('AdGroup', 'update', { defaultBid: 0.9, state: 'PAUSED' }, { adGroupId }));
    await applied('update', 'productAds', wire('Ad', 'update', { state: 'PAUSED' }, { adId }));
    const [campaign] = (await ads.sp.list(profileId, 'campaigns', { campaignIdFilter: { include: [campaignId] } }))
      .items;
    expect(campaign).to.deep.include({
      name: 'Receipt test 2',
      state: 'PAUSED',
      budget: { budget: 30.5, budgetType: 'DAILY' },
    });
  });
});
