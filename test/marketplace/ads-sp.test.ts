import { expect } from 'chai';
import { SP_RESOURCE_NAMES, type SpCampaign } from '../../src/marketplace/clients/ads-sp-types.js';
import { MarketplaceError } from '../../src/marketplace/clients/errors.js';
import type { Simulator } from '../../src/marketplace/simulator/app.js';
import type { AppliedChange } from '../../src/marketplace/simulator/ads/sp-state.js';
import {
  clientsFor,
  injectFault,
  rejectionOf,
  requestsTo,
  resetSimulator,
  startSimulator,
} from '../support/marketplace.js';

// Sponsored Products v3 through the real ads client against the simulator over HTTP: the
// entity lists with their wire shapes, paging and filters, and the 207 create/update/delete.
describe('ads API: Sponsored Products v3 entities', function () {
  let simulator: Simulator;
  let baseUrl: string;
  let ads: ReturnType<typeof clientsFor>['ads'];
  const profileIn = (country: string) =>
    String(simulator.seller.profiles.find((p) => p.countryCode === country)!.profileId);

  before(async () => {
    ({ simulator, baseUrl } = await startSimulator({ seed: 11 }));
    ({ ads } = clientsFor(simulator));
  });
  after(() => simulator.close());
  beforeEach(() => resetSimulator(baseUrl));

  const all = async <R extends (typeof SP_RESOURCE_NAMES)[number]>(profileId: string, resource: R) => {
    const items = [];
    for await (const page of ads.sp.pages(profileId, resource, {
      stateFilter: { include: ['ENABLED', 'PAUSED', 'ARCHIVED'] },
    }))
      items.push(...page);
    return items;
  };

  it('lists every resource with its vendor media type, the client id and the profile as scope', async () => {
    const us = profileIn('US');
    for (const resource of SP_RESOURCE_NAMES) {
      const { items } = await ads.sp.list(us, resource);
      expect(items, resource).to.not.be.empty;
    }
    const [sent] = await requestsTo(baseUrl, 'POST', '/sp/campaigns/list');
    expect(sent!.headers['content-type']).to.equal('application/vnd.spCampaign.v3+json');
    expect(sent!.headers['accept']).to.equal('application/vnd.spCampaign.v3+json');
    expect(sent!.headers['amazon-advertising-api-scope']).to.equal(us);
    expect(sent!.headers['amazon-advertising-api-clientid']).to.equal('simulator-client');
    const [targets] = await requestsTo(baseUrl, 'POST', '/sp/targets/list');
    expect(targets!.headers['content-type']).to.equal('application/vnd.spTargetingClause.v3+json');
  });

  it('a few campaigns per profile, in every state, advertising SKUs of the catalog in that marketplace', async () => {
    for (const profile of simulator.seller.profiles) {
      const id = String(profile.profileId);
      const campaigns = await all(id, 'campaigns');
      expect(campaigns.length).to.be.within(3, 10);
      expect(new Set(campaigns.map((c) => c.state))).to.deep.equal(new Set(['ENABLED', 'PAUSED', 'ARCHIVED']));
      const productAds = await all(id, 'productAds');
      expect(productAds).to.not.be.empty;
      for (const ad of productAds) {
        const listing = simulator.catalog.findListing(ad.sku!, profile.accountInfo.marketplaceStringId);
        expect(listing, `${ad.sku} in ${profile.countryCode}`).to.not.equal(undefined);
        expect(ad.asin).to.equal(listing!.asin);
        expect(campaigns.map((c) => c.campaignId)).to.include(ad.campaignId);
      }
    }
  });

  it('targets carry keywords, auto buckets, product and category targets, and exclusions at both levels', async () => {
    const us = profileIn('US');
    const targets = await all(us, 'targets');
    const predicates = new Set(targets.flatMap((t) => t.expression.map((e) => e.type)));
    for (const p of [
      'QUERY_HIGH_REL_MATCHES',
      'QUERY_BROAD_REL_MATCHES',
      'ASIN_SUBSTITUTE_RELATED',
      'ASIN_ACCESSORY_RELATED',
      'ASIN_SAME_AS',
      'ASIN_CATEGORY_SAME_AS',
    ]) {
      expect(predicates, p).to.include(p);
    }
    expect(
      targets.filter((t) => t.expressionType === 'AUTO').every((t) => t.expression[0]!.value === undefined),
    ).to.equal(true);
    const keywords = await all(us, 'keywords');
    expect(new Set(keywords.map((k) => k.matchType))).to.deep.equal(new Set(['EXACT', 'PHRASE', 'BROAD']));
    expect(
      (await all(us, 'negativeKeywords')).every((k) => k.matchType.startsWith('NEGATIVE_') && k.adGroupId),
    ).to.equal(true);
    expect(await all(us, 'negativeTargets')).to.not.be.empty;
    expect((await all(us, 'campaignNegativeKeywords'))[0]).to.not.have.property('adGroupId');
    expect(await all(us, 'campaignNegativeTargets')).to.not.be.empty;
  });

  it('money is in major units of the profile currency: whole yen in JP, cents in US', async () => {
    const jp = await all(profileIn('JP'), 'campaigns');
    expect(jp.every((c) => Number.isInteger(c.budget.budget))).to.equal(true);
    const us = await all(profileIn('US'), 'adGroups');
    expect(
      us.some((g) => !Number.isInteger(g.defaultBid)),
      'some US bids have cents',
    ).to.equal(true);
    expect(
      (await all(profileIn('JP'), 'adGroups')).every((g) => Number.isInteger(g.defaultBid) && g.defaultBid >= 2),
    ).to.equal(true);
  });

  it('pages with maxResults and nextToken, each entity exactly once', async () => {
    const us = profileIn('US');
    const everything = await all(us, 'targets');
    const first = await ads.sp.list(us, 'targets', { maxResults: 3 });
    expect(first.items).to.have.length(3);
    expect(first.totalResults).to.equal(everything.length);
    const paged = [];
    for await (const page of ads.sp.pages(us, 'targets', { maxResults: 3 })) {
      expect(page.length).to.be.at.most(3);
      paged.push(...page);
    }
    expect(paged.map((t) => t.targetId)).to.deep.equal(everything.map((t) => t.targetId));
    expect(new Set(paged.map((t) => t.targetId)).size).to.equal(paged.length);
  });

  it('filters by state, ids and parents', async () => {
    const us = profileIn('US');
    const campaigns = await all(us, 'campaigns');
    const paused = await ads.sp.list(us, 'campaigns', { stateFilter: { include: ['PAUSED'] } });
    expect(paused.items.map((c) => c.campaignId)).to.deep.equal(
      campaigns.filter((c) => c.state === 'PAUSED').map((c) => c.campaignId),
    );
    const one = campaigns[0]!.campaignId;
    const groups = await ads.sp.list(us, 'adGroups', { campaignIdFilter: { include: [one] } });
    expect(groups.items.length).to.be.greaterThan(0);
    expect(groups.items.every((g) => g.campaignId === one)).to.equal(true);
  });

  it('refuses a plain JSON content type (415), a foreign scope (401) and no scope (400)', async () => {
    const { lwa } = clientsFor(simulator);
    const token = await lwa.getAccessToken('Atzr|demo-advertiser');
    const send = (headers: Record<string, string>) =>
      fetch(`${baseUrl}/sp/campaigns/list`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${token}`,
          'amazon-advertising-api-clientid': 'simulator-client',
          ...headers,
        },
        body: '{}',
      });
    const plain = await send({ 'content-type': 'application/json', 'amazon-advertising-api-scope': profileIn('US') });
    expect(plain.status).to.equal(415);
    expect(await plain.json()).to.include({ code: 'UNSUPPORTED_MEDIA_TYPE' });
    expect(
      (await send({ 'content-type': 'application/vnd.spCampaign.v3+json', 'amazon-advertising-api-scope': '123' }))
        .status,
    ).to.equal(401);
    expect((await send({ 'content-type': 'application/vnd.spCampaign.v3+json' })).status).to.equal(400);
  });

  it('creates, updates and archives with 207 multi-status answers, item by item, and logs what it applied', async () => {
    const us = profileIn('US');
    await fetch(`${baseUrl}/_sim/ads/changes`, { method: 'DELETE' });
    const created = await ads.sp.create(
      us,
      'campaigns',
      [
        { name: 'Test launch', targetingType: 'AUTO', state: 'ENABLED', budget: { budget: 25.5, budgetType: 'DAILY' } },
        { name: 'Too cheap', targetingType: 'MANUAL', state: 'ENABLED', budget: { budget: 0.5, budgetType: 'DAILY' } },
        { targetingType: 'MANUAL', state: 'ENABLED', budget: { budget: 10, budgetType: 'DAILY' } },
      ],
      { representation: true },
    );
    expect(created.success.map((s) => s.index)).to.deep.equal([0]);
    const campaignId = created.success[0]!.id;
    expect(created.success[0]!.entity).to.include({
      campaignId,
      name: 'Test launch',
      state: 'ENABLED',
      targetingType: 'AUTO',
    });
    expect(created.error.map((e) => e.index)).to.deep.equal([1, 2]);
    expect(created.error[0]!.errors[0]!.errorValue.budgetError).to.include({ reason: 'BUDGET_TOO_LOW' });
    expect(created.error[1]!.errors[0]!.errorType).to.equal('missingValueError');
    expect(created.raw).to.have.nested.property('campaigns.success[0].campaignId', campaignId);

    const group = await ads.sp.create(us, 'adGroups', [
      { campaignId, name: 'All', state: 'ENABLED', defaultBid: 0.75 },
    ]);
    const adGroupId = group.success[0]!.id;
    const autoTargets = await ads.sp.list(us, 'targets', { adGroupIdFilter: { include: [adGroupId] } });
    expect(autoTargets.items.map((t) => t.expression[0]!.type).sort()).to.deep.equal([
      'ASIN_ACCESSORY_RELATED',
      'ASIN_SUBSTITUTE_RELATED',
      'QUERY_BROAD_REL_MATCHES',
      'QUERY_HIGH_REL_MATCHES',
    ]);
    const listing = simulator.catalog.listingsIn('ATVPDKIKX0DER')[Symbol.iterator]().next().value!;
    const ad = await ads.sp.create(us, 'productAds', [
      { campaignId, adGroupId, state: 'ENABLED', sku: listing.sku },
      { campaignId, adGroupId, state: 'ENABLED', sku: 'NOT-A-SKU' },
    ]);
    expect(ad.success).to.have.length(1);
    expect(ad.error[0]).to.include({ index: 1 });

    const updated = await ads.sp.update(us, 'campaigns', [
      { campaignId, budget: { budget: 40, budgetType: 'DAILY' }, state: 'PAUSED' },
      { campaignId: '999', state: 'PAUSED' },
    ]);
    expect(updated.success).to.deep.equal([{ index: 0, id: campaignId }]);
    expect(updated.error[0]!.errors[0]!.errorValue.entityNotFoundError).to.include({
      entityType: 'CAMPAIGN',
      entityId: '999',
    });
    const [after] = (await ads.sp.list(us, 'campaigns', { campaignIdFilter: { include: [campaignId] } }))
      .items as SpCampaign[];
    expect(after).to.deep.include({ state: 'PAUSED', budget: { budget: 40, budgetType: 'DAILY' } });

    const deleted = await ads.sp.delete(us, 'campaigns', [campaignId]);
    expect(deleted.success).to.deep.equal([{ index: 0, id: campaignId }]);
    const again = await ads.sp.update(us, 'campaigns', [{ campaignId, state: 'ENABLED' }]);
    expect(again.error[0]!.errors[0]!.errorValue.entityStateError).to.include({
      reason: 'ARCHIVED_ENTITY_CANNOT_BE_MODIFIED',
    });

    const { changes } = (await (await fetch(`${baseUrl}/_sim/ads/changes`)).json()) as { changes: AppliedChange[] };
    expect(changes.map((c) => `${c.operation} ${c.resource}`)).to.deep.equal([
      'create campaigns',
      'create adGroups',
      'create targets',
      'create targets',
      'create targets',
      'create targets',
      'create productAds',
      'update campaigns',
      'delete campaigns',
    ]);
    expect(changes.at(-2)).to.deep.include({ id: campaignId, before: { ...(changes[0]!.after as object) } });
    expect(changes.at(-1)!.after).to.include({ state: 'ARCHIVED' });
  });

  it("stores what it is sent in the marketplace's own form: enumerations upper case, bids and budgets at the currency's precision", async () => {
    const [us, jp] = [profileIn('US'), profileIn('JP')];
    const campaign = async (profileId: string, budget: number) => {
      const made = await ads.sp.create(
        profileId,
        'campaigns',
        [
          {
            name: `Normalized ${budget}`,
            targetingType: 'manual',
            state: 'enabled',
            budget: { budget, budgetType: 'DAILY' },
          },
        ],
        { representation: true },
      );
      expect(made.error).to.deep.equal([]);
      return made.success[0]!;
    };
    const dollars = await campaign(us, 25.556);
    expect(dollars.entity).to.deep.include({
      targetingType: 'MANUAL',
      state: 'ENABLED',
      budget: { budget: 25.56, budgetType: 'DAILY' },
    });
    const yen = await campaign(jp, 1234.4);
    expect(yen.entity).to.deep.include({ budget: { budget: 1234, budgetType: 'DAILY' } });

    const group = await ads.sp.create(
      us,
      'adGroups',
      [{ campaignId: dollars.id, name: 'Cents', state: 'Enabled', defaultBid: 0.555 }],
      { representation: true },
    );
    expect(group.success[0]!.entity).to.deep.include({ state: 'ENABLED', defaultBid: 0.56 });
    const adGroupId = group.success[0]!.id;
    // a keyword in JP (the seed test compares the US keywords)
    const jpGroup = await ads.sp.create(jp, 'adGroups', [
      { campaignId: yen.id, name: 'Yen', state: 'ENABLED', defaultBid: 20 },
    ]);
    const keyword = await ads.sp.create(
      jp,
      'keywords',
      [
        {
          campaignId: yen.id,
          adGroupId: jpGroup.success[0]!.id,
          keywordText: 'teapot',
          matchType: 'exact',
          state: 'paused',
          bid: 12.6,
        },
      ],
      { representation: true },
    );
    expect(keyword.success[0]!.entity).to.deep.include({ matchType: 'EXACT', state: 'PAUSED', bid: 13 });
    await ads.sp.update(us, 'adGroups', [{ adGroupId, state: 'paused', defaultBid: 0.404 }]);
    const [read] = (await ads.sp.list(us, 'adGroups', { adGroupIdFilter: { include: [adGroupId] } })).items;
    expect(read, 'the read-back shows what was stored').to.deep.include({ state: 'PAUSED', defaultBid: 0.4 });
  });

  it('a list is retried through 429 and 5xx (it changes nothing); a create only through 429', async () => {
    const us = profileIn('US');
    await injectFault(baseUrl, { route: 'POST /sp/campaigns/list', kind: '429', retryAfterSeconds: 0 });
    await injectFault(baseUrl, { route: 'POST /sp/campaigns/list', kind: '5xx', status: 503 });
    expect((await ads.sp.list(us, 'campaigns')).items).to.not.be.empty;
    expect((await requestsTo(baseUrl, 'POST', '/sp/campaigns/list')).map((r) => r.status)).to.deep.equal([
      429, 503, 200,
    ]);
    await injectFault(baseUrl, { route: 'POST /sp/keywords', kind: '5xx', status: 500 });
    const error = await rejectionOf(
      ads.sp.create(us, 'keywords', [
        { campaignId: '1', adGroupId: '2', keywordText: 'x', matchType: 'EXACT', state: 'ENABLED' },
      ]),
    );
    expect(error).to.include({ status: 500, code: 'INTERNAL_ERROR' });
    expect(await requestsTo(baseUrl, 'POST', '/sp/keywords')).to.have.length(1);
  });

  it('refuses a whole request that is not a list of items (400), not retried', async () => {
    const error = await rejectionOf(ads.sp.create(profileIn('US'), 'campaigns', []));
    expect(error).to.be.instanceOf(MarketplaceError);
    expect(error).to.include({ status: 400, code: 'INVALID_ARGUMENT', retryable: false });
  });

  it('the same seed gives the same entities', async () => {
    const { simulator: twin } = await startSimulator({ seed: 11 });
    try {
      const { ads: twinAds } = clientsFor(twin);
      const us = profileIn('US');
      const mine = (await ads.sp.list(us, 'keywords')).items;
      expect((await twinAds.sp.list(us, 'keywords')).items).to.deep.equal(mine);
    } finally {
      await twin.close();
    }
  });
});
