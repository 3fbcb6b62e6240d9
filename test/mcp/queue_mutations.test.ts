import { randomUUID } from 'node:crypto';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { expect } from 'chai';
import { executeMutationCommand } from '../../src/commands/mutation/execute.js';
import { idempotencyStreamId } from '../../src/domain/admission/idempotency.js';
import { fingerprint } from '../../src/domain/admission/rules.js';
import { stableId } from '../../src/domain/shared/ids.js';
import { NO_STREAM } from '../../src/eventstore/index.js';
import type { SpResource } from '../../src/marketplace/clients/ads-sp-types.js';
import { createAdsClient } from '../../src/marketplace/clients/index.js';
import type { SimListing } from '../../src/marketplace/simulator/index.js';
import { loadAccounts, type ProfileView } from '../../src/projections/accounts/queries.js';
import { admissionProjection } from '../../src/projections/admission/projection.js';
import { adsProjection } from '../../src/projections/observed/ads.js';
import { listingsProjection } from '../../src/projections/observed/listings.js';
import { fbaInventoryProjection } from '../../src/projections/observed/inventory.js';
import { adsEntitiesSync } from '../../src/workers/sync/ads-entities.js';
import { listingsSync } from '../../src/workers/sync/listings.js';
import { call, serveMcp, type McpServing } from '../support/mcp.js';
import { cli } from '../support/processes.js';
import { assertApplyTwiceSameResult, assertRebuildEqualsLive } from '../support/projections.js';
import { startHarness, type Harness } from '../support/observed.js';
import { adsEntityId, type AdsEntityKind } from '../../src/domain/observation/ids.js';

// queue_mutations and patch_listing through the MCP client over HTTP, on listings and ads
// entities synced from the simulator by the real sync jobs. Expected provider ids come from the
// simulator through the real ads client, and local ids from their documented derivations.

const SELLER = 'Atzr|demo-seller';
const ADS_TOKEN = 'Atzr|demo-advertiser';
const DAY = 86_400_000;
/** list_listings' local listing id (spec 4.8: target ids come from list_listings) */
const listingLocalId = (account: string, marketplaceId: string, sku: string) =>
  stableId('listing', `${account}/${marketplaceId}/${sku}`);

describe('queue_mutations and patch_listing over MCP', function () {
  this.timeout(240_000);
  let h: Harness;
  let mcp: McpServing;
  let ada: Client;
  let bob: Client;
  let demo: Client;
  const users = { ada: randomUUID(), bob: randomUUID() };
  const acc = { ada: '', ada2: '', bob: '' };
  let profile: ProfileView;

  type Raw = Record<string, any>;
  const sp = async (resource: SpResource): Promise<Raw[]> => {
    const client = createAdsClient({
      endpoint: h.simulator.endpoints().adsApiUrl,
      lwa: h.deps('').lwa,
      refreshToken: ADS_TOKEN,
    });
    return (
      await client.sp.list(profile.provider_profile_id, resource, { stateFilter: { include: ['ENABLED', 'PAUSED'] } })
    ).items as Raw[];
  };
  const localId = (kind: AdsEntityKind, account: string, providerId: string) =>
    adsEntityId(kind, account, profile.provider_profile_id, providerId);
  const queue = (client: Client, args: Record<string, unknown>) => call(client, 'queue_mutations', args);
  /** every committed event, whatever other transactions of the server are still open (the global log's reader would wait for them) */
  const eventCount = async () => Number((await h.db('events').count<{ count: string }[]>())[0]!.count);
  /** a listing of the simulator's that is live in the profile's marketplace */
  let listing: SimListing;
  let campaign: Raw, adGroup: Raw, ad: Raw, keyword: Raw, campaignNegative: Raw;
  let clientCounter = 0;
  const uniqueName = () => `admission test ${++clientCounter}`;

  before(async () => {
    h = await startHarness(
      // FBA inventory: list_listings joins it
      [listingsProjection, fbaInventoryProjection, adsProjection, admissionProjection],
      [],
      Date.parse('2026-11-20T10:00:00Z'),
      17,
    );
    acc.ada = await h.connect('seller', users.ada);
    acc.bob = await h.connect('seller', users.bob);
    for (const account of [acc.ada, acc.bob]) {
      await h.run(listingsSync, account, SELLER);
      await adsEntitiesSync.run({ ...h.deps(''), credentials: () => ({ ads_refresh_token: ADS_TOKEN }) }, account);
    }
    await h.projector.whenCaughtUp();
    mcp = await serveMcp(h.db, () => new Date(h.clock.ms), users.bob);
    ada = await mcp.clientFor(users.ada);
    bob = await mcp.clientFor(users.bob);
    demo = await mcp.demoClient();
    profile = (await loadAccounts(h.db, users.ada))[0]!.ads!.profiles.find((p) => p.country_code === 'US')!;
    listing = [...h.simulator.catalog.listingsIn(profile.marketplace_id)].find((l) => l.status === 'BUYABLE')!;
    campaign = (await sp('campaigns'))[0]!;
    adGroup = (await sp('adGroups'))[0]!;
    ad = (await sp('productAds'))[0]!;
    keyword = (await sp('keywords'))[0]!;
    campaignNegative = (await sp('campaignNegativeKeywords'))[0]!;
  });
  after(async () => {
    await mcp?.close();
    await h?.close();
  });

  const targets = () => ({
    listing: { type: 'Listing', id: listingLocalId(acc.ada, listing.marketplaceId, listing.sku) },
    profile: { type: 'AdvertisingProfile', id: profile.id },
    campaign: { type: 'Campaign', id: localId('campaign', acc.ada, campaign.campaignId) },
    adGroup: { type: 'AdGroup', id: localId('ad_group', acc.ada, adGroup.adGroupId) },
    ad: { type: 'Ad', id: localId('product_ad', acc.ada, ad.adId) },
    keyword: { type: 'Target', id: localId('keyword', acc.ada, keyword.keywordId) },
    campaignNegative: { type: 'Target', id: localId('campaign_negative_keyword', acc.ada, campaignNegative.keywordId) },
  });
  const offerPatch = (price: number) => ({
    op: 'replace',
    path: '/attributes/purchasable_offer',
    value: [
      {
        marketplace_id: listing.marketplaceId,
        currency: listing.currency,
        audience: 'ALL',
        our_price: [{ schedule: [{ value_with_tax: price }] }],
      },
    ],
  });

  describe('admission of every target type and action (spec 4.8)', () => {
    it('queues one receipt per mutation with the provider ids of the target and its parents', async () => {
      const t = targets();
      const keywordTarget = {
        targetType: 'KEYWORD',
        state: 'ENABLED',
        targetDetails: { keywordTarget: { keyword: 'admission test', matchType: 'EXACT' } },
      };
      const mutations = [
        { target: t.listing, action: 'update', payload: { productType: 'PRODUCT', patches: [offerPatch(12.5)] } },
        {
          target: t.profile,
          action: 'create_campaign',
          payload: {
            name: uniqueName(),
            targetingType: 'MANUAL',
            state: 'PAUSED',
            budget: { budget: 10, budgetType: 'DAILY' },
          },
        },
        { target: t.campaign, action: 'update', payload: { state: 'PAUSED' } },
        { target: t.campaign, action: 'archive', payload: {} },
        {
          target: t.campaign,
          action: 'create_ad_group',
          payload: { name: uniqueName(), state: 'ENABLED', defaultBid: 0.5 },
        },
        { target: t.campaign, action: 'create_target', payload: { ...keywordTarget, negative: true } },
        { target: t.adGroup, action: 'update', payload: { defaultBid: 0.8 } },
        { target: t.adGroup, action: 'archive', payload: {} },
        { target: t.adGroup, action: 'create_ad', payload: { state: 'ENABLED', sku: listing.sku } },
        { target: t.adGroup, action: 'create_ad', payload: { state: 'ENABLED', asin: listing.asin } },
        {
          target: t.adGroup,
          action: 'create_target',
          payload: { ...keywordTarget, negative: false, bid: { bid: 0.6 } },
        },
        { target: t.ad, action: 'update', payload: { state: 'PAUSED' } },
        { target: t.ad, action: 'archive', payload: {} },
        { target: t.keyword, action: 'update', payload: { bid: { bid: 0.9 } } },
        { target: t.keyword, action: 'archive', payload: {} },
      ];
      const res = await queue(ada, { mutations });
      expect(res.isError, JSON.stringify(res.structuredContent)).to.not.equal(true);
      const body = res.structuredContent;
      expect(body.admitted).to.equal(mutations.length);
      expect(body.replayed).to.equal(false);
      expect(body.idempotency).to.equal(null);
      const where = {
        profileId: profile.provider_profile_id,
        countryCode: profile.country_code,
        marketplaceId: profile.marketplace_id,
      };
      const expected = {
        Listing: { sku: listing.sku, marketplaceId: listing.marketplaceId, sellerId: h.simulator.seller.merchantId },
        AdvertisingProfile: where,
        Campaign: { ...where, campaignId: campaign.campaignId },
        AdGroup: { ...where, campaignId: adGroup.campaignId, adGroupId: adGroup.adGroupId },
        Ad: { ...where, campaignId: ad.campaignId, adGroupId: ad.adGroupId, adId: ad.adId },
        Target: {
          ...where,
          campaignId: keyword.campaignId,
          adGroupId: keyword.adGroupId,
          targetId: keyword.keywordId,
          targetKind: 'keyword',
        },
      } as Record<string, Record<string, string>>;
      // an ad's requests (and a new ad's) name the listing they advertise: its block flag holds them
      const advertised = (p: { sku?: string; asin?: string }) => {
        const live = [...h.simulator.catalog.listingsIn(profile.marketplace_id)].filter(
          (l) => l.status !== 'DELETED' && (p.sku ? l.sku === p.sku : l.asin === p.asin),
        );
        return live.length === 1 ? { listingId: listingLocalId(acc.ada, profile.marketplace_id, live[0]!.sku) } : {};
      };
      expect(advertised({ sku: listing.sku }), 'the SKU is a listing').to.have.property('listingId');
      body.results.forEach((r: any, i: number) => {
        const m = mutations[i]!;
        expect(r.index).to.equal(i);
        expect(r.receipt, `${m.target.type} ${m.action}`).to.include({
          status: 'queued',
          outcome: null,
          accepted: null,
          target_type: m.target.type,
          target_id: m.target.id,
          action: m.action,
          account_id: acc.ada,
        });
        const listingOf =
          m.action === 'create_ad'
            ? advertised(m.payload as { sku?: string; asin?: string })
            : m.target.type === 'Ad'
              ? advertised(ad)
              : {};
        expect(r.receipt.provider, `${m.target.type} ${m.action}`).to.deep.equal({
          ...expected[m.target.type],
          ...listingOf,
        });
        expect(r.receipt.payload).to.deep.equal(m.payload);
      });
      // durable: each receipt reads back through get_mutation once projected
      await h.projector.whenCaughtUp();
      for (const r of body.results) {
        const got = await call(ada, 'get_mutation', { id: r.receipt.id });
        expect(got.structuredContent).to.include({ id: r.receipt.id, status: 'queued', action: r.receipt.action });
        expect(got.structuredContent.provider).to.deep.equal(r.receipt.provider);
      }
      // one call's receipts of a target keep the call's order (the dispatcher's order too): newest first here
      const listed = await call(ada, 'list_mutations', { target_type: 'Campaign', target_id: t.campaign.id });
      expect(listed.structuredContent.mutations.map((r: any) => r.action)).to.deep.equal([
        'create_target',
        'create_ad_group',
        'archive',
        'update',
      ]);
    });

    it("answers target_not_found for another user's target and unknown ids, each result on its own", async () => {
      const bobsCampaign = { type: 'Campaign', id: localId('campaign', acc.bob, campaign.campaignId) };
      const bobsListing = { type: 'Listing', id: listingLocalId(acc.bob, listing.marketplaceId, listing.sku) };
      const res = await queue(ada, {
        mutations: [
          { target: bobsCampaign, action: 'update', payload: { state: 'PAUSED' } },
          { target: bobsListing, action: 'update', payload: { productType: 'PRODUCT', patches: [offerPatch(11)] } },
          { target: { type: 'Campaign', id: randomUUID() }, action: 'update', payload: { state: 'PAUSED' } },
          { target: { type: 'AdGroup', id: 'not-an-id' }, action: 'update', payload: { state: 'PAUSED' } },
          // a campaign's id under another type names nothing
          { target: { type: 'AdGroup', id: targets().campaign.id }, action: 'update', payload: { state: 'PAUSED' } },
          { target: targets().ad, action: 'update', payload: { state: 'ENABLED' } },
        ],
      });
      const codes = res.structuredContent.results.map((r: any) => r.error?.code ?? 'receipt');
      expect(codes).to.deep.equal([
        'target_not_found',
        'target_not_found',
        'target_not_found',
        'target_not_found',
        'target_not_found',
        'receipt',
      ]);
      expect(res.structuredContent.results[0].error.argument).to.equal('mutations[0].target');
      // Bob's own target is his
      const his = await call(bob, 'queue_mutations', {
        mutations: [{ target: bobsCampaign, action: 'update', payload: { state: 'PAUSED' } }],
      });
      expect(his.structuredContent.results[0].receipt.provider.campaignId).to.equal(campaign.campaignId);
    });

    it('answers scope_mismatch when a supplied id or country disagrees with the target', async () => {
      const t = targets();
      const res = await queue(ada, {
        mutations: [
          { target: t.adGroup, action: 'update', payload: { adGroupId: `${adGroup.adGroupId}9`, state: 'PAUSED' } },
          {
            target: t.adGroup,
            action: 'create_ad',
            payload: { campaignId: `${adGroup.campaignId}9`, state: 'ENABLED', sku: listing.sku },
          },
          {
            target: t.profile,
            action: 'create_campaign',
            payload: {
              countries: ['JP'],
              name: uniqueName(),
              targetingType: 'AUTO',
              state: 'PAUSED',
              budget: { budget: 5, budgetType: 'DAILY' },
            },
          },
          {
            target: t.listing,
            action: 'update',
            payload: {
              productType: 'PRODUCT',
              patches: [{ ...offerPatch(7), value: [{ ...offerPatch(7).value[0], marketplace_id: 'A1VC38T7YXB528' }] }],
            },
          },
          // the same ids given right are accepted
          {
            target: t.adGroup,
            action: 'update',
            payload: { adGroupId: adGroup.adGroupId, campaignId: adGroup.campaignId, state: 'PAUSED' },
          },
        ],
      });
      const results = res.structuredContent.results;
      expect(results.map((r: any) => r.error?.code ?? 'receipt')).to.deep.equal([
        'scope_mismatch',
        'scope_mismatch',
        'scope_mismatch',
        'scope_mismatch',
        'receipt',
      ]);
      expect(results[3].error.argument).to.equal('mutations[3].payload.patches.0.value.0.marketplace_id');
      expect(results[0].error.detail).to.contain(adGroup.adGroupId);
      expect(results[2].error.detail).to.contain(profile.country_code);
    });

    it('takes no `account`: with two accounts, each request is written on the account its target belongs to', async () => {
      acc.ada2 = await h.connect('seller', users.ada);
      await adsEntitiesSync.run({ ...h.deps(''), credentials: () => ({ ads_refresh_token: ADS_TOKEN }) }, acc.ada2);
      await h.projector.whenCaughtUp();
      const pause = (account: string) => ({
        target: { type: 'Campaign', id: localId('campaign', account, campaign.campaignId) },
        action: 'update',
        payload: { state: 'PAUSED' },
      });
      const both = (await queue(ada, { mutations: [pause(acc.ada), pause(acc.ada2)] })).structuredContent;
      expect(both.results.map((r: any) => r.receipt.account_id)).to.deep.equal([acc.ada, acc.ada2]);
      expect(both.results.map((r: any) => r.receipt.status)).to.deep.equal(['queued', 'queued']);
      const [first, second] = both.results.map((r: any) => r.receipt.id as string);
      for (const [id, account] of [
        [first, acc.ada],
        [second, acc.ada2],
      ])
        expect((await h.store.readStream(`mutation-${id}`))[0]!.metadata.account_id).to.equal(account);
      const named = await queue(ada, { account: acc.ada, mutations: [pause(acc.ada)] });
      expect(named.structuredContent).to.include({ code: 'unknown_argument' });
      expect(named.structuredContent.detail).to.contain("'account'");
    });

    it('takes a confirmed created entity as the next target before the ads sync has seen it', async () => {
      const worker = { store: h.store, metadata: { actor: { kind: 'worker' as const, id: 'test' } } };
      const create = {
        target: targets().profile,
        action: 'create_campaign',
        payload: {
          name: uniqueName(),
          targetingType: 'MANUAL',
          state: 'ENABLED',
          budget: { budget: 7, budgetType: 'DAILY' },
        },
      };
      const receipt = (await queue(ada, { mutations: [create] })).structuredContent.results[0].receipt;
      const created = { type: 'Campaign' as const, id: randomUUID(), providerId: '998877665544' };
      const at = new Date(h.clock.ms).toISOString();
      await executeMutationCommand(worker, { type: 'StartDispatch', receipt_id: receipt.id, started_at: at });
      await executeMutationCommand(worker, {
        type: 'RecordSubmission',
        receipt_id: receipt.id,
        submission_id: null,
        accepted: true,
        created,
        http_status: 207,
        response: {},
        request_id: 'r',
        error: null,
        recorded_at: at,
      });
      await h.projector.whenCaughtUp();
      const next = (
        await queue(ada, {
          mutations: [
            {
              target: { type: 'Campaign', id: created.id },
              action: 'create_ad_group',
              payload: { name: uniqueName(), state: 'ENABLED', defaultBid: 0.5 },
            },
          ],
        })
      ).structuredContent.results[0];
      expect(next.receipt?.provider, JSON.stringify(next)).to.deep.equal({
        profileId: profile.provider_profile_id,
        countryCode: profile.country_code,
        marketplaceId: profile.marketplace_id,
        campaignId: created.providerId,
      });
      // another user's confirmed creation is not theirs to target
      const foreign = (
        await call(bob, 'queue_mutations', {
          mutations: [{ target: { type: 'Campaign', id: created.id }, action: 'update', payload: { state: 'PAUSED' } }],
        })
      ).structuredContent.results[0];
      expect(foreign.error.code).to.equal('target_not_found');
    });
  });

  describe('payload validation', () => {
    it('refuses invalid payloads per target type with the path and the reason, and admits the valid ones of the same call', async () => {
      const t = targets();
      const cases: Array<[Record<string, unknown>, string, string]> = [
        [
          { target: t.listing, action: 'update', payload: { patches: [offerPatch(3)] } },
          'invalid',
          'payload.productType',
        ],
        [
          {
            target: t.listing,
            action: 'update',
            payload: {
              productType: 'PRODUCT',
              patches: [{ op: 'replace', path: '/attributes/purchasable_offer', value: [{ our_price: [] }] }],
            },
          },
          'invalid',
          'payload.patches.0.value.0',
        ],
        [
          {
            target: t.listing,
            action: 'update',
            payload: { productType: 'PRODUCT', patches: [{ op: 'replace', path: '/price', value: [{}] }] },
          },
          'invalid',
          'payload.patches.0.path',
        ],
        [{ target: t.campaign, action: 'update', payload: {} }, 'invalid', 'payload'],
        [{ target: t.adGroup, action: 'update', payload: { defaultBid: -1 } }, 'invalid', 'payload.defaultBid'],
        [{ target: t.ad, action: 'update', payload: { state: 'DELETED' } }, 'invalid', 'payload.state'],
        [{ target: t.ad, action: 'archive', payload: { state: 'PAUSED' } }, 'invalid', 'payload'],
        [{ target: t.campaignNegative, action: 'update', payload: { bid: { bid: 1 } } }, 'invalid', 'payload.bid'],
        [
          {
            target: t.campaign,
            action: 'create_target',
            payload: {
              targetType: 'KEYWORD',
              state: 'ENABLED',
              negative: false,
              targetDetails: { keywordTarget: { keyword: 'x', matchType: 'EXACT' } },
            },
          },
          'invalid',
          'payload.negative',
        ],
        [
          {
            target: t.adGroup,
            action: 'create_target',
            payload: {
              targetType: 'LOCATION',
              state: 'ENABLED',
              negative: false,
              targetDetails: { keywordTarget: { keyword: 'x', matchType: 'EXACT' } },
            },
          },
          'invalid',
          'payload.targetType',
        ],
        [
          {
            target: t.adGroup,
            action: 'create_target',
            payload: {
              targetType: 'KEYWORD',
              state: 'ENABLED',
              negative: true,
              targetDetails: { keywordTarget: { keyword: 'cheap', matchType: 'NEGATIVE_EXACT' } },
            },
          },
          'invalid',
          // the shape it came nearest among targetDetails' three, and why: not zod's "Invalid input"
          'payload.targetDetails.keywordTarget.matchType: Invalid option: expected one of "EXACT"|"PHRASE"|"BROAD"',
        ],
        [
          {
            target: t.profile,
            action: 'create_campaign',
            payload: {
              name: 'x',
              targetingType: 'AUTO',
              state: 'PAUSED',
              budget: { budget: 5, budgetType: 'DAILY' },
              audiences: [{ id: '1' }],
            },
          },
          'invalid',
          'payload',
        ],
        [
          {
            target: t.profile,
            action: 'create_campaign',
            payload: {
              name: 'x',
              targetingType: 'MANUAL',
              state: 'PAUSED',
              budget: { budget: 5, budgetType: 'DAILY' },
              startDate: '2026-02-30',
            },
          },
          'invalid',
          'payload.startDate',
        ],
        [
          { target: t.adGroup, action: 'create_ad', payload: { state: 'ENABLED', sku: 'NOT-A-SKU-OF-OURS' } },
          'invalid',
          'payload.sku',
        ],
        [
          { target: t.adGroup, action: 'create_ad', payload: { state: 'ENABLED', asin: 'B000000000' } },
          'invalid',
          'payload.asin',
        ],
        [{ target: t.ad, action: 'create_ad', payload: { state: 'ENABLED', sku: listing.sku } }, 'invalid', 'action'],
        [{ target: { type: 'Portfolio', id: t.campaign.id }, action: 'update', payload: {} }, 'invalid', 'target.type'],
      ];
      const before = await eventCount();
      const res = await queue(ada, {
        mutations: [...cases.map((c) => c[0]), { target: t.ad, action: 'update', payload: { state: 'PAUSED' } }],
      });
      const results = res.structuredContent.results;
      cases.forEach(([, code, path], i) => {
        expect(results[i].error, `case ${i}`).to.not.equal(undefined);
        expect(results[i].error.code, `case ${i}: ${results[i].error.detail}`).to.equal(code);
        expect(results[i].error.detail, `case ${i}`).to.contain(`mutations[${i}].${path}`);
      });
      expect(results.at(-1).receipt.status).to.equal('queued');
      expect(res.structuredContent).to.include({ admitted: 1, rejected: cases.length });
      expect((await eventCount()) - before, 'only the valid one recorded').to.equal(1);
    });
  });

  describe('idempotency (spec 4.8)', () => {
    const mutations = () => [
      { target: targets().ad, action: 'update', payload: { state: 'PAUSED' } },
      { target: { type: 'Campaign', id: randomUUID() }, action: 'update', payload: { state: 'PAUSED' } },
    ];

    it('replays the same receipts and rejections with current statuses; a different input is idempotency_conflict and admits nothing', async () => {
      const input = mutations();
      const first = (await queue(ada, { mutations: input, idempotency_key: 'run-1' })).structuredContent;
      expect(first.replayed).to.equal(false);
      expect(first.idempotency.key).to.equal('run-1');
      expect(Date.parse(first.idempotency.expires_at)).to.equal(h.clock.ms + DAY);
      expect(first.results[0].receipt.idempotency).to.deep.equal(first.idempotency);
      // the worker takes the receipt: the replay shows where it is now
      await executeMutationCommand(
        { store: h.store, metadata: { actor: { kind: 'worker', id: 'test' } } },
        {
          type: 'StartDispatch',
          receipt_id: first.results[0].receipt.id,
          started_at: new Date(h.clock.ms).toISOString(),
        },
      );
      const before = await eventCount();
      const again = (await queue(ada, { mutations: input, idempotency_key: 'run-1' })).structuredContent;
      expect(again.replayed).to.equal(true);
      expect(again.idempotency).to.deep.equal(first.idempotency);
      expect(again.results[0].receipt.id).to.equal(first.results[0].receipt.id);
      expect(again.results[0].receipt.status).to.equal('submitting');
      expect(again.results[1]).to.deep.equal(first.results[1]);
      const conflict = await queue(ada, { mutations: [input[0]], idempotency_key: 'run-1' });
      expect(conflict.isError).to.equal(true);
      expect(conflict.structuredContent.code).to.equal('idempotency_conflict');
      expect(await eventCount(), 'nothing recorded by the replay or the conflict').to.equal(before);
      // list_mutations finds it in the caller's namespace only
      await h.projector.whenCaughtUp();
      const listed = await call(ada, 'list_mutations', { idempotency_key: 'run-1' });
      expect(listed.structuredContent.mutations.map((r: any) => r.id)).to.deep.equal([first.results[0].receipt.id]);
    });

    it('scopes keys to the caller: another user with the same key admits their own', async () => {
      const mine = (await queue(ada, { mutations: mutations().slice(0, 1), idempotency_key: 'shared-key' }))
        .structuredContent;
      const bobs = (
        await call(bob, 'queue_mutations', {
          mutations: [
            {
              target: { type: 'Campaign', id: localId('campaign', acc.bob, campaign.campaignId) },
              action: 'update',
              payload: { state: 'PAUSED' },
            },
          ],
          idempotency_key: 'shared-key',
        })
      ).structuredContent;
      expect(bobs.replayed).to.equal(false);
      expect(bobs.results[0].receipt.id).to.not.equal(mine.results[0].receipt.id);
    });

    it('records a key used for the first time and its receipts in one write, the key first', async () => {
      const input = [
        { target: targets().ad, action: 'update', payload: { state: 'PAUSED' } },
        { target: targets().campaign, action: 'update', payload: { state: 'PAUSED' } },
      ];
      const first = (await queue(ada, { mutations: input, idempotency_key: 'one-write' })).structuredContent;
      const [key] = await h.store.readStream(`idempotency-${idempotencyStreamId(users.ada, 'one-write')}`);
      const receipts = await Promise.all(
        first.results.map(async (r: any) => (await h.store.readStream(`mutation-${r.receipt.id}`))[0]!),
      );
      expect(receipts.map((e) => e.type)).to.deep.equal(['MutationAdmitted', 'MutationAdmitted']);
      // one transaction: the same commit position, in list order
      expect(receipts.map((e) => e.position.commit)).to.deep.equal([key!.position.commit, key!.position.commit]);
      expect(receipts.every((e) => e.position.prepare > key!.position.prepare)).to.equal(true);
    });

    it('admits afresh after idempotency.expires_at', async () => {
      const input = mutations().slice(0, 1);
      const first = (await queue(ada, { mutations: input, idempotency_key: 'expiring' })).structuredContent;
      h.clock.ms = Date.parse(first.idempotency.expires_at) - 1;
      expect((await queue(ada, { mutations: input, idempotency_key: 'expiring' })).structuredContent.replayed).to.equal(
        true,
      );
      h.clock.ms += 1;
      const later = (await queue(ada, { mutations: input, idempotency_key: 'expiring' })).structuredContent;
      expect(later.replayed).to.equal(false);
      expect(later.results[0].receipt.id).to.not.equal(first.results[0].receipt.id);
      expect(Date.parse(later.idempotency.expires_at)).to.equal(h.clock.ms + DAY);
    });

    it('a replay completes an admission its first call recorded but could not finish (a crash between the two)', async () => {
      const input = [{ target: targets().ad, action: 'update', payload: { state: 'PAUSED' } }];
      const receipt_id = randomUUID();
      const expires_at = new Date(h.clock.ms + DAY).toISOString();
      const idempotency = {
        namespace: users.ada,
        key: 'cut-short',
        fingerprint: fingerprint({ mutations: input, catalog_revision: null }),
        expires_at,
      };
      const admission = {
        type: 'AdmitMutation',
        receipt_id,
        account_id: acc.ada,
        target: input[0]!.target,
        action: 'update',
        payload: input[0]!.payload,
        idempotency,
        created_at: new Date(h.clock.ms).toISOString(),
        blocked: null,
        provider: {
          profileId: profile.provider_profile_id,
          countryCode: profile.country_code,
          marketplaceId: profile.marketplace_id,
          campaignId: ad.campaignId,
          adGroupId: ad.adGroupId,
          adId: ad.adId,
        },
      };
      const used = { ...idempotency, results: [{ receipt_id }], admissions: [admission] };
      await h.store.appendToStream(
        `idempotency-${idempotencyStreamId(users.ada, 'cut-short')}`,
        [{ type: 'IdempotencyKeyUsed', data: used, metadata: { at: expires_at } }],
        { expectedRevision: NO_STREAM },
      );
      expect(await h.store.readStream(`mutation-${receipt_id}`)).to.have.length(0);
      const retry = (await queue(ada, { mutations: input, idempotency_key: 'cut-short' })).structuredContent;
      expect(retry.replayed).to.equal(true);
      expect(retry.results[0].receipt).to.include({ id: receipt_id, status: 'queued' });
      expect((await h.store.readStream(`mutation-${receipt_id}`)).map((e) => e.type)).to.deep.equal([
        'MutationAdmitted',
      ]);
    });

    // with a creation the call is admitted under the key's lock; without, by one exclusive write of key and receipts
    for (const [kind, withCreation] of [
      ['with a creation (under the key lock)', true],
      ['of updates only (no lock: one exclusive write)', false],
    ] as const)
      it(`20 concurrent identical calls on one key, ${kind}: exactly one admission and 19 replays`, async () => {
        const key = `burst-${withCreation}`;
        const input = [
          ...mutations(),
          ...(withCreation
            ? [
                {
                  target: targets().campaign,
                  action: 'create_ad_group',
                  payload: { name: uniqueName(), state: 'ENABLED', defaultBid: 0.4 },
                },
              ]
            : []),
        ];
        const clients = await Promise.all(Array.from({ length: 20 }, () => mcp.clientFor(users.ada)));
        const answers = await Promise.all(clients.map((c) => queue(c, { mutations: input, idempotency_key: key })));
        const bodies = answers.map((a) => a.structuredContent);
        expect(
          bodies.every((b) => !b.code),
          JSON.stringify(bodies.find((b) => b.code)),
        ).to.equal(true);
        expect(bodies.filter((b) => b.replayed === false)).to.have.length(1);
        expect(bodies.filter((b) => b.replayed === true)).to.have.length(19);
        const ids = new Set(
          bodies.map((b) => JSON.stringify(b.results.map((r: any) => r.receipt?.id ?? r.error.code))),
        );
        expect(ids.size).to.equal(1);
        const admitted = await h
          .db('events')
          .where({ type: 'MutationAdmitted' })
          .whereRaw(`data->'idempotency'->>'key' = ?`, [key]);
        expect(admitted).to.have.length(input.length - 1);
      });
    it('a call with a creation and one without, on one key at once: one admits, the other is idempotency_conflict, no receipt of the loser is written', async () => {
      const keys = Array.from({ length: 8 }, (_, i) => `mixed-${i}`);
      const withCreation = () => [
        ...mutations(),
        {
          target: targets().campaign,
          action: 'create_ad_group',
          payload: { name: uniqueName(), state: 'ENABLED', defaultBid: 0.4 },
        },
      ];
      const [plain, creating] = await Promise.all([mcp.clientFor(users.ada), mcp.clientFor(users.ada)]);
      const pairs = await Promise.all(
        keys.map((key) =>
          Promise.all([
            queue(plain, { mutations: mutations(), idempotency_key: key }),
            queue(creating, { mutations: withCreation(), idempotency_key: key }),
          ]),
        ),
      );
      for (const [key, pair] of keys.map((k, i) => [k, pairs[i]!] as const)) {
        const bodies = pair.map((a) => a.structuredContent);
        const won = bodies.filter((b) => b.replayed === false);
        expect(won, JSON.stringify(bodies)).to.have.length(1);
        expect(
          bodies.filter((b) => b.code === 'idempotency_conflict'),
          JSON.stringify(bodies),
        ).to.have.length(1);
        const receipts = won[0]!.results.filter((r: any) => r.receipt).map((r: any) => r.receipt.id);
        const admitted = await h
          .db('events')
          .where({ type: 'MutationAdmitted' })
          .whereRaw(`data->'idempotency'->>'key' = ?`, [key]);
        expect(admitted.map((e) => e.data.receipt_id).sort()).to.deep.equal([...receipts].sort());
      }
    });
  });

  describe('identical pending creations (spec 3.4)', () => {
    const creation = () => ({
      target: targets().adGroup,
      action: 'create_target',
      payload: {
        targetType: 'KEYWORD',
        state: 'ENABLED',
        negative: false,
        bid: { bid: 0.3 },
        targetDetails: { keywordTarget: { keyword: uniqueName(), matchType: 'PHRASE' } },
      },
    });

    it('refuses an identical creation on the same parent while one is pending, and admits it again once that one settled', async () => {
      const c = creation();
      const first = (await queue(ada, { mutations: [c] })).structuredContent.results[0];
      expect(first.receipt.status).to.equal('queued');
      const second = (await queue(ada, { mutations: [c] })).structuredContent.results[0];
      expect(second.error.code).to.equal('invalid');
      expect(second.error.pending_receipt_id).to.equal(first.receipt.id);
      // a different payload on the same parent is another creation
      const other = (await queue(ada, { mutations: [{ ...c, payload: { ...c.payload, bid: { bid: 0.31 } } }] }))
        .structuredContent.results[0];
      expect(other.receipt.status).to.equal('queued');
      // twice in one call: the second is refused
      const twice = (await queue(ada, { mutations: ((x) => [x, x])(creation()) })).structuredContent.results;
      expect(twice.map((r: any) => r.error?.code ?? 'receipt')).to.deep.equal(['receipt', 'invalid']);
      await executeMutationCommand(
        { store: h.store, metadata: { actor: { kind: 'worker', id: 'test' } } },
        {
          type: 'BlockMutation',
          receipt_id: first.receipt.id,
          reason: 'listing_blocked',
          message: 'blocked',
          recorded_at: new Date(h.clock.ms).toISOString(),
        },
      );
      const third = (await queue(ada, { mutations: [c] })).structuredContent.results[0];
      expect(third.receipt.status).to.equal('queued');
    });

    it('admits exactly one of 10 concurrent identical creations', async () => {
      const c = creation();
      const answers = await Promise.all(Array.from({ length: 10 }, () => queue(ada, { mutations: [c] })));
      const results = answers.map((a) => a.structuredContent.results[0]);
      expect(results.filter((r: any) => r.receipt)).to.have.length(1);
      expect(results.filter((r: any) => r.error?.code === 'invalid')).to.have.length(9);
    });
  });

  describe('an advertised ASIN (spec 4.12.5)', () => {
    it('must be one the account has in the marketplace: the ASIN of a deleted listing (and of no other) is refused', async () => {
      const advertised = new Set((await sp('productAds')).map((a) => a.asin));
      const listings = [...h.simulator.catalog.listingsIn(profile.marketplace_id)].map((l) =>
        h.simulator.selling.listings.live(l),
      );
      const alive = new Set(listings.filter((l) => l.status !== 'DELETED').map((l) => l.asin));
      const deletedOnly = listings.find(
        (l) => l.status === 'DELETED' && l.asin && !advertised.has(l.asin) && !alive.has(l.asin),
      )!;
      expect(deletedOnly, 'the simulator has a deleted listing whose ASIN is nowhere else').to.not.equal(undefined);
      const create = (asin: string) => ({
        target: targets().adGroup,
        action: 'create_ad',
        payload: { state: 'PAUSED', asin },
      });
      const [ok, refused] = (await queue(ada, { mutations: [create(listing.asin!), create(deletedOnly.asin!)] }))
        .structuredContent.results;
      expect(ok.receipt?.status, JSON.stringify(ok)).to.equal('queued');
      expect(refused.error.code).to.equal('invalid');
      expect(refused.error.detail).to.contain(`'${deletedOnly.asin}'`);
    });
  });

  describe('the campaign Automation switch (operator CLI)', () => {
    it('off: requests touching the campaign are admitted blocked, never sent; on again: new ones queue', async () => {
      const env = { DATABASE_URL: process.env.DATABASE_URL! };
      const t = targets();
      expect(await cli(['campaigns', 'automation', '--campaign', t.campaign.id, '--switch', 'off'], env)).to.contain(
        'Automation switch off',
      );
      expect(
        await cli(['campaigns', 'automation', '--campaign', t.campaign.id, '--switch', 'off'], env),
        'already off',
      ).to.contain('(already)');
      const update = { target: t.campaign, action: 'update', payload: { state: 'ENABLED' } };
      const blocked = (await queue(ada, { mutations: [update] })).structuredContent.results[0].receipt;
      expect(blocked).to.include({ status: 'blocked', outcome: 'blocked' });
      expect(blocked.error).to.include({ code: 'blocked', reason: 'automation_switch_off' });
      expect(await cli(['campaigns', 'automation', '--campaign', t.campaign.id, '--switch', 'on'], env)).to.contain(
        'Automation switch on',
      );
      expect((await queue(ada, { mutations: [update] })).structuredContent.results[0].receipt.status).to.equal(
        'queued',
      );
      expect((await call(ada, 'get_mutation', { id: blocked.id })).structuredContent.status, 'never released').to.equal(
        'blocked',
      );
      const unknown = await cli(['campaigns', 'automation', '--campaign', t.adGroup.id, '--switch', 'off'], env).catch(
        (err: Error) => err.message,
      );
      expect(unknown).to.contain('no campaign with local id');
    });
  });

  describe("a blocked listing's advertising changes (spec 3.5)", () => {
    it('a new ad for its SKU is admitted blocked, naming the listing; allowed again, new ones queue', async () => {
      const t = targets();
      const block = (blocked: boolean) =>
        call(ada, 'update_listing', {
          account: acc.ada,
          updates: [{ sku: listing.sku, marketplace_id: listing.marketplaceId, blocked }],
        });
      expect((await block(true)).structuredContent.updates[0]).to.include({ saved: true, blocked: true });
      try {
        const newAd = { target: t.adGroup, action: 'create_ad', payload: { state: 'PAUSED', sku: listing.sku } };
        const held = (await queue(ada, { mutations: [newAd] })).structuredContent.results[0].receipt;
        expect(held).to.include({ status: 'blocked', outcome: 'blocked', accepted: false });
        expect(held.error).to.deep.equal({
          code: 'blocked',
          reason: 'listing_blocked',
          message: `listing ${t.listing.id} is blocked; allow it with update_listing (blocked requests are not replayed)`,
        });
        await block(false);
        expect((await queue(ada, { mutations: [newAd] })).structuredContent.results[0].receipt.status).to.equal(
          'queued',
        );
      } finally {
        await block(false);
      }
    });
  });

  describe('admissions_disabled', () => {
    it('refuses new admissions while an operator paused them; queued receipts are untouched, a key used before replays', async () => {
      const keyed = { mutations: [{ target: targets().ad, action: 'update', payload: { state: 'ENABLED' } }] };
      const queued = (await queue(ada, { ...keyed, idempotency_key: 'before-the-pause' })).structuredContent.results[0]
        .receipt;
      // the operator's command, as run on a server (it waits until the switch is projected)
      const env = { DATABASE_URL: process.env.DATABASE_URL! };
      expect(await cli(['admissions', 'disable', '--reason', 'provider incident'], env)).to.contain(
        'admissions disabled',
      );
      expect(await cli(['admissions', 'disable'], env), 'already off').to.contain('(already)');
      await h.projector.whenCaughtUp();
      const before = await eventCount();
      const refused = await queue(ada, {
        mutations: [{ target: targets().ad, action: 'update', payload: { state: 'PAUSED' } }],
      });
      expect(refused.structuredContent.code).to.equal('admissions_disabled');
      expect(refused.structuredContent.detail).to.contain('provider incident');
      const patch = await call(ada, 'patch_listing', {
        account: acc.ada,
        sku: listing.sku,
        marketplace_id: listing.marketplaceId,
        patches: [offerPatch(9)],
      });
      expect(patch.structuredContent.code).to.equal('admissions_disabled');
      // the key's answer stands: a retry replays it, paused or not
      const replayed = (await queue(ada, { ...keyed, idempotency_key: 'before-the-pause' })).structuredContent;
      expect(replayed.replayed).to.equal(true);
      expect(replayed.results[0].receipt.id).to.equal(queued.id);
      expect(await eventCount()).to.equal(before);
      expect((await call(ada, 'get_mutation', { id: queued.id })).structuredContent.status).to.equal('queued');
      expect(await cli(['admissions', 'enable'], env)).to.contain('admissions enabled');
      const allowed = await queue(ada, {
        mutations: [{ target: targets().ad, action: 'update', payload: { state: 'PAUSED' } }],
      });
      expect(allowed.structuredContent.results[0].receipt.status).to.equal('queued');
    });
  });

  describe('patch_listing (spec 4.5)', () => {
    /** SKUs the simulator lists in several of the seller's marketplaces, and in exactly one */
    const skusByMarketplaces = () => {
      const seen = new Map<string, SimListing[]>();
      for (const p of h.simulator.seller.participations) {
        for (const l of h.simulator.catalog.listingsIn(p.marketplace.id))
          if (l.status !== 'DELETED') seen.set(l.sku, [...(seen.get(l.sku) ?? []), l]);
      }
      return {
        several: [...seen.values()].find((ls) => ls.length > 1)!,
        single: [...seen.values()].filter((ls) => ls.length === 1).map((ls) => ls[0]!),
      };
    };

    it("queues one receipt with the patches in order; product_type defaults to PRODUCT for offer-only patches, else the listing's type", async () => {
      const { single } = skusByMarketplaces();
      const l = single.find((x) => x.productType !== 'PRODUCT')!;
      const offer = {
        op: 'merge',
        path: '/attributes/purchasable_offer',
        value: [
          {
            marketplace_id: l.marketplaceId,
            currency: l.currency,
            audience: 'ALL',
            minimum_seller_allowed_price: [{ schedule: [{ value_with_tax: 5 }] }],
          },
        ],
      };
      const title = {
        op: 'replace',
        path: '/attributes/item_name',
        value: [{ value: 'A better title', marketplace_id: l.marketplaceId }],
      };
      const offerOnly = (await call(ada, 'patch_listing', { account: acc.ada, sku: l.sku, patches: [offer] }))
        .structuredContent;
      expect(offerOnly.receipt).to.include({
        status: 'queued',
        target_type: 'Listing',
        target_id: listingLocalId(acc.ada, l.marketplaceId, l.sku),
        action: 'update',
      });
      expect(offerOnly.receipt.payload).to.deep.equal({ productType: 'PRODUCT', patches: [offer] });
      const mixed = (await call(ada, 'patch_listing', { account: acc.ada, sku: l.sku, patches: [title, offer] }))
        .structuredContent;
      expect(mixed.receipt.payload).to.deep.equal({ productType: l.productType, patches: [title, offer] });
      const given = (
        await call(ada, 'patch_listing', { account: acc.ada, sku: l.sku, product_type: 'LUGGAGE', patches: [offer] })
      ).structuredContent;
      expect(given.receipt.payload.productType).to.equal('LUGGAGE');
      expect(new Set([offerOnly, mixed, given].map((b) => b.receipt.id)).size, 'each request its own receipt').to.equal(
        3,
      );
      await h.projector.whenCaughtUp();
      const stored = (await call(ada, 'get_mutation', { id: mixed.receipt.id })).structuredContent;
      expect(stored.payload.patches).to.deep.equal([title, offer]);
      expect(stored.provider).to.include({ sku: l.sku, marketplaceId: l.marketplaceId });
    });

    it('ambiguous_sku when the SKU sells in several marketplaces; listing_not_found for an unknown SKU or marketplace; invalid offer values', async () => {
      const { several, single } = skusByMarketplaces();
      const sku = several[0]!.sku;
      const patches = [offerPatch(4)];
      const ambiguous = await call(ada, 'patch_listing', { account: acc.ada, sku, patches });
      expect(ambiguous.structuredContent.code).to.equal('ambiguous_sku');
      expect(ambiguous.structuredContent.marketplace_ids).to.have.members(several.map((l) => l.marketplaceId));
      const chosen = several[1]!;
      const named = await call(ada, 'patch_listing', {
        account: acc.ada,
        sku,
        marketplace_id: chosen.marketplaceId,
        patches: [
          {
            ...patches[0],
            value: [{ ...patches[0]!.value[0], marketplace_id: chosen.marketplaceId, currency: chosen.currency }],
          },
        ],
      });
      expect(named.structuredContent.receipt.provider.marketplaceId).to.equal(chosen.marketplaceId);
      expect(
        (await call(ada, 'patch_listing', { account: acc.ada, sku: 'NO-SUCH-SKU', patches })).structuredContent.code,
      ).to.equal('listing_not_found');
      const elsewhere = h.simulator.seller.participations
        .map((p) => p.marketplace.id)
        .find((m) => m !== single[0]!.marketplaceId)!;
      expect(
        (
          await call(ada, 'patch_listing', {
            account: acc.ada,
            sku: single[0]!.sku,
            marketplace_id: elsewhere,
            patches,
          })
        ).structuredContent.code,
      ).to.equal('listing_not_found');
      const bad = await call(ada, 'patch_listing', {
        account: acc.ada,
        sku: single[0]!.sku,
        patches: [{ op: 'replace', path: '/attributes/purchasable_offer', value: [{ our_price: [] }] }],
      });
      expect(bad.structuredContent.code).to.equal('invalid');
      expect(bad.structuredContent.detail).to.match(/^patches\.0\.value\.0: .*marketplace_id, currency, audience/);
    });
  });

  describe('a listing the marketplace reports DELETED (spec 3.4, 3.5)', () => {
    let deleted: Raw;
    before(async () => {
      const sim = [...h.simulator.catalog.listingsIn(profile.marketplace_id)].find((l) => l.status === 'DELETED')!;
      const shown = await call(ada, 'list_listings', {
        account: acc.ada,
        sku: sim.sku,
        marketplace_id: sim.marketplaceId,
      });
      expect(shown.isError, JSON.stringify(shown.structuredContent)).to.equal(undefined);
      deleted = shown.structuredContent.listings[0];
    });

    it('list_listings shows it, with status DELETED and its id', () => {
      expect(deleted).to.include({ status: 'DELETED', active: false, type: 'Listing' });
      expect(deleted.id).to.be.a('string');
    });

    it('queue_mutations on its id is refused as invalid saying it is deleted (not target_not_found), and records nothing', async () => {
      const before = await eventCount();
      const out = await queue(ada, {
        mutations: [
          {
            target: { type: 'Listing', id: deleted.id },
            action: 'update',
            payload: { productType: 'PRODUCT', patches: [offerPatch(9.99)] },
          },
        ],
      });
      expect(out.structuredContent).to.include({ admitted: 0, rejected: 1 });
      const rejection = out.structuredContent.results[0].error;
      expect(rejection).to.deep.include({ code: 'invalid', argument: 'mutations[0].target', status: 'DELETED' });
      expect(rejection.detail).to.equal(
        `mutations[0].target: the listing with SKU '${deleted.sku}' in marketplace ${deleted.marketplace_id} has status DELETED at the marketplace (list_listings shows it until the service removes it); a deleted listing takes no changes`,
      );
      expect(await eventCount()).to.equal(before);
    });

    it('patch_listing on its SKU is refused the same way, naming sku', async () => {
      const out = await call(ada, 'patch_listing', {
        account: acc.ada,
        sku: deleted.sku,
        marketplace_id: deleted.marketplace_id,
        patches: [offerPatch(9.99)],
      });
      expect(out.structuredContent).to.deep.include({ code: 'invalid', argument: 'sku', status: 'DELETED' });
      expect(out.structuredContent.detail).to.match(
        /^sku: the listing with SKU '.+' in marketplace \S+ has status DELETED/,
      );
    });
  });

  describe('dispatch at admission', () => {
    let serving: McpServing;
    let client: Client;
    const notices: string[][] = [];
    let queueDown = false;

    before(async () => {
      const dispatch = {
        async queued(ids: readonly string[]) {
          if (queueDown) throw new Error('Redis is away');
          notices.push([...ids]);
        },
      };
      serving = await serveMcp(h.db, () => new Date(h.clock.ms), users.bob, { dispatch });
      client = await serving.clientFor(users.ada);
    });
    after(async () => serving?.close());
    beforeEach(() => {
      notices.length = 0;
    });

    it("hands over each target's last queued receipt (its job waits until the read model shows it, then sends the target's requests in order), never a rejection, a replay or a demo call", async () => {
      const t = targets();
      const mutations = [
        { target: t.adGroup, action: 'update', payload: { defaultBid: 0.7 } },
        { target: t.ad, action: 'update', payload: { state: 'PAUSED' } },
        { target: t.adGroup, action: 'update', payload: { state: 'PAUSED' } },
        { target: t.ad, action: 'update', payload: {} },
      ];
      const first = (await call(client, 'queue_mutations', { mutations, idempotency_key: 'notice-1' }))
        .structuredContent;
      const [ad, group] = [1, 2].map((i) => first.results[i].receipt.id as string);
      expect(first.results[3].error.code).to.equal('invalid');
      // the ad group's job goes through both its requests, in order
      expect(notices).to.deep.equal([[group, ad]]);
      expect(
        (await call(client, 'queue_mutations', { mutations, idempotency_key: 'notice-1' })).structuredContent.replayed,
      ).to.equal(true);
      const patched = (
        await call(client, 'patch_listing', {
          account: acc.ada,
          sku: listing.sku,
          marketplace_id: listing.marketplaceId,
          patches: [offerPatch(11)],
        })
      ).structuredContent;
      expect(notices).to.deep.equal([[group, ad], [patched.receipt.id]]);
      const demo = await serving.demoClient();
      expect(
        (
          await call(demo, 'patch_listing', {
            sku: listing.sku,
            marketplace_id: listing.marketplaceId,
            patches: [offerPatch(11)],
          })
        ).structuredContent.simulated,
      ).to.equal(true);
      expect(notices).to.have.length(2);
    });

    it('admits as usual when the queue fails: the receipt is durable and the sweep finds it', async () => {
      queueDown = true;
      try {
        const out = (
          await call(client, 'queue_mutations', {
            mutations: [{ target: targets().ad, action: 'update', payload: { state: 'ENABLED' } }],
          })
        ).structuredContent;
        expect(out.results[0].receipt.status).to.equal('queued');
        expect(notices).to.deep.equal([]);
      } finally {
        queueDown = false;
      }
    });
  });

  describe('the demo endpoint', () => {
    it('validates and simulates queue_mutations and patch_listing, recording nothing', async () => {
      const bobsAd = { type: 'Ad', id: localId('product_ad', acc.bob, ad.adId) };
      const count = await eventCount();
      const queued = (
        await call(demo, 'queue_mutations', {
          mutations: [
            { target: bobsAd, action: 'update', payload: { state: 'PAUSED' } },
            { target: bobsAd, action: 'update', payload: {} },
          ],
          idempotency_key: 'demo-1',
        })
      ).structuredContent;
      expect(queued.simulated).to.equal(true);
      expect(queued.results[0].receipt).to.include({
        id: null,
        status: 'queued',
        target_id: bobsAd.id,
        account_id: acc.bob,
      });
      expect(queued.results[0].receipt.provider.adId).to.equal(ad.adId);
      expect(queued.results[1].error.code).to.equal('invalid');
      const patched = (
        await call(demo, 'patch_listing', {
          sku: listing.sku,
          marketplace_id: listing.marketplaceId,
          patches: [offerPatch(8)],
        })
      ).structuredContent;
      expect(patched).to.deep.include({ simulated: true });
      expect(patched.receipt).to.include({
        id: null,
        status: 'queued',
        target_id: listingLocalId(acc.bob, listing.marketplaceId, listing.sku),
      });
      expect(await eventCount()).to.equal(count);
    });
  });

  describe('the admission read model', () => {
    it('applies every event twice to the same rows, and rebuilds equal to the live tables', async () => {
      await h.projector.whenCaughtUp();
      const events = (await h.allEvents()).filter((e) => admissionProjection.handles.includes(e.type));
      expect(events.map((e) => e.type)).to.include.members([
        'AdmissionsDisabled',
        'AdmissionsEnabled',
        'MutationSubmitted',
      ]);
      await assertApplyTwiceSameResult(h.db, admissionProjection, events);
      await assertRebuildEqualsLive(h.db, h.store, admissionProjection);
    });
  });
});
